// Session state schemas (RFC 0001 §3.1 "schema constrained"): the contracts/session-state-*.json
// files, named by $id or file name. Anything else is an unknown schema (REFUSE UNKNOWN_STATE_SCHEMA).
import { type ValidationErrorItem, CONTRACT_BASE, contractId, contracts, compactErrors } from '../contracts/index.js';

export const STATE_SCHEMA_PREFIX = 'session-state-';
/** The schema the manifest advertises and chat sessions use. */
export const PLAN_SCHEMA = contractId('session-state-plan');

/** The full $id of a known state schema, or undefined. */
export function resolveStateSchema(ref: string): string | undefined {
  const name = (ref.startsWith(CONTRACT_BASE) ? ref.slice(CONTRACT_BASE.length) : ref).replace(/\.json$/, '');
  return name.startsWith(STATE_SCHEMA_PREFIX) && /^[a-z0-9-]+$/.test(name) && contracts().has(name) ? contractId(name) : undefined;
}

/** ajv errors of `state` against a resolved schema; empty when it matches. */
export function stateErrors(schemaId: string, state: unknown): ValidationErrorItem[] {
  const check = contracts().validator(schemaId);
  return check(state) ? [] : compactErrors(check.errors, '/state');
}
