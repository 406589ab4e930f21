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
import { envString } from '../config/index.js';
import { type Ed25519Impl, KEY_BYTES, nodeEd25519, SIGNATURE_BYTES } from './keys.js';

interface SodiumBinding {
  crypto_sign_seed_keypair(pk: Uint8Array, sk: Uint8Array, seed: Uint8Array): void;
  crypto_sign_detached(sig: Uint8Array, message: Uint8Array, sk: Uint8Array): void;
  crypto_sign_verify_detached(sig: Uint8Array, message: Uint8Array, pk: Uint8Array): boolean;
}

function load(): SodiumBinding | undefined {
  try {
    return createRequire(import.meta.url)('sodium-native') as SodiumBinding;
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

const binding = load();

/** libsodium's Ed25519, when its binding loads here. */
export const sodiumEd25519: Ed25519Impl | undefined = binding ? sodiumImpl(binding) : undefined;

/** What envelopes are signed and verified with: libsodium, else node:crypto (PARLEY_ED25519). */
export const defaultEd25519: Ed25519Impl = envString('PARLEY_ED25519') === 'node' ? nodeEd25519 : sodiumEd25519 ?? nodeEd25519;
