// did:key for Ed25519 (W3C CCG did:key method §2, Agora v1.0 §1 "DID Key preferred"):
// did:key:z<base58btc(varint(0xed) ‖ 32-byte public key)>, i.e. the 0xed 0x01 prefix, which is
// why every Ed25519 did:key starts with "z6Mk".
export const DID_KEY_PREFIX = 'did:key:';
const KEY_BYTES = 32;
/** Multicodec ed25519-pub (0xed) as an unsigned varint. */
const ED25519_PUB = Uint8Array.of(0xed, 0x01);
const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const INDEX = new Map([...ALPHABET].map((c, i) => [c, i]));
/** A did:key longer than this cannot be an Ed25519 key; checked before decoding (cost bound). */
const MAX_DID_LENGTH = 128;

export type DidErrorCode = 'NOT_DID_KEY' | 'NOT_BASE58BTC' | 'BAD_BASE58' | 'WRONG_CODEC' | 'WRONG_LENGTH';

export class DidError extends Error {
  constructor(readonly code: DidErrorCode, message: string) {
    super(message);
    this.name = 'DidError';
  }
}

/** Base58 (Bitcoin alphabet): leading zero bytes become leading '1's. */
export function base58btcEncode(bytes: Uint8Array): string {
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  const digits: number[] = []; // little-endian base-58 digits
  for (let i = zeros; i < bytes.length; i++) {
    let carry = bytes[i] as number;
    for (let j = 0; j < digits.length; j++) {
      carry += (digits[j] as number) << 8;
      digits[j] = carry % 58;
      carry = Math.floor(carry / 58);
    }
    while (carry > 0) {
      digits.push(carry % 58);
      carry = Math.floor(carry / 58);
    }
  }
  return '1'.repeat(zeros) + digits.reverse().map((d) => ALPHABET[d]).join('');
}

export function base58btcDecode(text: string): Uint8Array {
  let zeros = 0;
  while (zeros < text.length && text[zeros] === '1') zeros++;
  const bytes: number[] = []; // little-endian base-256 digits
  for (let i = zeros; i < text.length; i++) {
    const value = INDEX.get(text[i] as string);
    if (value === undefined) throw new DidError('BAD_BASE58', `invalid base58btc character ${JSON.stringify(text[i])} at ${i}`);
    let carry = value;
    for (let j = 0; j < bytes.length; j++) {
      carry += (bytes[j] as number) * 58;
      bytes[j] = carry & 0xff;
      carry >>= 8;
    }
    while (carry > 0) {
      bytes.push(carry & 0xff);
      carry >>= 8;
    }
  }
  return Uint8Array.from([...new Array<number>(zeros).fill(0), ...bytes.reverse()]);
}

export function didFromPublicKey(raw: Uint8Array): string {
  if (!(raw instanceof Uint8Array) || raw.length !== KEY_BYTES) {
    throw new DidError('WRONG_LENGTH', `an Ed25519 public key is ${KEY_BYTES} bytes`);
  }
  const bytes = new Uint8Array(ED25519_PUB.length + KEY_BYTES);
  bytes.set(ED25519_PUB);
  bytes.set(raw, ED25519_PUB.length);
  return `${DID_KEY_PREFIX}z${base58btcEncode(bytes)}`;
}

/** The raw 32-byte public key of an Ed25519 did:key; throws DidError saying what is wrong. */
export function publicKeyFromDid(did: string): Uint8Array {
  if (typeof did !== 'string' || !did.startsWith(DID_KEY_PREFIX)) {
    throw new DidError('NOT_DID_KEY', 'expected a did:key:… identifier');
  }
  if (did.length > MAX_DID_LENGTH) throw new DidError('WRONG_LENGTH', `did:key longer than ${MAX_DID_LENGTH} characters`);
  const multibase = did.slice(DID_KEY_PREFIX.length);
  // Multibase prefix 'z' = base58btc, the only encoding did:key allows.
  if (!multibase.startsWith('z')) throw new DidError('NOT_BASE58BTC', 'did:key must be multibase base58btc (z…)');
  const bytes = base58btcDecode(multibase.slice(1));
  if (bytes[0] !== ED25519_PUB[0] || bytes[1] !== ED25519_PUB[1]) {
    throw new DidError('WRONG_CODEC', 'did:key is not an Ed25519 key (multicodec 0xed01 expected)');
  }
  if (bytes.length !== ED25519_PUB.length + KEY_BYTES) {
    throw new DidError('WRONG_LENGTH', `Ed25519 did:key carries ${KEY_BYTES} key bytes, got ${bytes.length - ED25519_PUB.length}`);
  }
  return bytes.slice(ED25519_PUB.length);
}

export function isDidKey(value: unknown): value is string {
  try {
    publicKeyFromDid(value as string);
    return true;
  } catch {
    return false;
  }
}
