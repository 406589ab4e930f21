// Every message kind, declared once (issue 10 §2): its content contract (contracts/<name>.json),
// the performatives it travels in (seed contract §2) and which roles may send it. The content-kind
// resolution (content-kinds.ts) and the role policy (shared/runtime/policy.ts) are derived from
// this table; a kind that is not declared here is refused (fail closed). Adding a kind: a
// contract file and one row here (docs/runtime.md "Adding a message kind").
import { type Role, WORKER_ROLES } from './roles.js';
import type { Performative } from './types.gen.js';

/** Who may send one message kind. */
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

export interface MessageKind {
  /** The content type tag, e.g. USER_MSG; also the value of content.type when present. */
  readonly kind: string;
  /** Contract file name in contracts/ (without .json). */
  readonly contract: string;
  /** Performatives this content may travel in (seed contract §2: "REQUEST.USER_MSG", …). */
  readonly performatives: readonly Performative[];
  /** Who may send it (least authority, seed contract §5). */
  readonly policy: KindPolicy;
  /**
   * For seed shapes without content.type: matched by this performative and, if given, by `key`
   * being present in content (QUERY-REF + need → NEED; any AGREE → AGREE).
   */
  readonly untyped?: { readonly performative: Performative; readonly key?: string };
}

// The row builders are exported for the "Adding a message kind" recipe's test
// (test/unit/recipe-message-kind.test.ts), which declares a throwaway kind exactly as a row here.
/** Only as an answer: by `reply` (default: any role that may talk to the asker). */
export const answers = (reply: readonly Role[] | 'edges' = 'edges'): KindPolicy => ({ initiate: [], reply });
/** Opened by `initiate`; answered (rarely: kinds that are also replies) by `reply`. */
export const opens = (initiate: readonly Role[], reply: readonly Role[] | 'edges' = 'edges'): KindPolicy => ({ initiate, reply });
// Roles that keep a DF entry: the workers, and the sessions agent (its profile is the §3.3 manifest).
const AGENTS: readonly Role[] = [...WORKER_ROLES, 'sessions'];

/** One declaration: kind, contract file (contracts/<contract>.json), performatives, who may send it. */
export const row = (kind: string, contract: string, performatives: readonly Performative[], policy: KindPolicy, untyped?: MessageKind['untyped']): MessageKind =>
  (untyped ? { kind, contract, performatives, policy, untyped } : { kind, contract, performatives, policy });

const SESSION_OPS: ReadonlyArray<[string, Performative]> = [['CREATE', 'REQUEST'], ['JOIN', 'REQUEST'], ['LEAVE', 'REQUEST'], ['STATE', 'QUERY-REF'],
  ['UPDATE', 'REQUEST'], ['CLOSE', 'REQUEST'], ['LOG', 'QUERY-REF'], ['HANDOFF', 'REQUEST'], ['DELETE', 'REQUEST']];

