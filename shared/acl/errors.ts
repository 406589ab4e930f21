// ONE error catalogue (nats.js errors.ts style). Each code says which FIPA performative answers it
// and which Agora status it maps to (agora-protocol v1.0 §5). FAILURE reasons include the seed
// contract §4 dictionary; the FAILURE and NOT-UNDERSTOOD rows mirror the reason enums in
// contracts/failure.json and contracts/not-understood.json (unit-tested).
import type { ErrorContent, OACoPErrorCode, SessionErrorContent, ValidationErrorItem } from '../contracts/index.js';

export type ErrorPerformative = 'NOT-UNDERSTOOD' | 'REFUSE' | 'FAILURE';
export type AgoraCode = 400 | 401 | 402 | 404 | 408 | 429 | 500 | 503;

export interface ErrorSpec {
  readonly performative: ErrorPerformative;
  readonly description: string;
  readonly agora: AgoraCode;
  /**
   * Nothing was done and another try can succeed at once: the requester moves on to the next
   * candidate without waiting for a timeout, and asks again when none is left (issue 12).
   */
  readonly retryable?: true;
}

export const ERRORS = {
  // Input the receiver cannot parse or does not accept: NOT-UNDERSTOOD (FIPA SC00037).
  INVALID_JSON: { performative: 'NOT-UNDERSTOOD', agora: 400, description: 'The message body is not valid JSON.' },
  SCHEMA_VIOLATION: { performative: 'NOT-UNDERSTOOD', agora: 400, description: 'The envelope or its content does not match its contract.' },
  CONTENT_TOO_LARGE: { performative: 'NOT-UNDERSTOOD', agora: 400, description: 'The content exceeds 64 kB of UTF-8 JSON (seed contract §1).' },
  UNKNOWN_PERFORMATIVE: { performative: 'NOT-UNDERSTOOD', agora: 400, description: 'The performative is not one this system speaks.' },
  UNSUPPORTED_CONTENT: { performative: 'NOT-UNDERSTOOD', agora: 404, description: 'The content type is not known to the receiver.' },
  PERFORMATIVE_MISMATCH: { performative: 'NOT-UNDERSTOOD', agora: 400, description: 'The content type may not travel in this performative (seed contract §2).' },
  BROKEN_CORRELATION: { performative: 'NOT-UNDERSTOOD', agora: 400, description: 'in_reply_to does not match an open exchange (seed contract §1).' },
  UNEXPECTED_MESSAGE: { performative: 'NOT-UNDERSTOOD', agora: 400, description: 'The message does not fit the current state of the protocol.' },
  MALFORMED_SIGNATURE: { performative: 'NOT-UNDERSTOOD', agora: 400, description: 'sender_did or signature is not well-formed (Agora v1.0 §2: 64-byte Ed25519, base64url).' },
  // Authorised to understand but not willing: REFUSE.
  FORBIDDEN_SENDER: { performative: 'REFUSE', agora: 401, description: 'The sender may not talk to this agent (seed contract §5).' },
  SENDER_MISMATCH: { performative: 'REFUSE', agora: 401, description: 'The envelope sender does not match the XMPP from-JID.' },
  // Signed envelopes (Agora v1.0 §1-2, docs/architecture.md "Identities and trust").
  MISSING_SIGNATURE: { performative: 'REFUSE', agora: 401, description: 'The envelope carries no sender_did and signature; every agent signs.' },
  BAD_SIGNATURE: { performative: 'REFUSE', agora: 401, description: 'The Ed25519 signature does not match the envelope (altered in transit or wrong key).' },
  UNKNOWN_DID: { performative: 'REFUSE', agora: 401, description: 'No DID is bound to the sending JID (people do not sign; agents are pinned at provisioning or bound by the Registry).' },
  DID_MISMATCH: { performative: 'REFUSE', agora: 401, description: 'sender_did is not the DID bound to the sending JID (key changes need `npm run keys -- rotate`).' },
  STALE_MESSAGE: { performative: 'REFUSE', agora: 401, description: 'The timestamp is more than 60 s old or too far ahead (Agora v1.0 §1 replay protection).' },
  REPLAYED: { performative: 'REFUSE', agora: 401, description: 'This signed envelope was already accepted (replay window).' },
  BUSY: { performative: 'REFUSE', agora: 503, description: 'The agent is at capacity; try another candidate.' },
  OUT_OF_SCOPE: { performative: 'REFUSE', agora: 404, description: 'The agent does not offer the requested capability.' },
  RATE_LIMITED: { performative: 'REFUSE', agora: 429, description: 'Too many requests from this sender DID; try later (oacop-rfc §6.1; PARLEY_RATE_LIMIT_PER_S, PARLEY_RATE_LIMIT_BURST).' },
  // Accepted but could not be done: FAILURE (seed contract §4).
  NO_CANDIDATE: { performative: 'FAILURE', agora: 503, description: 'No specialist could take the request (DF list exhausted).' },
  SPECIALIST_TIMEOUT: { performative: 'FAILURE', agora: 408, description: 'The specialist did not AGREE within 3 s or answer within 30 s.' },
  INVALID_ARGS: { performative: 'FAILURE', agora: 400, description: 'The request arguments do not fit the skill.' },
  INTERNAL_ERROR: { performative: 'FAILURE', agora: 500, description: 'A handler failed unexpectedly.' },
  KB_UNAVAILABLE: { performative: 'FAILURE', agora: 503, description: 'The knowledge base did not answer.' },
  KB_STORE_FAILED: { performative: 'FAILURE', agora: 500, description: 'The knowledge base could not store the fact.' },
  TIMEOUT: { performative: 'FAILURE', agora: 408, description: 'The work took too long.' },
  NOT_REGISTERED: { performative: 'FAILURE', agora: 404, description: 'The DF holds no registration for this agent (lease expired): register again.' },
  // The negotiated flow (Agora v1.0 §3-5 in FIPA contract-net; docs/acl_contract.md).
  BUDGET_EXCEEDED: { performative: 'FAILURE', agora: 402, description: 'Every offer cost more than the request\'s budget.' },
  OFFER_EXPIRED: { performative: 'FAILURE', agora: 408, retryable: true, description: 'The offer\'s ttl ran out before it was accepted.' },
  // Durability (issue 12): a restarted agent that cannot finish what its predecessor took on.
  WORK_LOST: {
    performative: 'FAILURE', agora: 503, retryable: true,
    description: 'The agent restarted and no longer holds this offer or the work accepted on it; nothing is running: try the next candidate.',
  },
} as const satisfies Record<string, ErrorSpec>;

