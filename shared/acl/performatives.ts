// Performatives: seed contract §1 plus FIPA SC00026 (fipa-request), SC00027 (fipa-query),
// SC00029 (fipa-contract-net) and SC00037 (communicative acts). The enum in
// contracts/common.json is the source of truth; the checks below fail the build if they drift.
import type { Performative, Protocol } from '../contracts/index.js';

export type { Performative, Protocol };

export const PERFORMATIVES = [
  'REQUEST', 'INFORM', 'AGREE', 'REFUSE', 'FAILURE', 'QUERY-REF',
  'NOT-UNDERSTOOD', 'CANCEL', 'QUERY-IF', 'INFORM-IF',
  'CFP', 'PROPOSE', 'ACCEPT-PROPOSAL', 'REJECT-PROPOSAL', 'CONFIRM', 'DISCONFIRM',
] as const satisfies readonly Performative[];

// Compile-time: every schema performative is listed above (the reverse is the `satisfies`).
type Missing = Exclude<Performative, (typeof PERFORMATIVES)[number]>;
const _allListed: [Missing] extends [never] ? true : Missing = true;

const PERFORMATIVE_SET: ReadonlySet<string> = new Set(PERFORMATIVES);

export function isPerformative(value: unknown): value is Performative {
  return typeof value === 'string' && PERFORMATIVE_SET.has(value);
}

/**
 * Performatives that answer an earlier message and so carry in_reply_to (seed contract §1
 * correlation rule). REQUEST, QUERY-*, CFP and CANCEL open or steer an exchange instead.
 */
const REPLY_PERFORMATIVES: ReadonlySet<Performative> = new Set<Performative>([
  'INFORM', 'INFORM-IF', 'AGREE', 'REFUSE', 'FAILURE', 'NOT-UNDERSTOOD',
  'PROPOSE', 'ACCEPT-PROPOSAL', 'REJECT-PROPOSAL', 'CONFIRM', 'DISCONFIRM',
]);

export function isReplyPerformative(p: Performative): boolean {
  return REPLY_PERFORMATIVES.has(p);
}

/**
 * Never answer these with NOT-UNDERSTOOD: an error about an error would ping-pong between two
 * agents. Invalid ones are logged and counted instead.
 */
export const NO_ERROR_REPLY: ReadonlySet<Performative> = new Set<Performative>(['NOT-UNDERSTOOD', 'FAILURE']);

/** Takes the raw performative too (the envelope may be invalid): unknown values may be answered. */
export function mayAnswerWithError(p: unknown): boolean {
  return !(isPerformative(p) && NO_ERROR_REPLY.has(p));
}

const CONTRACT_NET: ReadonlySet<Performative> = new Set<Performative>([
  'CFP', 'PROPOSE', 'ACCEPT-PROPOSAL', 'REJECT-PROPOSAL',
]);
const QUERY: ReadonlySet<Performative> = new Set<Performative>(['QUERY-REF', 'QUERY-IF', 'INFORM-IF']);

/** Protocol an initiating message of this performative belongs to (seed contract §1). */
export function defaultProtocol(p: Performative): Protocol {
  if (QUERY.has(p)) return 'fipa-query';
  if (CONTRACT_NET.has(p)) return 'fipa-contract-net';
  return 'fipa-request';
}