export const MESSAGE_KINDS: readonly MessageKind[] = [
  // seed contract §2.1: a person's line, from the Presenter only
  row('USER_MSG', 'user-msg', ['REQUEST'], opens(['presenter'])),
  // seed contract §2.2 (DEREGISTER extends it). The sessions agent registers too: its profile
  // publishes the RFC 0001 §3.3 sessions manifest.
  row('REGISTER', 'register', ['REQUEST'], opens(AGENTS)),
  row('DEREGISTER', 'deregister', ['REQUEST'], opens(AGENTS)),
  row('HEARTBEAT', 'heartbeat', ['INFORM'], opens(AGENTS)),
  // Parley's answers to REGISTER/DEREGISTER (FIPA SC00026 inform-done) and the live directory
  row('REGISTERED', 'registered', ['INFORM'], answers(['registry'])),
  // Issue 14 §3: a host's virtual agents' REGISTERs in one message, each entry signed by its agent.
  row('REGISTER_MANY', 'register-many', ['REQUEST'], opens(WORKER_ROLES)),
  row('REGISTERED_MANY', 'registered-many', ['INFORM'], answers(['registry'])),
  row('DEREGISTERED', 'deregistered', ['INFORM'], answers(['registry'])),
  row('DESCRIBE', 'describe', ['QUERY-REF'], opens(['coordinator'])),
  row('DIRECTORY', 'directory', ['INFORM'], answers(['registry'])),
  // Operator enrolment by single-use token (docs/architecture.md "Identities and trust"): the one
  // kind an account with no role yet may send, and only to the Registry; the token, not the
  // account, is the authority.
  row('ENROL', 'enrol', ['REQUEST'], { initiate: ['person', 'specialist', 'calendar'], reply: [], unenrolled: ['registry'] }),
  row('ENROLLED', 'enrolled', ['INFORM'], answers(['registry'])),
  row('NEED', 'need', ['QUERY-REF'], opens(['coordinator']), { performative: 'QUERY-REF', key: 'need' }),
  row('CANDIDATES', 'candidates', ['INFORM'], answers(['registry']), { performative: 'INFORM', key: 'candidates' }),
  // Issue 15: the Registry tells the Coordinator its cached DF answers are stale (a registration changed).
  row('DF_CHANGED', 'df-changed', ['INFORM'], opens(['registry'], [])),
  // seed contract §2.3
  row('ASK_EXPERT', 'ask-expert', ['REQUEST'], opens(['coordinator'])),
  row('AGREE', 'agree', ['AGREE'], answers(), { performative: 'AGREE' }),
  row('REFUSE', 'refuse', ['REFUSE'], answers(), { performative: 'REFUSE' }),
  row('RESULT', 'result', ['INFORM'], answers()),
  row('FAILURE', 'failure', ['FAILURE'], answers(), { performative: 'FAILURE' }),
  // seed contract §2.4
  row('STORE_FACT', 'store-fact', ['INFORM'], opens(['coordinator'])),
  row('STORED', 'stored', ['INFORM'], answers(['kb'])),
  row('GET_FACTS', 'get-facts', ['QUERY-REF'], opens(['coordinator'])),
  row('FACTS', 'facts', ['INFORM'], answers(['kb']), { performative: 'INFORM', key: 'facts' }),
  // seed contract §2.5
  row('PRESENTER_REPLY', 'presenter-reply', ['INFORM'], answers(['coordinator'])),
  // Skills and delegation (plan part 2, A2A tools). Delegation goes through the Coordinator (seed
  // contract §5), and only for work the specialist was given: its own conversations.
  row('DELEGATE_TASK', 'delegate-task', ['REQUEST'], { initiate: ['specialist'], reply: [], assigned: ['specialist'] }),
  row('QUERY_AGENTS', 'query-agents', ['QUERY-REF'], { initiate: ['specialist'], reply: [], assigned: ['specialist'] }),
  row('AGENTS', 'agents', ['INFORM'], answers(['coordinator'])),
  // Broadcasts are the Coordinator's own (EVENT); no other agent may make it broadcast.
  row('BROADCAST_EVENT', 'broadcast-event', ['REQUEST'], opens(['coordinator'], [])),
  row('BROADCAST_DONE', 'broadcast-done', ['INFORM'], answers(['coordinator'])),
  row('EVENT', 'event', ['INFORM'], opens(['coordinator'], [])),
  // Agora v1.0 §3-4 negotiated flow as FIPA SC00029 contract-net (docs/acl_contract.md)
  row('AGORA_REQUEST', 'agora-request', ['CFP'], opens(['coordinator'], [])),
  row('AGORA_OFFER', 'agora-offer', ['PROPOSE'], answers()),
  row('AGORA_ACCEPT', 'agora-accept', ['ACCEPT-PROPOSAL'], answers(['coordinator'])),
  row('AGORA_REJECT', 'agora-reject', ['REJECT-PROPOSAL'], answers(['coordinator'])),
  row('AGORA_RESULT', 'agora-result', ['INFORM'], answers()),
  row('AGORA_ERROR', 'agora-error', ['REFUSE', 'FAILURE'], answers()),
  // FIPA SC00037 not-understood; SC00026 cancel, by whoever took part in the exchange
  row('NOT_UNDERSTOOD', 'not-understood', ['NOT-UNDERSTOOD'], answers(), { performative: 'NOT-UNDERSTOOD' }),
  row('CANCEL', 'cancel', ['CANCEL'], opens(['coordinator', 'presenter', 'specialist', 'calendar', 'room']), { performative: 'CANCEL' }),
  // oacop-rfc v1.0 (ontology 'OACoP', docs/oacop.md): scheduling as FIPA contract-net (SC00029).
  // The Coordinator drives scheduling and tasks; calendars and rooms answer. A participant may
  // cancel (oacop-rfc §3.5); a calendar reports a task's progress on its own.
  row('ProposeCollaboration', 'oacop-propose-collaboration', ['CFP'], opens(['coordinator'], [])),
  row('ProposalResponse', 'oacop-proposal-response', ['PROPOSE', 'REFUSE'], answers()),
  row('ConfirmCollaboration', 'oacop-confirm-collaboration', ['ACCEPT-PROPOSAL'], opens(['coordinator'])),
  row('CancelCollaboration', 'oacop-cancel-collaboration', ['CANCEL', 'REJECT-PROPOSAL'], opens(['coordinator', 'calendar', 'room'])),
  row('AssignTask', 'oacop-assign-task', ['REQUEST'], opens(['coordinator'], [])),
  row('TaskUpdate', 'oacop-task-update', ['INFORM'], opens(['calendar', 'room'])),
  row('OACoPError', 'oacop-error', ['FAILURE'], answers()),
  // Parley's OACoP extensions: the success answer, and the person's task decision relayed from chat
  row('OACoPAck', 'oacop-ack', ['INFORM'], answers()),
  row('TaskDecision', 'oacop-task-decision', ['REQUEST'], opens(['coordinator'])),
  // Coordinator → Presenter: tell a person who did not ask (docs/oacop.md, part B)
  row('NOTIFY_USER', 'notify-user', ['INFORM'], opens(['coordinator'], [])),
  // OAP RFC 0001 Coordination Sessions (docs/sessions.md): agents with a DID convene and take
  // part; the sessions agent (sessions@<domain>) is the Tool and only answers.
  ...SESSION_OPS.map(([op, performative]) => row(`SESSION_${op}`, `session-${op.toLowerCase()}`, [performative], opens(['specialist'], []))),
  row('SESSION_RECEIPT', 'session-receipt', ['INFORM'], answers(['sessions'])),
  row('SESSION_INFO', 'session-info', ['INFORM'], answers(['sessions'])),
  row('SESSION_TURNS', 'session-turns', ['INFORM'], answers(['sessions'])),
  row('SESSION_ERROR', 'session-error', ['REFUSE', 'FAILURE'], answers(['sessions'])),
  // A person's `session …` chat line, forwarded by the Coordinator (the Presenter talks to it
  // alone, seed contract §5); the sessions agent answers with the text the person reads.
  row('SESSION_CHAT', 'session-chat', ['REQUEST'], opens(['coordinator'], [])),
  row('SESSION_CHAT_REPLY', 'session-chat-reply', ['INFORM'], answers(['sessions'])),
];
