// Least authority between roles (seed contract §5 "no shortcuts"; docs/acl_contract.md "Role
// policy"): all operational traffic goes through the Coordinator; the Specialist never talks to
// the Presenter or the KB; the KB talks only to the Coordinator; the DF only registers and answers
// lookups. An agent refuses (FORBIDDEN_SENDER) envelopes from a role that may not talk to it, or
// that may not send that content kind, judged by the authenticated JID and its enrolment, never
// the envelope's claim. Roles come from names.ts (core, room, enrolled, else person).
import { type KindPolicy, MESSAGE_KINDS } from '../contracts/index.js';
import type { Role } from './names.js';

export type { KindPolicy };

/** Who may send envelopes to whom (any kind). */
const MAY_SEND_TO: Record<Role, readonly Role[]> = {
  presenter: ['coordinator'],
  coordinator: ['presenter', 'registry', 'specialist', 'kb', 'calendar', 'room'],
  registry: ['coordinator', 'specialist', 'calendar', 'room'],
  kb: ['coordinator'],
  specialist: ['coordinator', 'registry'],
  calendar: ['coordinator', 'registry'],
  room: ['coordinator', 'registry'],
  admin: [],
  person: [],
  foreign: [],
};

/** Who may send each kind, from its declaration (MESSAGE_KINDS); a kind not declared is refused (fail closed). */
export const KIND_POLICY: Readonly<Record<string, KindPolicy>> = Object.fromEntries(MESSAGE_KINDS.map((k) => [k.kind, k.policy]));

export function mayTalk(from: Role, to: Role, kind?: string): boolean {
  if (MAY_SEND_TO[from].includes(to)) return true;
  return from === 'person' && kind !== undefined && (kindPolicy(kind)?.unenrolled?.includes(to) ?? false);
}

export function kindPolicy(kind: string): KindPolicy | undefined {
  return Object.hasOwn(KIND_POLICY, kind) ? KIND_POLICY[kind] : undefined;
}

/** Whether `from` may open an exchange with `kind`; kinds without a policy row: never. */
export function mayInitiate(from: Role, kind: string): boolean {
  return kindPolicy(kind)?.initiate.includes(from) ?? false;
}

/** Whether `from` may answer with `kind`; kinds without a policy row: never. */
export function mayReply(from: Role, kind: string): boolean {
  const reply = kindPolicy(kind)?.reply;
  return reply === 'edges' || (reply?.includes(from) ?? false);
}

/** Whether `from` may open `kind` only in a conversation it was assigned. */
export function needsAssignment(from: Role, kind: string): boolean {
  return kindPolicy(kind)?.assigned?.includes(from) ?? false;
}

export function allowedSenders(to: Role): Role[] {
  return (Object.keys(MAY_SEND_TO) as Role[]).filter((r) => MAY_SEND_TO[r].includes(to));
}

/** Declared kinds with no policy (must be none: the type requires one; unit-tested). */
export function kindsWithoutPolicy(): string[] {
  return MESSAGE_KINDS.map((k) => k.kind).filter((k) => kindPolicy(k) === undefined);
}