/**
 * Refusals that travel in a protocol's own content instead of {reason, detail}: oacop-rfc §5
 * OACoPError codes (FAILURE) and OAP RFC 0001 SESSION_ERROR reasons (REFUSE). Typed against the
 * contracts' enums, so a code added to a contract without a row here does not compile.
 */
export interface ProtocolErrorSpec {
  readonly performative: ErrorPerformative;
  readonly description: string;
}

export const OACOP_ERRORS = {
  OACOP_CONFLICT: { performative: 'FAILURE', description: 'The slot is no longer free (taken, outside working hours, or in another booking\'s cleaning gap).' },
  OACOP_STALE_REVISION: { performative: 'FAILURE', description: 'The revision is not above the thread\'s current one (oacop-rfc §3.4).' },
  OACOP_INVALID_ICAL: { performative: 'FAILURE', description: 'object.icalComponent does not parse as iCalendar (RFC 5545).' },
  OACOP_PAYMENT_REQUIRED: { performative: 'FAILURE', description: 'An untrusted requester must prove a burn (oacop-rfc §6.2 proofOfBurn).' },
  OACOP_UNSUPPORTED_CONSTRAINT: { performative: 'FAILURE', description: 'A constraint cannot be honoured (no or bad timeWindow, bad or too short duration).' },
} as const satisfies Record<OACoPErrorCode, ProtocolErrorSpec>;

export type SessionReason = SessionErrorContent['reason'];

