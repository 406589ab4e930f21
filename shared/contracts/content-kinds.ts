// Which content contract applies to an envelope (seed contract §2). Table-driven: later issues
// (OACoP, Agora, sessions) add rows to CONTENT_KINDS, not code.
import type { Performative } from './types.gen.js';

export interface ContentKind {
  /** The content type tag, e.g. USER_MSG; also the value of content.type when present. */
  readonly kind: string;
  /** Contract file name in contracts/ (without .json). */
  readonly contract: string;
  /** Performatives this content may travel in (seed contract §2: "REQUEST.USER_MSG", …). */
  readonly performatives: readonly Performative[];
  /**
   * For seed shapes without content.type: matched by this performative and, if given, by `key`
   * being present in content (QUERY-REF + need → NEED; any AGREE → AGREE).
   */
  readonly untyped?: { readonly performative: Performative; readonly key?: string };
}

export const CONTENT_KINDS: readonly ContentKind[] = [
  // seed contract §2.1
  { kind: 'USER_MSG', contract: 'user-msg', performatives: ['REQUEST'] },
  // seed contract §2.2 (DEREGISTER extends it)
  { kind: 'REGISTER', contract: 'register', performatives: ['REQUEST'] },
  { kind: 'DEREGISTER', contract: 'deregister', performatives: ['REQUEST'] },
  { kind: 'HEARTBEAT', contract: 'heartbeat', performatives: ['INFORM'] },
  // Parley's answers to REGISTER/DEREGISTER (FIPA SC00026 inform-done) and the live directory
  { kind: 'REGISTERED', contract: 'registered', performatives: ['INFORM'] },
  { kind: 'DEREGISTERED', contract: 'deregistered', performatives: ['INFORM'] },
  { kind: 'DESCRIBE', contract: 'describe', performatives: ['QUERY-REF'] },
  { kind: 'DIRECTORY', contract: 'directory', performatives: ['INFORM'] },
  // Operator enrolment by single-use token (docs/architecture.md "Identities and trust")
  { kind: 'ENROL', contract: 'enrol', performatives: ['REQUEST'] },
  { kind: 'ENROLLED', contract: 'enrolled', performatives: ['INFORM'] },
  { kind: 'NEED', contract: 'need', performatives: ['QUERY-REF'], untyped: { performative: 'QUERY-REF', key: 'need' } },
  { kind: 'CANDIDATES', contract: 'candidates', performatives: ['INFORM'], untyped: { performative: 'INFORM', key: 'candidates' } },
  // seed contract §2.3
  { kind: 'ASK_EXPERT', contract: 'ask-expert', performatives: ['REQUEST'] },
  { kind: 'AGREE', contract: 'agree', performatives: ['AGREE'], untyped: { performative: 'AGREE' } },
  { kind: 'REFUSE', contract: 'refuse', performatives: ['REFUSE'], untyped: { performative: 'REFUSE' } },
  { kind: 'RESULT', contract: 'result', performatives: ['INFORM'] },
  { kind: 'FAILURE', contract: 'failure', performatives: ['FAILURE'], untyped: { performative: 'FAILURE' } },
  // seed contract §2.4
  { kind: 'STORE_FACT', contract: 'store-fact', performatives: ['INFORM'] },
  { kind: 'STORED', contract: 'stored', performatives: ['INFORM'] },
  { kind: 'GET_FACTS', contract: 'get-facts', performatives: ['QUERY-REF'] },
  { kind: 'FACTS', contract: 'facts', performatives: ['INFORM'], untyped: { performative: 'INFORM', key: 'facts' } },
  // seed contract §2.5
  { kind: 'PRESENTER_REPLY', contract: 'presenter-reply', performatives: ['INFORM'] },
  // Skills and delegation (issue "Skills, roles and spawning"; plan part 2 A2A tools)
  { kind: 'DELEGATE_TASK', contract: 'delegate-task', performatives: ['REQUEST'] },
  { kind: 'QUERY_AGENTS', contract: 'query-agents', performatives: ['QUERY-REF'] },
  { kind: 'AGENTS', contract: 'agents', performatives: ['INFORM'] },
  { kind: 'BROADCAST_EVENT', contract: 'broadcast-event', performatives: ['REQUEST'] },
  { kind: 'BROADCAST_DONE', contract: 'broadcast-done', performatives: ['INFORM'] },
  { kind: 'EVENT', contract: 'event', performatives: ['INFORM'] },
  // Agora v1.0 §3-4 negotiated flow as FIPA SC00029 contract-net (docs/acl_contract.md)
  { kind: 'AGORA_REQUEST', contract: 'agora-request', performatives: ['CFP'] },
  { kind: 'AGORA_OFFER', contract: 'agora-offer', performatives: ['PROPOSE'] },
  { kind: 'AGORA_ACCEPT', contract: 'agora-accept', performatives: ['ACCEPT-PROPOSAL'] },
  { kind: 'AGORA_REJECT', contract: 'agora-reject', performatives: ['REJECT-PROPOSAL'] },
  { kind: 'AGORA_RESULT', contract: 'agora-result', performatives: ['INFORM'] },
  { kind: 'AGORA_ERROR', contract: 'agora-error', performatives: ['REFUSE', 'FAILURE'] },
  // FIPA SC00037 not-understood, SC00026 cancel
  { kind: 'NOT_UNDERSTOOD', contract: 'not-understood', performatives: ['NOT-UNDERSTOOD'], untyped: { performative: 'NOT-UNDERSTOOD' } },
  { kind: 'CANCEL', contract: 'cancel', performatives: ['CANCEL'], untyped: { performative: 'CANCEL' } },
  // oacop-rfc v1.0 (ontology 'OACoP', docs/oacop.md): scheduling as FIPA contract-net (SC00029)
  { kind: 'ProposeCollaboration', contract: 'oacop-propose-collaboration', performatives: ['CFP'] },
  { kind: 'ProposalResponse', contract: 'oacop-proposal-response', performatives: ['PROPOSE', 'REFUSE'] },
  { kind: 'ConfirmCollaboration', contract: 'oacop-confirm-collaboration', performatives: ['ACCEPT-PROPOSAL'] },
  { kind: 'CancelCollaboration', contract: 'oacop-cancel-collaboration', performatives: ['CANCEL', 'REJECT-PROPOSAL'] },
  { kind: 'AssignTask', contract: 'oacop-assign-task', performatives: ['REQUEST'] },
  { kind: 'TaskUpdate', contract: 'oacop-task-update', performatives: ['INFORM'] },
  { kind: 'OACoPError', contract: 'oacop-error', performatives: ['FAILURE'] },
  // Parley's OACoP extensions: the success answer, and the person's task decision relayed from chat
  { kind: 'OACoPAck', contract: 'oacop-ack', performatives: ['INFORM'] },
  { kind: 'TaskDecision', contract: 'oacop-task-decision', performatives: ['REQUEST'] },
  // Coordinator → Presenter: tell a person who did not ask (docs/oacop.md, part B)
  { kind: 'NOTIFY_USER', contract: 'notify-user', performatives: ['INFORM'] },
  // OAP RFC 0001 Coordination Sessions (docs/sessions.md): the Coordinator is the Tool
  { kind: 'SESSION_CREATE', contract: 'session-create', performatives: ['REQUEST'] },
  { kind: 'SESSION_JOIN', contract: 'session-join', performatives: ['REQUEST'] },
  { kind: 'SESSION_LEAVE', contract: 'session-leave', performatives: ['REQUEST'] },
  { kind: 'SESSION_STATE', contract: 'session-state', performatives: ['QUERY-REF'] },
  { kind: 'SESSION_UPDATE', contract: 'session-update', performatives: ['REQUEST'] },
  { kind: 'SESSION_CLOSE', contract: 'session-close', performatives: ['REQUEST'] },
  { kind: 'SESSION_LOG', contract: 'session-log', performatives: ['QUERY-REF'] },
  { kind: 'SESSION_HANDOFF', contract: 'session-handoff', performatives: ['REQUEST'] },
  { kind: 'SESSION_DELETE', contract: 'session-delete', performatives: ['REQUEST'] },
  { kind: 'SESSION_RECEIPT', contract: 'session-receipt', performatives: ['INFORM'] },
  { kind: 'SESSION_INFO', contract: 'session-info', performatives: ['INFORM'] },
  { kind: 'SESSION_TURNS', contract: 'session-turns', performatives: ['INFORM'] },
  { kind: 'SESSION_ERROR', contract: 'session-error', performatives: ['REFUSE', 'FAILURE'] },
];

