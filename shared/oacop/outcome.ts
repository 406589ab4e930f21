// What a calendar or a room answers (docs/oacop.md): a performative and content the pipeline will accept,
// plus an optional telemetry note. Builders keep the §5 error shapes in one place.
import { errorContent, type ErrorCode, OACOP_ERRORS } from '../acl/index.js';
import type { OACoPErrorCode, Performative } from '../contracts/index.js';

export interface Outcome {
  performative: Performative;
  content: object;
  note?: { decision: string; detail?: object };
}

/** FAILURE OACoPError (oacop-rfc §5). */
export function oacopError(code: OACoPErrorCode, message: string, threadId?: string, revision?: number): Outcome {
  return {
    performative: OACOP_ERRORS[code].performative,
    content: {
      type: 'OACoPError',
      code,
      message: message.slice(0, 2000),
      ...(threadId !== undefined ? { threadId: threadId.slice(0, 300) } : {}),
      ...(revision !== undefined ? { revision } : {}),
    },
    note: { decision: `oacop-error: ${code}`, detail: { threadId, message: message.slice(0, 300) } },
  };
}

/** A Parley catalogue error (RATE_LIMITED, FORBIDDEN_SENDER, INVALID_ARGS) in its own performative. */
export function parleyError(code: ErrorCode & ('RATE_LIMITED' | 'FORBIDDEN_SENDER' | 'INVALID_ARGS'), detail: string): Outcome {
  const performative = code === 'INVALID_ARGS' ? 'FAILURE' : 'REFUSE';
  return { performative, content: errorContent(code, detail), note: { decision: `refuse: ${code}`, detail: { detail } } };
}

export class OACoPFailure extends Error {
  constructor(readonly outcome: Outcome) {
    super((outcome.content as { message?: string }).message ?? 'OACoP failure');
  }
}

/** Throws an OACoPError outcome from deep inside a handler (caught by the service). */
export function fail(code: OACoPErrorCode, message: string, threadId?: string, revision?: number): never {
  throw new OACoPFailure(oacopError(code, message, threadId, revision));
}