export const SESSION_ERRORS = {
  NOT_A_PARTICIPANT: { performative: 'REFUSE', description: 'The sender\'s DID is not admitted to the session (RFC 0001 §5.1).' },
  NOT_CONVENER: { performative: 'REFUSE', description: 'Only the convener may do this (RFC 0001 §3.6, §6).' },
  BAD_CREDENTIAL: { performative: 'REFUSE', description: 'The join credential is not one the convener issued for this DID and session.' },
  VERSION_CONFLICT: { performative: 'REFUSE', description: 'expected_version is not the current state_version (optimistic concurrency, §3.2).' },
  QUOTA_EXCEEDED: { performative: 'REFUSE', description: 'The convener already has its quota of open sessions (§5.3, PARLEY_SESSION_QUOTA).' },
  SESSION_FULL: { performative: 'REFUSE', description: 'The session has its max_participants.' },
  SESSION_CLOSED: { performative: 'REFUSE', description: 'The session is closed.' },
  SESSION_EXPIRED: { performative: 'REFUSE', description: 'The session passed its max_duration_hours.' },
  UNKNOWN_SESSION: { performative: 'REFUSE', description: 'No session has this id.' },
  SESSION_EXISTS: { performative: 'REFUSE', description: 'This conversation already is (or was) a session; a new one needs a new conversation_id.' },
  UNKNOWN_STATE_SCHEMA: { performative: 'REFUSE', description: 'The state_schema is none of contracts/session-state-*.json.' },
  STATE_INVALID: { performative: 'REFUSE', description: 'The state does not match the session\'s state_schema.' },
  ALREADY_PARTICIPANT: { performative: 'REFUSE', description: 'The DID is already admitted.' },
  CONVENER_MUST_HANDOFF: { performative: 'REFUSE', description: 'The convener cannot leave without handing the session off first.' },
  MISSING_SIGNATURE: { performative: 'REFUSE', description: 'Sessions need the verified DID of a signed envelope (RFC 0001 §5.1).' },
} as const satisfies Record<SessionReason, ProtocolErrorSpec>;

export type ErrorCode = keyof typeof ERRORS;
export type CodesAnsweredBy<P extends ErrorPerformative> = {
  [C in ErrorCode]: (typeof ERRORS)[C]['performative'] extends P ? C : never;
}[ErrorCode];

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERRORS, value);
}

/** All codes answered with the given performative, in catalogue order. */
export function codesFor(performative: ErrorPerformative): ErrorCode[] {
  return (Object.keys(ERRORS) as ErrorCode[]).filter((c) => ERRORS[c].performative === performative);
}

/** True for codes whose FAILURE asks the requester to try again at once (ErrorSpec.retryable). */
export function isRetryable(code: unknown): boolean {
  return isErrorCode(code) && (ERRORS[code] as ErrorSpec).retryable === true;
}

export function performativeFor(code: ErrorCode): ErrorPerformative {
  return ERRORS[code].performative;
}

export function agoraCodeFor(code: ErrorCode): AgoraCode {
  return ERRORS[code].agora;
}

export class ParleyError extends Error {
  override readonly name = 'ParleyError';
  readonly code: ErrorCode;
  readonly detail: string;
  readonly errors: ValidationErrorItem[] | undefined;

  constructor(code: ErrorCode, detail?: string, options?: { cause?: unknown; errors?: ValidationErrorItem[] }) {
    const text = detail ?? ERRORS[code].description;
    super(`${code}: ${text}`, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.detail = text;
    this.errors = options?.errors;
  }

  get performative(): ErrorPerformative {
    return ERRORS[this.code].performative;
  }

  /** FIPA content for the answer: {reason, detail, errors?}. */
  toContent(): ErrorContent {
    return errorContent(this.code, this.detail, this.errors);
  }
}

/** Wraps anything thrown into a ParleyError; unknown errors become INTERNAL_ERROR. */
export function toParleyError(err: unknown): ParleyError {
  if (err instanceof ParleyError) return err;
  const detail = err instanceof Error ? err.message : String(err);
  return new ParleyError('INTERNAL_ERROR', detail.slice(0, 500), { cause: err });
}

const MAX_DETAIL = 2000; // contracts/common.json Detail.maxLength
const MAX_ERRORS = 20; // contracts/common.json ValidationErrors.maxItems

/** Builds FIPA error content {reason, detail, errors?} that satisfies contracts/error-content.json. */
export function errorContent(code: ErrorCode, detail?: string, errors?: readonly ValidationErrorItem[]): ErrorContent {
  const content: ErrorContent = { reason: code, detail: (detail ?? ERRORS[code].description).slice(0, MAX_DETAIL) };
  if (errors !== undefined && errors.length > 0) content.errors = errors.slice(0, MAX_ERRORS);
  return content;
}
