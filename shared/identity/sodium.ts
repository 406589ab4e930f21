// Ed25519 in libsodium (sodium-native's prebuilt binding), Parley's hot path for envelope
// signatures (issue 15 "sign and verify with cached keys in native code"). Measured on this
// machine, the same 400-byte message: verify 43 µs against node:crypto's (OpenSSL 3) 75 µs, sign
// 16 against 27 µs; in the two-agent bench signatures were 20 % of the CPU. Ed25519 signing is
// deterministic (RFC 8032 §5.1.6): libsodium's signatures are byte for byte OpenSSL's, and the
// Wycheproof vectors check that both accept and refuse the same signatures (test/unit/vectors.test.ts).
// libsodium takes the 64-byte secret key (seed ‖ public key): derived once per seed and kept
// beside it (a WeakMap on the seed array, so it lives exactly as long as the identity).
// Where the binding cannot load (no prebuild for the platform), node:crypto serves alone
// (`defaultEd25519`); PARLEY_ED25519=node chooses it explicitly (benchmark comparisons).
import { createRequire } from 'node:module';
import path from 'node:path';
import { envString } from '../config/index.js';
import { type Ed25519Impl, KEY_BYTES, nodeEd25519, SIGNATURE_BYTES } from './keys.js';

interface SodiumBinding {
  crypto_sign_seed_keypair(pk: Uint8Array, sk: Uint8Array, seed: Uint8Array): void;
  crypto_sign_detached(sig: Uint8Array, message: Uint8Array, sk: Uint8Array): void;
  crypto_sign_verify_detached(sig: Uint8Array, message: Uint8Array, pk: Uint8Array): boolean;
}

/** The prebuilt addon's own functions (sodium-native 5's binding; typed arrays, verify by buffer, offset, length). */
interface RawBinding {
  crypto_sign_seed_keypair(pk: Uint8Array, sk: Uint8Array, seed: Uint8Array): number;
  crypto_sign_detached(sig: Uint8Array, message: Uint8Array, sk: Uint8Array): number;
  crypto_sign_verify_detached(...args: Array<ArrayBufferLike | number>): boolean;
}

/**
 * The prebuilt addon straight from its prebuilds/ folder: sodium-native's index.js loads it
 * through require-addon, 17 of the 25 ms its require takes here (each agent process pays it at
 * start). Used only when it reproduces RFC 8032's known answer (public key, signature and both
 * verdicts), so a binding whose calling convention changed is never used.
 */
function loadRaw(require: NodeJS.Require): SodiumBinding | undefined {
  const dir = path.dirname(require.resolve('sodium-native/package.json'));
  const raw = require(path.join(dir, 'prebuilds', `${process.platform}-${process.arch}`, 'sodium-native.node')) as RawBinding;
  const b: SodiumBinding = {
    crypto_sign_seed_keypair: (pk, sk, seed) => {
      if (raw.crypto_sign_seed_keypair(pk, sk, seed) !== 0) throw new Error('crypto_sign_seed_keypair failed');
    },
    crypto_sign_detached: (sig, message, sk) => {
      if (raw.crypto_sign_detached(sig, message, sk) !== 0) throw new Error('crypto_sign_detached failed');
    },
    crypto_sign_verify_detached: (sig, m, pk) => raw.crypto_sign_verify_detached(
      sig.buffer, sig.byteOffset, sig.byteLength, m.buffer, m.byteOffset, m.byteLength, pk.buffer, pk.byteOffset, pk.byteLength,
    ),
  };
  // RFC 8032 §7.1 TEST 2 (node:crypto's first use would cost more than the whole load).
  const hex = (h: string) => new Uint8Array(Buffer.from(h, 'hex'));
  const seed = hex('4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb');
  const pk = hex('3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c');
  const expected = '92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00';
  const impl = sodiumImpl(b);
  const sig = impl.sign(hex('72'), seed);
  const good = Buffer.from(sig).toString('hex') === expected && Buffer.from(impl.publicKey(seed)).equals(Buffer.from(pk));
  secretKeys.delete(seed);
  return good && impl.verify(sig, hex('72'), pk) && !impl.verify(sig, hex('73'), pk) ? b : undefined;
}

function load(): { binding: SodiumBinding; from: 'prebuild' | 'package' } | undefined {
  const require = createRequire(import.meta.url);
  try {
    const raw = loadRaw(require);
    if (raw) return { binding: raw, from: 'prebuild' };
  } catch {
    // no prebuild for this platform by that name: the package's own loader below
  }
  try {
    return { binding: require('sodium-native') as SodiumBinding, from: 'package' };
  } catch {
    return undefined;
  }
}

const secretKeys = new WeakMap<Uint8Array, { pk: Uint8Array; sk: Uint8Array }>();

function sodiumImpl(s: SodiumBinding): Ed25519Impl {
  const pair = (seed: Uint8Array) => {
    let p = secretKeys.get(seed);
    if (!p) {
      if (!(seed instanceof Uint8Array) || seed.length !== KEY_BYTES) {
        throw new RangeError(`Ed25519 private key must be ${KEY_BYTES} bytes, got ${seed instanceof Uint8Array ? seed.length : typeof seed}`);
      }
      p = { pk: new Uint8Array(32), sk: new Uint8Array(64) };
      s.crypto_sign_seed_keypair(p.pk, p.sk, seed);
      secretKeys.set(seed, p);
    }
    return p;
  };
  return {
    name: 'sodium',
    publicKey: (seed) => pair(seed).pk.slice(),
    sign(message, seed) {
      const sig = new Uint8Array(SIGNATURE_BYTES);
      s.crypto_sign_detached(sig, message, pair(seed).sk);
      return sig;
    },
    verify(signature, message, publicKey) {
      if (signature.length !== SIGNATURE_BYTES || publicKey.length !== KEY_BYTES) return false;
      try {
        return s.crypto_sign_verify_detached(signature, message, publicKey);
      } catch {
        return false;
      }
    },
  };
}

const loaded = load();

/** How libsodium was loaded: its prebuilt addon directly, or through the package's loader. */
export const sodiumSource = loaded?.from;

/** libsodium's Ed25519, when its binding loads here. */
export const sodiumEd25519: Ed25519Impl | undefined = loaded ? sodiumImpl(loaded.binding) : undefined;

/** What envelopes are signed and verified with: libsodium, else node:crypto (PARLEY_ED25519). */
export const defaultEd25519: Ed25519Impl = envString('PARLEY_ED25519') === 'node' ? nodeEd25519 : sodiumEd25519 ?? nodeEd25519;
