// Seed contract §5 "no shortcuts": all operational traffic goes through the Coordinator; the
// Specialist never talks to the Presenter or the KB; the KB talks only to the Coordinator; the
// DF only registers and answers lookups. An agent refuses (FORBIDDEN_SENDER) envelopes from a
// role that may not talk to it, judged by the authenticated JID, never the envelope's claim.
import type { Role } from './names.js';

/** Who may send envelopes to whom. */
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

/** Which roles may open an exchange with a given content kind (others may only reply). */
const INITIATORS: Record<string, readonly Role[]> = {
  USER_MSG: ['presenter'],
  ASK_EXPERT: ['coordinator'],
  AGORA_REQUEST: ['coordinator'],
  NEED: ['coordinator'],
  DESCRIBE: ['coordinator'],
  STORE_FACT: ['coordinator'],
  GET_FACTS: ['coordinator'],
  // The Coordinator registers too: its profile publishes the RFC 0001 §3.3 sessions manifest.
  REGISTER: ['specialist', 'calendar', 'room', 'coordinator'],
  HEARTBEAT: ['specialist', 'calendar', 'room', 'coordinator'],
  DEREGISTER: ['specialist', 'calendar', 'room', 'coordinator'],
  // OACoP (docs/oacop.md): the Coordinator drives scheduling and tasks; calendars and rooms answer.
  // A participant may cancel (oacop-rfc §3.5); a calendar reports a task's progress on its own.
  ProposeCollaboration: ['coordinator'],
  ConfirmCollaboration: ['coordinator'],
  CancelCollaboration: ['coordinator', 'calendar', 'room'],
  AssignTask: ['coordinator'],
  TaskDecision: ['coordinator'],
  TaskUpdate: ['calendar', 'room'],
  ProposalResponse: [],
  OACoPAck: [],
  OACoPError: [],
  NOTIFY_USER: ['coordinator'],
  // Delegation goes through the Coordinator (seed contract §5 "no shortcuts").
  DELEGATE_TASK: ['specialist'],
  QUERY_AGENTS: ['specialist'],
  BROADCAST_EVENT: ['specialist'],
  EVENT: ['coordinator'],
  // OAP RFC 0001 sessions (docs/sessions.md): agents with a DID convene and take part; the
  // Presenter on behalf of a person. The Coordinator is the Tool and only answers.
  ...Object.fromEntries(['CREATE', 'JOIN', 'LEAVE', 'STATE', 'UPDATE', 'CLOSE', 'LOG', 'HANDOFF', 'DELETE']
    .map((op) => [`SESSION_${op}`, ['presenter', 'specialist'] as const])),
};

export function mayTalk(from: Role, to: Role): boolean {
  return MAY_SEND_TO[from].includes(to);
}

export function mayInitiate(from: Role, kind: string): boolean {
  const roles = INITIATORS[kind];
  return roles === undefined || roles.includes(from);
}

export function allowedSenders(to: Role): Role[] {
  return (Object.keys(MAY_SEND_TO) as Role[]).filter((r) => MAY_SEND_TO[r].includes(to));
}
