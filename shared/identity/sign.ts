// Signed envelopes: Agora v1.0 §2 applied to the FIPA envelope. The signer sets sender_did, sets
// signature to "" (Agora §2 step 2, the "" variant), signs JCS(envelope) (RFC 8785) with Ed25519
// and stores base64url without padding (RFC 4648 §5). The verifier repeats the same steps.
import type { Envelope } from '../contracts/index.js';
import { canonicalBytes } from './jcs.js';
import { DidError, publicKeyFromDid } from './did-key.js';
import { SIGNATURE_BYTES, type Ed25519Impl } from './keys.js';
import { defaultEd25519 } from './sodium.js';
import { DEFAULT_MAX_AGE_MS, ReplayWindow } from './replay.js';

export interface SigningKeys {
  readonly did: string;
  readonly privateKey: Uint8Array;
}

export type VerifyCode =
  | 'MISSING_SIGNATURE' | 'BAD_SIGNATURE' | 'UNKNOWN_DID' | 'DID_MISMATCH'
  | 'STALE' | 'FUTURE' | 'REPLAY' | 'MALFORMED';

export type VerifyResult =
  /** key/expiresAt: the replay-window entry recorded for it (what a durable ledger keeps). */
  | { ok: true; did: string; key?: string; expiresAt?: number }
  | { ok: false; code: VerifyCode; agora: 400 | 401; detail: string };

/**
 * Future tolerance. Agora only bounds the past (60 s); Parley's agents share one host clock
 * (loopback only), so an envelope dated more than a few seconds ahead is a bug or pre-signed for
 * later use. 5 s absorbs scheduling jitter; raise it for a multi-host deployment.
 */
export const DEFAULT_MAX_FUTURE_MS = 5_000;

export interface VerifyOptions {
  /** The DID pinned for this sender (e.g. from pinnedDids); any other valid DID → DID_MISMATCH. */
  expectedDid?: string;
  /** Agora v1.0 §1: older than 60 s → STALE. */
  maxAgeMs?: number;
  maxFutureMs?: number;
  /** Without a window there is no REPLAY check (stateless verification). */
  replay?: ReplayWindow;
  /**
   * For an envelope older than maxAgeMs: until when it is still acceptable, if at all (one signed
   * while this agent was offline and held for it by the server, offline-gaps.ts). Never derived
   * from anything the sender or another client controls, such as a <delay/> stamp.
   */
  lateUntil?: (timestampMs: number, now: number) => number | undefined;
  now?: () => number;
  impl?: Ed25519Impl;
}

const SIGNATURE_TEXT = /^[A-Za-z0-9_-]{86}$/; // 64 bytes in unpadded base64url
const UTC_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;

/** The bytes both sides sign/verify: JCS of the envelope with signature "". */
export function signingBytes(envelope: object): Buffer {
  return canonicalBytes({ ...envelope, signature: '' });
}

/** A signed copy of `envelope` (the input is not modified). */
export function signEnvelope<E extends Envelope>(envelope: E, keys: SigningKeys, impl: Ed25519Impl = defaultEd25519): E {
  const unsigned = { ...envelope, sender_did: keys.did, signature: '' };
  const signature = impl.sign(signingBytes(unsigned), keys.privateKey);
  return { ...unsigned, signature: Buffer.from(signature).toString('base64url') };
}

// did:key → raw key, so a known sender costs no base58 decoding (≈ 12 µs); bounded like the
// KeyObject cache in keys.ts. Only valid DIDs are cached.
const DID_CACHE_MAX = 4096;
const didKeys = new Map<string, Uint8Array>();

function resolveDid(did: string): Uint8Array {
  let key = didKeys.get(did);
  if (key) return key;
  key = publicKeyFromDid(did);
  if (didKeys.size >= DID_CACHE_MAX) didKeys.delete(didKeys.keys().next().value as string);
  didKeys.set(did, key);
  return key;
}

function fail(code: VerifyCode, detail: string): VerifyResult {
  return { ok: false, code, agora: code === 'MALFORMED' ? 400 : 401, detail };
}

function decodeSignature(text: string): Uint8Array | undefined {
  if (!SIGNATURE_TEXT.test(text)) return undefined;
  const bytes = Buffer.from(text, 'base64url');
  // Reject non-canonical encodings (stray low bits in the last character).
  return bytes.length === SIGNATURE_BYTES && bytes.toString('base64url') === text ? bytes : undefined;
}

