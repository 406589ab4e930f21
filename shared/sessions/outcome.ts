// What a session request comes to: INFORM with a receipt or an answer, or REFUSE SESSION_ERROR
// with a machine-readable reason (contracts/session-error.json; docs/acl_contract.md).
import { SESSION_ERRORS, type SessionReason } from '../acl/index.js';
import type { SessionErrorContent, ValidationErrorItem } from '../contracts/index.js';

export type { SessionReason };

export type Outcome =
  | { performative: 'INFORM'; content: Record<string, unknown> }
  | { performative: 'REFUSE'; content: SessionErrorContent };

export class SessionRefusal extends Error {
  constructor(readonly reason: SessionReason, readonly detail: string, readonly extra: { current_version?: number; errors?: ValidationErrorItem[] } = {}) {
    super(`${reason}: ${detail}`);
  }
}

export function refuse(reason: SessionReason, detail: string, extra: SessionRefusal['extra'] = {}): never {
  throw new SessionRefusal(reason, detail, extra);
}

export function refusal(err: SessionRefusal, sessionId: string): Outcome {
  const errors = err.extra.errors?.length ? { errors: err.extra.errors } : {};
  const version = err.extra.current_version !== undefined ? { current_version: err.extra.current_version } : {};
  return { performative: SESSION_ERRORS[err.reason].performative, content: { type: 'SESSION_ERROR', reason: err.reason, detail: err.detail.slice(0, 2000), session_id: sessionId, ...version, ...errors } };
}
