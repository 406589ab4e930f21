// Ed25519 key material (Agora v1.0 §2: Ed25519 is REQUIRED). Two implementations share one
// interface: node:crypto (OpenSSL) is Parley's fast path (facts.md: ≈ 10,000 verifies/s per core);
// @noble/ed25519 (≈ 860 verifies/s) is the independent second implementation used in cross-tests.
import crypto, { type KeyObject } from 'node:crypto';
import { inspect } from 'node:util';
import * as ed from '@noble/ed25519';
import { didFromPublicKey } from './did-key.js';

export const KEY_BYTES = 32;
export const SIGNATURE_BYTES = 64;

// @noble/ed25519 v3 ships without a hash; its sync API needs SHA-512 wired in once.
if (!ed.hashes.sha512) {
  ed.hashes.sha512 = (m: Uint8Array) => new Uint8Array(crypto.createHash('sha512').update(m).digest());
}

// ASN.1 wrapper around the raw 32-byte seed (RFC 8410 §7 PKCS#8 OneAsymmetricKey): the fallback import.
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** A raw Ed25519 key pair: 32-byte seed (RFC 8032 §5.1.5 "private key") and 32-byte public key. */
export interface RawKeyPair {
  readonly publicKey: Uint8Array;
  readonly privateKey: Uint8Array;
}

export interface Ed25519Impl {
  readonly name: 'node' | 'noble' | 'sodium';
  publicKey(seed: Uint8Array): Uint8Array;
  sign(message: Uint8Array, seed: Uint8Array): Uint8Array;
  /** Never throws: malformed keys or signatures are simply invalid. */
  verify(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean;
}

function expectLength(bytes: Uint8Array, n: number, what: string): void {
  if (!(bytes instanceof Uint8Array) || bytes.length !== n) {
    throw new RangeError(`${what} must be ${n} bytes, got ${bytes instanceof Uint8Array ? bytes.length : typeof bytes}`);
  }
}

// Private KeyObjects hang off the seed array itself, so they live exactly as long as the identity.
const privateObjects = new WeakMap<Uint8Array, KeyObject>();

export function privateKeyObject(seed: Uint8Array): KeyObject {
  let key = privateObjects.get(seed);
  if (!key) {
    expectLength(seed, KEY_BYTES, 'Ed25519 private key');
    key = importPrivate(seed);
    privateObjects.set(seed, key);
  }
  return key;
}

// Imported as JWK (RFC 8037 OKP), not DER: with OpenSSL 3 (Node 20) a DER PKCS#8 import costs
// ≈ 0.76 ms and an SPKI one ≈ 0.12 ms, the JWK ones ≈ 0.07 and ≈ 0.02 ms (measured, issue 14 §3:
// key derivation was most of a virtual agent's start, and the Registry's first verify of each
// DID). The same raw bytes either way; the cross-tests with @noble/ed25519 check the results.
const b64url = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url');

function importPrivate(seed: Uint8Array): KeyObject {
  try {
    // Node builds the key from `d` alone (the public half is derived); `x` must be a string.
    return crypto.createPrivateKey({ key: { kty: 'OKP', crv: 'Ed25519', d: b64url(seed), x: '' }, format: 'jwk' });
  } catch {
    return crypto.createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  }
}

/** Public KeyObjects cached by raw key (hex); bounded LRU so a flood of new keys cannot grow it. */
const PUBLIC_CACHE_MAX = 4096;
const publicObjects = new Map<string, KeyObject>();

export function publicKeyObject(raw: Uint8Array): KeyObject {
  expectLength(raw, KEY_BYTES, 'Ed25519 public key');
  const id = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('hex');
  let key = publicObjects.get(id);
  if (key) {
    publicObjects.delete(id); // refresh LRU position
  } else {
    key = crypto.createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: b64url(raw) }, format: 'jwk' });
    if (publicObjects.size >= PUBLIC_CACHE_MAX) publicObjects.delete(publicObjects.keys().next().value as string);
  }
  publicObjects.set(id, key);
  return key;
}

export const nodeEd25519: Ed25519Impl = {
  name: 'node',
  publicKey(seed) {
    const x = crypto.createPublicKey(privateKeyObject(seed)).export({ format: 'jwk' }).x;
    return new Uint8Array(Buffer.from(x as string, 'base64url'));
  },
  sign(message, seed) {
    return new Uint8Array(crypto.sign(null, message, privateKeyObject(seed)));
  },
  verify(signature, message, publicKey) {
    if (signature.length !== SIGNATURE_BYTES) return false;
    try {
      return crypto.verify(null, message, publicKeyObject(publicKey), signature);
    } catch {
      return false;
    }
  },
};

/**
 * zip215: false = RFC 8032 / FIPS 186-5 strict decoding; with it noble agrees with node:crypto on
 * all 151 Wycheproof cases. noble's own default (ZIP-215) accepts one invalid case, tc151 (R with
 * y = 1 and the x sign bit set, a non-canonical encoding): Parley never verifies in that mode.
 */
export function nobleImpl(opts: { zip215: boolean } = { zip215: false }): Ed25519Impl {
  return {
    name: 'noble',
    publicKey: (seed) => ed.getPublicKey(seed),
    sign: (message, seed) => ed.sign(message, seed),
    verify(signature, message, publicKey) {
      try {
        return ed.verify(signature, message, publicKey, opts);
      } catch {
        return false; // wrong lengths throw in noble
      }
    },
  };
}

export const nobleEd25519: Ed25519Impl = nobleImpl();

export function keyPairFromSeed(seed: Uint8Array): RawKeyPair {
  expectLength(seed, KEY_BYTES, 'Ed25519 private key');
  const privateKey = new Uint8Array(seed);
  return { privateKey, publicKey: nodeEd25519.publicKey(privateKey) };
}

/** A fresh key pair from the OS CSPRNG. */
export function generateKeyPair(): RawKeyPair {
  return keyPairFromSeed(crypto.randomBytes(KEY_BYTES));
}

/** An agent's signing identity: its key pair and the did:key derived from the public key. */
export interface Identity extends RawKeyPair {
  readonly did: string;
}

/**
 * Wraps a key pair as an Identity whose private key is non-enumerable and left out of toJSON and
 * util.inspect, so logging or serialising an identity by mistake never prints the secret.
 */
export function identityFromKeyPair(pair: RawKeyPair): Identity {
  const did = didFromPublicKey(pair.publicKey);
  const identity = { did, publicKey: pair.publicKey } as Identity;
  Object.defineProperty(identity, 'privateKey', { value: pair.privateKey, enumerable: false });
  Object.defineProperty(identity, 'toJSON', { value: () => ({ did }), enumerable: false });
  Object.defineProperty(identity, inspect.custom, { value: () => `Identity(${did})`, enumerable: false });
  return Object.freeze(identity);
}

/** A new in-memory identity (random, or from a 32-byte seed). Persisted ones: keystore.ts. */
export function createIdentity(seed?: Uint8Array): Identity {
  return identityFromKeyPair(seed ? keyPairFromSeed(seed) : generateKeyPair());
}