/**
 * Checks, cheapest first: shape, signature present, DID, pinning, time window, replay, then the
 * Ed25519 signature. An id is recorded in the replay window only once the signature verified.
 */
export function verifyEnvelope(envelope: unknown, options: VerifyOptions | string = {}): VerifyResult {
  const opts: VerifyOptions = typeof options === 'string' ? { expectedDid: options } : options;
  if (typeof envelope !== 'object' || envelope === null || Array.isArray(envelope)) return fail('MALFORMED', 'envelope is not a JSON object');
  const env = envelope as Record<string, unknown>;
  const { sender_did: did, signature, timestamp, reply_with: replyWith } = env;
  if (signature === undefined || signature === '' || did === undefined || did === '') {
    return fail('MISSING_SIGNATURE', 'the envelope carries no sender_did and signature');
  }
  if (typeof did !== 'string' || typeof signature !== 'string') return fail('MALFORMED', 'sender_did and signature must be strings');
  if (typeof replyWith !== 'string' || replyWith === '') return fail('MALFORMED', 'reply_with missing');
  if (typeof timestamp !== 'string' || !UTC_TIMESTAMP.test(timestamp) || Number.isNaN(Date.parse(timestamp))) {
    return fail('MALFORMED', 'timestamp is not an ISO-8601 UTC date-time');
  }
  const sig = decodeSignature(signature);
  if (!sig) return fail('MALFORMED', 'signature is not 64 bytes of unpadded base64url');
  let publicKey: Uint8Array;
  try {
    publicKey = resolveDid(did);
  } catch (err) {
    return fail('UNKNOWN_DID', `sender_did: ${err instanceof DidError ? `${err.code}: ${err.message}` : String(err)}`);
  }
  if (opts.expectedDid !== undefined && opts.expectedDid !== did) {
    return fail('DID_MISMATCH', `sender_did is not the DID pinned for ${String(env.sender)}`);
  }

  const now = (opts.now ?? Date.now)();
  const ts = Date.parse(timestamp);
  const maxAgeMs = opts.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
  const maxFutureMs = opts.maxFutureMs ?? DEFAULT_MAX_FUTURE_MS;
  let expiresAt = ts + maxAgeMs;
  if (now - ts > maxAgeMs) {
    const late = opts.lateUntil?.(ts, now);
    if (late === undefined || late <= now) return fail('STALE', `timestamp is ${now - ts} ms old (limit ${maxAgeMs} ms, Agora §1)`);
    expiresAt = late;
  }
  if (ts - now > maxFutureMs) return fail('FUTURE', `timestamp is ${ts - now} ms ahead (limit ${maxFutureMs} ms)`);

  const key = opts.replay ? ReplayWindow.keyOf(did, replyWith) : '';
  const seen = opts.replay?.check(key, ts, expiresAt);
  if (seen === 'replay') return fail('REPLAY', `reply_with ${replyWith} from this DID was already accepted`);
  if (seen === 'beyond-horizon') return fail('STALE', 'older than the replay window can vouch for (window at capacity)');

  let message: Buffer;
  try {
    message = signingBytes(env);
  } catch (err) {
    return fail('MALFORMED', `cannot canonicalise envelope: ${(err as Error).message}`);
  }
  if (!(opts.impl ?? defaultEd25519).verify(sig, message, publicKey)) {
    return fail('BAD_SIGNATURE', 'Ed25519 signature does not match the envelope and sender_did');
  }
  if (!opts.replay) return { ok: true, did };
  opts.replay.record(key, ts, expiresAt);
  return { ok: true, did, key, expiresAt };
}

export interface Verifier {
  (envelope: unknown, expectedDid?: string): VerifyResult;
  readonly replay: ReplayWindow;
}

/** One agent's verifier: options and a replay window (same clock and max age) bound once. */
export function createVerifier(opts: Omit<VerifyOptions, 'expectedDid'> = {}): Verifier {
  const replay = opts.replay ?? new ReplayWindow({ maxAgeMs: opts.maxAgeMs, now: opts.now });
  // A window that forgets ids before the STALE limit would let copies through in between.
  if (replay.maxAgeMs < (opts.maxAgeMs ?? DEFAULT_MAX_AGE_MS)) throw new RangeError('replay window shorter than maxAgeMs');
  const verify = (envelope: unknown, expectedDid?: string) => verifyEnvelope(envelope, { ...opts, replay, expectedDid });
  return Object.assign(verify, { replay });
}
