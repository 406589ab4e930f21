// Least authority between roles (seed contract §5 "no shortcuts"; docs/acl_contract.md "Role
// policy"): all operational traffic goes through the Coordinator; the Specialist never talks to
// the Presenter or the KB; the KB talks only to the Coordinator; the DF only registers and answers
// lookups; the sessions agent answers session requests (a person's only through the Coordinator). An agent refuses (FORBIDDEN_SENDER) envelopes from a role that may not talk to it, or
// that may not send that content kind, judged by the authenticated JID and its enrolment, never
// the envelope's claim. Roles come from names.ts (core, room, enrolled, else person).
import { type KindPolicy, MESSAGE_KINDS, type MessageKind } from '../contracts/index.js';
import type { Role } from './names.js';

export type { KindPolicy };

/** Who may send envelopes to whom (any kind). */
const MAY_SEND_TO: Record<Role, readonly Role[]> = {
  presenter: ['coordinator'],
  coordinator: ['presenter', 'registry', 'specialist', 'kb', 'sessions', 'calendar', 'room'],
  registry: ['coordinator', 'sessions', 'specialist', 'calendar', 'room'],
  kb: ['coordinator'],
  // The session Tool (docs/sessions.md) answers the agents that take part, and registers with the DF.
  sessions: ['coordinator', 'registry', 'specialist'],
  specialist: ['coordinator', 'registry', 'sessions'],
  calendar: ['coordinator', 'registry'],
  room: ['coordinator', 'registry'],
  admin: [],
  person: [],
  foreign: [],
};

export type KindPolicies = Readonly<Record<string, KindPolicy>>;

/** Each kind's policy from its declaration; a kind not in `kinds` has none and is refused (fail closed). */
export function kindPolicies(kinds: readonly MessageKind[]): KindPolicies {
  return Object.fromEntries(kinds.map((k) => [k.kind, k.policy]));
}

/**
 * Who may send each declared kind (MESSAGE_KINDS): the only table agents use. The `table`
 * parameters below exist for the recipe's test (docs/runtime.md "Adding a message kind").
 */
export const KIND_POLICY: KindPolicies = kindPolicies(MESSAGE_KINDS);

export function mayTalk(from: Role, to: Role, kind?: string, table: KindPolicies = KIND_POLICY): boolean {
  if (MAY_SEND_TO[from].includes(to)) return true;
  return from === 'person' && kind !== undefined && (kindPolicy(kind, table)?.unenrolled?.includes(to) ?? false);
}

export function kindPolicy(kind: string, table: KindPolicies = KIND_POLICY): KindPolicy | undefined {
  return Object.hasOwn(table, kind) ? table[kind] : undefined;
}

/** Whether `from` may open an exchange with `kind`; kinds without a policy row: never. */
export function mayInitiate(from: Role, kind: string, table: KindPolicies = KIND_POLICY): boolean {
  return kindPolicy(kind, table)?.initiate.includes(from) ?? false;
}

/** Whether `from` may answer with `kind`; kinds without a policy row: never. */
export function mayReply(from: Role, kind: string, table: KindPolicies = KIND_POLICY): boolean {
  const reply = kindPolicy(kind, table)?.reply;
  return reply === 'edges' || (reply?.includes(from) ?? false);
}

/** Whether `from` may open `kind` only in a conversation it was assigned. */
export function needsAssignment(from: Role, kind: string, table: KindPolicies = KIND_POLICY): boolean {
  return kindPolicy(kind, table)?.assigned?.includes(from) ?? false;
}

export function allowedSenders(to: Role): Role[] {
  return (Object.keys(MAY_SEND_TO) as Role[]).filter((r) => MAY_SEND_TO[r].includes(to));
}

/** Declared kinds with no policy (must be none: the type requires one; unit-tested). */
export function kindsWithoutPolicy(): string[] {
  return MESSAGE_KINDS.map((k) => k.kind).filter((k) => kindPolicy(k) === undefined);
}
