// Least authority between roles (seed contract §5 "no shortcuts"; docs/acl_contract.md "Role
// policy"): all operational traffic goes through the Coordinator; the Specialist never talks to
// the Presenter or the KB; the KB talks only to the Coordinator; the DF only registers and answers
// lookups. An agent refuses (FORBIDDEN_SENDER) envelopes from a role that may not talk to it, or
// that may not send that content kind, judged by the authenticated JID and its enrolment, never
// the envelope's claim. Roles come from names.ts (core, room, enrolled, else person).
import { CONTENT_KINDS } from '../contracts/content-kinds.js';
import type { Role } from './names.js';

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

/** Who may send one content kind. */
export interface KindPolicy {
  /** Roles that may open an exchange with it (no in_reply_to); [] = it only travels as an answer. */
  readonly initiate: readonly Role[];
  /** Roles that may send it as an answer (in_reply_to set, correlated by the router); 'edges' = any role MAY_SEND_TO allows. */
  readonly reply: readonly Role[] | 'edges';
  /**
   * Roles that may open it only inside a conversation the receiver assigned to them (the
   * conversation of an ASK_EXPERT or AGORA_ACCEPT they got): PipelineContext.assigned decides.
   */
  readonly assigned?: readonly Role[];
  /** Receivers that accept it from an account with no agent role (person), past the MAY_SEND_TO edges. */
  readonly unenrolled?: readonly Role[];
}

const answers = (reply: readonly Role[] | 'edges' = 'edges'): KindPolicy => ({ initiate: [], reply });
const opens = (initiate: readonly Role[], reply: readonly Role[] | 'edges' = 'edges'): KindPolicy => ({ initiate, reply });
const AGENTS: readonly Role[] = ['specialist', 'calendar', 'room', 'coordinator'];

/** One row per content kind of CONTENT_KINDS (unit-tested); a kind without a row is refused (fail closed). */
export const KIND_POLICY: Readonly<Record<string, KindPolicy>> = {
  USER_MSG: opens(['presenter']),
  // The Coordinator registers too: its profile publishes the RFC 0001 §3.3 sessions manifest.
  REGISTER: opens(AGENTS),
  HEARTBEAT: opens(AGENTS),
  DEREGISTER: opens(AGENTS),
  REGISTERED: answers(['registry']),
  DEREGISTERED: answers(['registry']),
  DESCRIBE: opens(['coordinator']),
  DIRECTORY: answers(['registry']),
  // Token redemption: the one kind an account with no role yet may send, and only to the Registry
  // (unenrolled below); the token, not the account, is the authority.
  ENROL: { initiate: ['person', 'specialist', 'calendar'], reply: [], unenrolled: ['registry'] },
  ENROLLED: answers(['registry']),
  NEED: opens(['coordinator']),
  CANDIDATES: answers(['registry']),
  ASK_EXPERT: opens(['coordinator']),
  AGREE: answers(),
  REFUSE: answers(),
  RESULT: answers(),
  FAILURE: answers(),
  STORE_FACT: opens(['coordinator']),
  STORED: answers(['kb']),
  GET_FACTS: opens(['coordinator']),
  FACTS: answers(['kb']),
  PRESENTER_REPLY: answers(['coordinator']),
  // Delegation goes through the Coordinator (seed contract §5), and only for work the specialist
  // was given: its own conversations (issue "Close the perimeter").
  DELEGATE_TASK: { initiate: ['specialist'], reply: [], assigned: ['specialist'] },
  QUERY_AGENTS: { initiate: ['specialist'], reply: [], assigned: ['specialist'] },
  AGENTS: answers(['coordinator']),
  // Broadcasts are the Coordinator's own (EVENT); no other agent may make it broadcast.
  BROADCAST_EVENT: opens(['coordinator'], []),
  BROADCAST_DONE: answers(['coordinator']),
  EVENT: opens(['coordinator'], []),
  AGORA_REQUEST: opens(['coordinator'], []),
  AGORA_OFFER: answers(),
  AGORA_ACCEPT: answers(['coordinator']),
  AGORA_REJECT: answers(['coordinator']),
  AGORA_RESULT: answers(),
  AGORA_ERROR: answers(),
  NOT_UNDERSTOOD: answers(),
  // FIPA SC00026 cancel: whoever took part in the exchange.
  CANCEL: opens(['coordinator', 'presenter', 'specialist', 'calendar', 'room']),
  // OACoP (docs/oacop.md): the Coordinator drives scheduling and tasks; calendars and rooms answer.
  // A participant may cancel (oacop-rfc §3.5); a calendar reports a task's progress on its own.
  ProposeCollaboration: opens(['coordinator'], []),
  ProposalResponse: answers(),
  ConfirmCollaboration: opens(['coordinator']),
  CancelCollaboration: opens(['coordinator', 'calendar', 'room']),
  AssignTask: opens(['coordinator'], []),
  TaskUpdate: opens(['calendar', 'room']),
  OACoPError: answers(),
  OACoPAck: answers(),
  TaskDecision: opens(['coordinator']),
  NOTIFY_USER: opens(['coordinator'], []),
  // OAP RFC 0001 sessions (docs/sessions.md): agents with a DID convene and take part; the
  // Presenter on behalf of a person. The Coordinator is the Tool and only answers.
  ...Object.fromEntries(['CREATE', 'JOIN', 'LEAVE', 'STATE', 'UPDATE', 'CLOSE', 'LOG', 'HANDOFF', 'DELETE']
    .map((op) => [`SESSION_${op}`, opens(['presenter', 'specialist'])])),
  SESSION_RECEIPT: answers(),
  SESSION_INFO: answers(),
  SESSION_TURNS: answers(),
  SESSION_ERROR: answers(),
};

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

/** Content kinds of contracts with no policy row (must be none; unit-tested). */
export function kindsWithoutPolicy(): string[] {
  return CONTENT_KINDS.map((k) => k.kind).filter((k) => kindPolicy(k) === undefined);
}