export type ContentKindResult =
  | { readonly status: 'ok'; readonly kind: ContentKind }
  /** content.type names no known kind, or no untyped shape fits: answer UNSUPPORTED_CONTENT. */
  | { readonly status: 'unsupported'; readonly detail: string }
  /** A known kind in a performative it may not travel in: answer PERFORMATIVE_MISMATCH. */
  | { readonly status: 'mismatch'; readonly kind: ContentKind; readonly detail: string }
  /** content.type is present but not a string: answer SCHEMA_VIOLATION. */
  | { readonly status: 'invalid'; readonly detail: string };

const BY_KIND = new Map(CONTENT_KINDS.map((k) => [k.kind, k]));
// Keyed shapes first so QUERY-REF {need} is tried before any catch-all for the same performative.
const UNTYPED = CONTENT_KINDS.filter((k) => k.untyped !== undefined)
  .sort((a, b) => Number(b.untyped?.key !== undefined) - Number(a.untyped?.key !== undefined));

export function contentKindByName(kind: string): ContentKind | undefined {
  return BY_KIND.get(kind);
}

function mismatch(kind: ContentKind, performative: Performative): ContentKindResult {
  const allowed = kind.performatives.join(' | ');
  return { status: 'mismatch', kind, detail: `${kind.kind} travels in ${allowed}, not ${performative}` };
}

/** Decides the content kind by content.type when present, else by performative and shape. */
export function resolveContentKind(performative: Performative, content: Record<string, unknown>): ContentKindResult {
  if ('type' in content) {
    const type = content.type;
    if (typeof type !== 'string') return { status: 'invalid', detail: 'content.type must be a string' };
    const kind = BY_KIND.get(type);
    if (kind === undefined) return { status: 'unsupported', detail: `unknown content type ${JSON.stringify(type.slice(0, 100))}` };
    return kind.performatives.includes(performative) ? { status: 'ok', kind } : mismatch(kind, performative);
  }
  const fits = (k: ContentKind): boolean => k.untyped?.key === undefined || k.untyped.key in content;
  const match = UNTYPED.find((k) => k.untyped?.performative === performative && fits(k));
  if (match !== undefined) return { status: 'ok', kind: match };
  // A recognisable keyed shape in the wrong performative, e.g. REQUEST {candidates: […]}.
  const misplaced = UNTYPED.find((k) => k.untyped?.key !== undefined && k.untyped.key in content);
  if (misplaced !== undefined) return mismatch(misplaced, performative);
  return { status: 'unsupported', detail: `no content type given and no ${performative} content shape fits` };
}
