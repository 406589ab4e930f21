/* eslint-disable */
/**
 * GENERATED FILE - DO NOT EDIT.
 * Generated from contracts/*.json by scripts/gen-types.ts (json-schema-to-typescript).
 * Regenerate: npx tsc -p tsconfig.json && npm run gen:types   (CI: npm run check:types)
 */

/**
 * Logical agent name used as envelope sender/receiver (seed contract §1), e.g. Presenter.
 *
 * This interface was referenced by `ContractTypes`'s JSON-Schema
 * via the `definition` "AgentName".
 */
export type AgentName = string;
/**
 * reply_with / in_reply_to value (seed contract §1), e.g. msg-<uuid>.
 *
 * This interface was referenced by `ContractTypes`'s JSON-Schema
 * via the `definition` "MessageId".
 */
export type MessageId = string;
export type AgoraCode = 400 | 401 | 402 | 404 | 408 | 429 | 500 | 503;
/**
 * Human-readable explanation that travels next to a machine-readable reason.
 *
 * This interface was referenced by `ContractTypes`'s JSON-Schema
 * via the `definition` "Detail".
 */
export type Detail = string;
export type AgoraRejectReason = "NOT_SELECTED" | "OFFER_EXPIRED" | "BUDGET_EXCEEDED" | "CANCELLED";
/**
 * conversation_id = XMPP <thread> = session_id (seed contract §1, §5), e.g. sess-<uuid>.
 *
 * This interface was referenced by `ContractTypes`'s JSON-Schema
 * via the `definition` "ConversationId".
 */
export type ConversationId = string;
export type AgoraResultStatus = "success" | "partial";
/**
 * XMPP address local@domain with an optional /resource (RFC 7622).
 *
 * This interface was referenced by `ContractTypes`'s JSON-Schema
 * via the `definition` "Jid".
 */
export type Jid = string;
/**
 * An Ed25519 did:key (W3C CCG did:key; Agora v1.0 §1): did:key:z6Mk… (multicodec 0xed01, base58btc).
 *
 * This interface was referenced by `ContractTypes`'s JSON-Schema
 * via the `definition` "Did".
 */
export type Did = string;
/**
 * A capability a specialist offers and the Coordinator asks the DF for, e.g. ASK_EXPERT (seed contract §2.2).
 *
 * This interface was referenced by `ContractTypes`'s JSON-Schema
 * via the `definition` "Capability".
 */
export type Capability = string;
/**
 * An Ed25519 did:key (W3C CCG did:key; Agora v1.0 §1): did:key:z6Mk… (multicodec 0xed01, base58btc).
 */
export type Did1 = string;
/**
 * A session state schema: the $id of a contracts/session-state-*.json file, or its file name (session-state-plan).
 *
 * This interface was referenced by `ContractTypes`'s JSON-Schema
 * via the `definition` "StateSchemaRef".
 */
export type StateSchemaRef = string;
/**
 * UTC ISO-8601 date-time ending in Z (seed contract §1).
 *
 * This interface was referenced by `ContractTypes`'s JSON-Schema
 * via the `definition` "UtcTimestamp".
 */
export type UtcTimestamp = string;
/**
 * Seed contract §1 performatives plus FIPA SC00026 (request), SC00027 (query), SC00029 (contract-net) and SC00061 (ACL).
 *
 * This interface was referenced by `ContractTypes`'s JSON-Schema
 * via the `definition` "Performative".
 */
export type Performative =
  | "REQUEST"
  | "INFORM"
  | "AGREE"
  | "REFUSE"
  | "FAILURE"
  | "QUERY-REF"
  | "NOT-UNDERSTOOD"
  | "CANCEL"
  | "QUERY-IF"
  | "INFORM-IF"
  | "CFP"
  | "PROPOSE"
  | "ACCEPT-PROPOSAL"
  | "REJECT-PROPOSAL"
  | "CONFIRM"
  | "DISCONFIRM";
/**
 * Seed contract §1: fipa-request, fipa-query for queries; fipa-contract-net (SC00029) for proposals.
 *
 * This interface was referenced by `ContractTypes`'s JSON-Schema
 * via the `definition` "Protocol".
 */
export type Protocol = "fipa-request" | "fipa-query" | "fipa-contract-net";
/**
 * Compact machine-readable validation errors (ajv instancePath, keyword, message).
 *
 * @maxItems 20
 *
 * This interface was referenced by `ContractTypes`'s JSON-Schema
 * via the `definition` "ValidationErrors".
 */
export type ValidationErrors = ValidationErrorItem[];
/**
 * A stored fact's value: the seed uses text; structured values are allowed (seed contract §2.4).
 *
 * This interface was referenced by `ContractTypes`'s JSON-Schema
 * via the `definition` "FactValue".
 */
export type FactValue =
  | string
  | number
  | boolean
  | {
      [k: string]: unknown | undefined;
    }
  | unknown[];
/**
 * This interface was referenced by `ContractTypes`'s JSON-Schema
 * via the `definition` "Confidence".
 */
export type Confidence = number;
export type FailureReason =
  | "NO_CANDIDATE"
  | "SPECIALIST_TIMEOUT"
  | "INVALID_ARGS"
  | "INTERNAL_ERROR"
  | "KB_UNAVAILABLE"
  | "KB_STORE_FAILED"
  | "TIMEOUT"
  | "NOT_REGISTERED"
  | "BUDGET_EXCEEDED"
  | "OFFER_EXPIRED"
  | "WORK_LOST";
export type NotUnderstoodReason =
  | "INVALID_JSON"
  | "SCHEMA_VIOLATION"
  | "CONTENT_TOO_LARGE"
  | "UNKNOWN_PERFORMATIVE"
  | "UNSUPPORTED_CONTENT"
  | "PERFORMATIVE_MISMATCH"
  | "BROKEN_CORRELATION"
  | "UNEXPECTED_MESSAGE"
  | "MALFORMED_SIGNATURE";
/**
 * XMPP address local@domain with an optional /resource (RFC 7622).
 */
export type Jid1 = string;
/**
 * Parley: oacop-rfc §2.1 sender, the party on whose behalf the message is sent (a DID, else a bare JID). Calendars key trust, proofOfBurn and rate limits by it; absent = the authenticated XMPP sender.
 *
 * This interface was referenced by `ContractTypes`'s JSON-Schema
 * via the `definition` "OACoPSender".
 */
export type OACoPSender = string;
export type OACoPErrorCode =
  | "OACOP_CONFLICT"
  | "OACOP_STALE_REVISION"
  | "OACOP_INVALID_ICAL"
  | "OACOP_PAYMENT_REQUIRED"
  | "OACOP_UNSUPPORTED_CONSTRAINT";
/**
 * The session's id: the conversation_id (= XMPP <thread>) its requests travel in.
 *
 * This interface was referenced by `ContractTypes`'s JSON-Schema
 * via the `definition` "SessionId".
 */
export type SessionId = string;
/**
 * This interface was referenced by `ContractTypes`'s JSON-Schema
 * via the `definition` "SessionStatus".
 */
export type SessionStatus = "open" | "closed";
/**
 * A turn of a session's log (RFC 0001 §3.5): trn-<session-local sequence>-<random>.
 *
 * This interface was referenced by `ContractTypes`'s JSON-Schema
 * via the `definition` "TurnId".
 */
export type TurnId = string;
/**
 * XMPP address local@domain with an optional /resource (RFC 7622).
 */
export type Jid2 = string;
/**
 * XMPP address local@domain with an optional /resource (RFC 7622).
 */
export type Jid3 = string;
/**
 * oacop-rfc §2.1 threadId, a URI such as urn:uuid:meet-1. Also the iCalendar UID of the collaboration's VEVENT/VTODO (§2.4).
 *
 * This interface was referenced by `ContractTypes`'s JSON-Schema
 * via the `definition` "OACoPThreadId".
 */
export type OACoPThreadId = string;

/**
 * Maps each contract file name (contracts/<name>.json) to its TypeScript type.
 */
export interface ContractTypes {
  agents: AgentsContent;
  "agora-accept": AgoraAcceptContent;
  "agora-error": AgoraErrorContent;
  "agora-offer": AgoraOfferContent;
  "agora-reject": AgoraRejectContent;
  "agora-request": AgoraRequestContent;
  "agora-result": AgoraResultContent;
  agree: AgreeContent;
  "ask-expert": AskExpertContent;
  "broadcast-done": BroadcastDoneContent;
  "broadcast-event": BroadcastEventContent;
  cancel: CancelContent;
  candidates: CandidatesContent;
  "console-agent": ConsoleAgent;
  "console-error": ConsoleError;
  "console-login": ConsoleLogin;
  "console-message-query": ConsoleMessageQuery;
  "console-skill-toggle": ConsoleSkillToggle;
  "console-skill-update": ConsoleSkillUpdate;
  "console-skill-upload": ConsoleSkillUpload;
  "console-spawn": ConsoleSpawn;
  "delegate-task": DelegateTaskContent;
  deregister: DeregisterContent;
  deregistered: DeregisteredContent;
  describe: DescribeContent;
  "df-changed": DfChangedContent;
  directory: DirectoryContent;
  enrol: EnrolContent;
  enrolled: EnrolledContent;
  envelope: Envelope;
  "error-content": ErrorContent;
  event: EventContent;
  facts: FactsContent;
  failure: FailureContent;
  "get-facts": GetFactsContent;
  heartbeat: HeartbeatContent;
  need: NeedContent;
  "not-understood": NotUnderstoodContent;
  "notify-user": NotifyUserContent;
  "oacop-ack": OACoPAck;
  "oacop-assign-task": AssignTask;
  "oacop-cancel-collaboration": CancelCollaboration;
  "oacop-confirm-collaboration": ConfirmCollaboration;
  "oacop-error": OACoPError;
  "oacop-proposal-response": ProposalResponse;
  "oacop-propose-collaboration": ProposeCollaboration;
  "oacop-task-decision": TaskDecision;
  "oacop-task-update": TaskUpdate;
  "presenter-reply": PresenterReplyContent;
  "query-agents": QueryAgentsContent;
  refuse: RefuseContent;
  "register-many": RegisterManyContent;
  register: RegisterContent;
  "registered-many": RegisteredManyContent;
  registered: RegisteredContent;
  result: ResultContent;
  "session-chat-reply": SessionChatReplyContent;
  "session-chat": SessionChatContent;
  "session-close": SessionCloseContent;
  "session-create": SessionCreateContent;
  "session-delete": SessionDeleteContent;
  "session-error": SessionErrorContent;
  "session-handoff": SessionHandoffContent;
  "session-info": SessionInfoContent;
  "session-join": SessionJoinContent;
  "session-leave": SessionLeaveContent;
  "session-log": SessionLogContent;
  "session-receipt": SessionReceiptContent;
  "session-state-plan": PlanSessionState;
  "session-state": SessionStateContent;
  "session-turns": SessionTurnsContent;
  "session-update": SessionUpdateContent;
  "store-fact": StoreFactContent;
  stored: StoredContent;
  "user-msg": UserMsgContent;
}
/**
 * INFORM.AGENTS, Coordinator → Specialist: the answer to QUERY_AGENTS.
 */
export interface AgentsContent {
  type: "AGENTS";
  /**
   * @maxItems 1000
   */
  agents: AgentSummary[];
}
export interface AgentSummary {
  name: AgentName;
  role?: string;
  /**
   * @maxItems 100
   */
  skills?: string[];
  description?: string;
}
/**
 * ACCEPT-PROPOSAL.AGORA_ACCEPT, Coordinator → Specialist (Agora v1.0 §4 ACCEPT), in_reply_to the PROPOSE whose offer_id it names.
 */
export interface AgoraAcceptContent {
  type: "AGORA_ACCEPT";
  offer_id: MessageId;
  payment_proof?: string;
}
/**
 * REFUSE or FAILURE carrying an Agora v1.0 §4 ERROR in the negotiated flow. code is the Agora §5 status, reason the catalogue code of shared/acl/errors.ts whose agora status it is (docs/acl_contract.md, Agora ↔ FIPA table), message the human detail.
 */
export interface AgoraErrorContent {
  type: "AGORA_ERROR";
  request_id?: MessageId;
  code: AgoraCode;
  message: Detail;
  reason: string;
}
/**
 * PROPOSE.AGORA_OFFER, Specialist → Coordinator (Agora v1.0 §4 OFFER), in_reply_to the CFP. request_id = the CFP's reply_with; cost in credits; ttl (ms) how long the offer may be accepted, counted from when it is sent; eta (ms) the estimated time to the RESULT once accepted.
 */
export interface AgoraOfferContent {
  type: "AGORA_OFFER";
  request_id: MessageId;
  offer_id: MessageId;
  cost: number;
  ttl: number;
  eta: number;
}
/**
 * REJECT-PROPOSAL.AGORA_REJECT, Coordinator → Specialist (FIPA SC00029), in_reply_to the PROPOSE: the offer will not be accepted and its reservation is freed. NOT_SELECTED: another offer delivered; OFFER_EXPIRED: its ttl ran out; BUDGET_EXCEEDED: cost over the budget; CANCELLED: the person withdrew the question.
 */
export interface AgoraRejectContent {
  type: "AGORA_REJECT";
  offer_id: MessageId;
  reason: AgoraRejectReason;
  detail?: Detail;
}
/**
 * CFP.AGORA_REQUEST, Coordinator → Specialist (Agora v1.0 §3-4 REQUEST in FIPA SC00029 contract-net). The Agora request id is the CFP's reply_with. resource names the capability (parley:ask-expert:v1); params.question as in ASK_EXPERT; budget.max_cost caps the cost the Coordinator will accept; timeout (ms) is how long the requester waits for the RESULT.
 */
export interface AgoraRequestContent {
  type: "AGORA_REQUEST";
  resource: string;
  params: AgoraRequestParams;
  budget?: AgoraBudget;
  timeout?: number;
  context_ref?: ContextRef;
}
export interface AgoraRequestParams {
  question: string;
  [k: string]: unknown | undefined;
}
export interface AgoraBudget {
  max_cost: number;
}
export interface ContextRef {
  session_id: ConversationId;
}
/**
 * INFORM.AGORA_RESULT, Specialist → Coordinator (Agora v1.0 §4 RESULT), in_reply_to the ACCEPT-PROPOSAL. request_id = the CFP's reply_with; data as ASK_EXPERT's result.
 */
export interface AgoraResultContent {
  type: "AGORA_RESULT";
  request_id: MessageId;
  status: AgoraResultStatus;
  data: ExpertResult;
}
export interface ExpertResult {
  answer: string;
  meta?: {
    [k: string]: unknown | undefined;
  };
}
/**
 * AGREE, Specialist → Coordinator (seed contract §2.3); also Coordinator → Presenter once a specialist has taken a person's question, naming it in `by` so the person can be told who is working on it. The seed shape has no type; an optional type AGREE is allowed.
 */
export interface AgreeContent {
  type?: "AGREE";
  status: "accepted";
  /**
   * Coordinator → Presenter: the specialist working on the question.
   */
  by?: string;
}
/**
 * REQUEST.ASK_EXPERT, Coordinator → Specialist (seed contract §2.3). Skills may read further args; a specialist answers FAILURE INVALID_ARGS when they do not fit.
 */
export interface AskExpertContent {
  type: "ASK_EXPERT";
  args: AskExpertArgs;
  context_ref: ContextRef;
}
export interface AskExpertArgs {
  question: string;
  [k: string]: unknown | undefined;
}
/**
 * INFORM.BROADCAST_DONE, Coordinator → Specialist: who the EVENT was sent to.
 */
export interface BroadcastDoneContent {
  type: "BROADCAST_DONE";
  /**
   * @maxItems 1000
   */
  delivered: AgentName[];
}
/**
 * REQUEST.BROADCAST_EVENT, Specialist → Coordinator (plan part 2 broadcast_event): the Coordinator sends INFORM EVENT to every other live agent and answers INFORM BROADCAST_DONE.
 */
export interface BroadcastEventContent {
  type: "BROADCAST_EVENT";
  event: string;
  data: string;
}
/**
 * CANCEL (FIPA SC00026 §2, cancel meta-protocol): the initiator withdraws a request.
 */
export interface CancelContent {
  type?: "CANCEL";
  reason?: string;
}
/**
 * INFORM candidates, Registry (DF) → Coordinator, best first (seed contract §2.2). The seed shape has no type; an optional type CANDIDATES is allowed.
 */
export interface CandidatesContent {
  type?: "CANDIDATES";
  /**
   * @maxItems 100
   */
  candidates: Jid[];
  /**
   * Parley (issue 15): how many candidates at the head rank alike; the DF lets them take turns across queries, and a Coordinator that reuses this answer rotates them the same way. Absent: 1.
   */
  lead?: number;
  /**
   * The DF's JID → did:key bindings of the candidates (docs/architecture.md "Identities and trust"): the Coordinator verifies their replies against them.
   */
  dids?: {
    [k: string]: Did | undefined;
  };
}
/**
 * One agent in GET /api/agents: numbers and enums, not display text.
 */
export interface ConsoleAgent {
  name: string;
  role: string;
  jid: string;
  did: string | null;
  /**
   * @maxItems 100
   */
  skills: string[];
  supervisor: {
    /**
     * the supervisor's name for it (logs/<name>.log), which POST /api/agents/{name}/stop takes
     */
    name: string | null;
    /**
     * failed: it kept dying at start and is not restarted (last_error says why)
     */
    status: "starting" | "ready" | "backoff" | "stopping" | "stopped" | "failed" | "unsupervised" | "no-supervisor";
    pid: number | null;
    restarts: number;
    uptime_s: number | null;
    kind: string | null;
    extra: boolean;
    /**
     * when failed: the last error it printed before giving up
     */
    last_error?: string | null;
  };
  presence: "online" | "component" | "offline" | "unknown";
  /**
   * @maxItems 100
   */
  resources: string[];
  /**
   * the ejabberd node (Erlang node name) its session is on; null when offline (PARLEY_EJABBERD_NODES: a cluster)
   */
  node: string | null;
  df: {
    registered: boolean;
    registered_at: number | null;
    last_seen_ms_ago: number | null;
    lease_ms: number;
    lease_left_ms: number | null;
  };
  load: {
    in_per_min: number;
    out_per_min: number;
    active_conversations: number;
  };
}
/**
 * Every console API error: a machine-readable code and a sentence for people.
 */
export interface ConsoleError {
  error: string;
  detail: string;
}
/**
 * POST /api/login: trade the admin token (npm run console) for a browser session cookie.
 */
export interface ConsoleLogin {
  token: string;
}
/**
 * GET /api/messages query: every envelope every agent sent or received, oldest first (order=desc: newest first), filtered; page on with cursor = the previous page's next_cursor.
 */
export interface ConsoleMessageQuery {
  conversation?: string;
  agent?: string;
  performative?: string;
  /**
   * Leave out envelopes of this content type (the sniffer: HEARTBEAT)
   */
  exclude_content?: string;
  since?: number;
  limit?: number;
  cursor?: string;
  order?: "asc" | "desc";
}
/**
 * POST /api/skills/{name}/toggle: enable or disable (absent: flip).
 */
export interface ConsoleSkillToggle {
  enabled?: boolean;
}
/**
 * PUT /api/skills/{name}: a user skill's new skill.json (the dashboard's inline editor), validated against the skill manifest schema before it is saved.
 */
export interface ConsoleSkillUpdate {
  skill_json: string;
}
/**
 * POST /api/skills: a skill folder as text. skill.json is sent as a string so that one that is not JSON gets its own error; paths are checked (no ..), sizes limited, the handler loaded once in a worker, all before anything is written.
 */
export interface ConsoleSkillUpload {
  name: string;
  skill_json: string;
  files: {
    [k: string]: string | undefined;
  };
  force?: boolean;
}
/**
 * POST /api/agents/spawn: one more specialist under the supervisor (account specialist-<name>).
 */
export interface ConsoleSpawn {
  name: string;
  role?: string;
  /**
   * @maxItems 50
   */
  skills?: string[];
}
/**
 * REQUEST.DELEGATE_TASK, Specialist → Coordinator (issue "Skills, roles and spawning"; plan part 2 delegate_task). A sub-request in the caller's session: the Coordinator finds another specialist (of `role` when given, never the caller) and answers INFORM RESULT or FAILURE.
 */
export interface DelegateTaskContent {
  type: "DELEGATE_TASK";
  task: string;
  role?: string;
  context?: string;
}
/**
 * REQUEST.DEREGISTER, Specialist → Registry (DF): withdraws a registration before its lease expires (extends seed contract §2.2).
 */
export interface DeregisterContent {
  type: "DEREGISTER";
  jid: Jid;
}
/**
 * INFORM DEREGISTERED, Registry → agent: the answer to REQUEST.DEREGISTER.
 */
export interface DeregisteredContent {
  type: "DEREGISTERED";
  jid: Jid;
}
/**
 * QUERY-REF DESCRIBE, Coordinator → Registry: the live directory (profiles of agents with a valid lease), for the Presenter's help.
 */
export interface DescribeContent {
  type: "DESCRIBE";
  capability?: Capability;
}
/**
 * INFORM DF_CHANGED, Registry → Coordinator: the directory changed (a registration added, withdrawn, expired or no longer admitted), so DF answers the Coordinator keeps (its candidate cache) are stale. Parley's extension of seed contract §2.2; FIPA SC00023 lets a DF tell subscribers of changes.
 */
export interface DfChangedContent {
  type: "DF_CHANGED";
  /**
   * The agents whose registration changed (at most 100; absent or cut short: assume any).
   *
   * @maxItems 100
   */
  jids?: Jid[];
}
/**
 * INFORM DIRECTORY, Registry → Coordinator: the answer to QUERY-REF DESCRIBE.
 */
export interface DirectoryContent {
  type: "DIRECTORY";
  /**
   * @maxItems 1000
   */
  agents: DirectoryEntry[];
}
export interface DirectoryEntry {
  profile: AgentProfile;
  registered_at: UtcTimestamp;
  last_seen: UtcTimestamp;
}
export interface AgentProfile {
  jid: Jid;
  name: AgentName;
  did?: Did1;
  version: string;
  /**
   * @minItems 1
   * @maxItems 50
   */
  capabilities: Capability[];
  description?: string;
  /**
   * Keywords the agent answers about; the DF ranks candidates whose topics match the need's hint first.
   *
   * @maxItems 100
   */
  topics?: string[];
  /**
   * Example requests, shown to people by the Presenter's help.
   *
   * @maxItems 20
   */
  examples?: string[];
  /**
   * Configured role of the agent (issue #7), e.g. researcher.
   */
  role?: string;
  /**
   * Skills the agent serves (issue "Skills, roles and spawning"), e.g. arithmetic.
   *
   * @maxItems 100
   */
  skills?: string[];
  /**
   * Issue 14 §3: the agent shares its lease with every agent of its domain that registered naming the same group (the virtual agents of one host process): a HEARTBEAT from any live member renews every live member, so a host sends one HEARTBEAT per interval, not one per agent, and a host that dies takes all of them out of the directory within one lease. A random secret of the host; the DF never lists it.
   */
  lease_group?: string;
  max_concurrent?: number;
  sessions?: SessionsManifest;
  room?: RoomProfile;
}
/**
 * RFC 0001 §3.3 manifest block, published in the Tool's DF profile (profile.sessions).
 *
 * This interface was referenced by `ContractTypes`'s JSON-Schema
 * via the `definition` "SessionsManifest".
 */
export interface SessionsManifest {
  supported: boolean;
  max_participants: number;
  max_duration_hours: number;
  state_schema: StateSchemaRef;
  concurrency_model: "optimistic";
  resumable_after_disconnect: boolean;
  supports_pause: boolean;
  supports_handoff: boolean;
}
/**
 * Rooms only (oacop-rfc §8.2): seats and the constraints the room publishes.
 */
export interface RoomProfile {
  capacity: number;
  constraints?: RoomConstraints;
}
export interface RoomConstraints {
  minDuration?: string;
  requiresCleaningGap?: string;
}
/**
 * REQUEST.ENROL, agent → Registry: redeems the operator's single-use enrolment token (`npm run enrol -- issue`) for a credential binding the sender's JID to `did` (docs/architecture.md "Identities and trust"). The envelope must be signed by `did`; the one kind the Registry accepts from a JID with no DID binding yet.
 */
export interface EnrolContent {
  type: "ENROL";
  token: string;
  did: Did;
}
/**
 * INFORM ENROLLED, Registry → agent: the answer to REQUEST.ENROL, the enrolment credential signed by the operator key (JID, DID, role, iat/exp in epoch ms, issuer DID, Ed25519 signature over the RFC 8785 JCS of the other fields, base64url).
 */
export interface EnrolledContent {
  type: "ENROLLED";
  credential: {
    v: 1;
    jid: Jid;
    did: Did;
    role: "specialist" | "calendar";
    iat: number;
    exp: number;
    iss: Did;
    sig: string;
  };
}
/**
 * FIPA-ACL envelope, seed contract §1. in_reply_to is absent on initiating messages; sender_did and signature are reserved for message signing.
 */
export interface Envelope {
  performative: Performative;
  sender: AgentName;
  receiver: AgentName;
  conversation_id: ConversationId;
  reply_with: MessageId;
  in_reply_to?: MessageId;
  ontology: string;
  protocol: Protocol;
  language: "application/json";
  timestamp: UtcTimestamp;
  content: {
    [k: string]: unknown | undefined;
  };
  sender_did?: string;
  signature?: string;
}
/**
 * Generic error content built by errorContent() in shared/acl/errors.ts: the common shape of NOT-UNDERSTOOD, REFUSE and FAILURE content.
 */
export interface ErrorContent {
  reason: string;
  detail?: Detail;
  errors?: ValidationErrors;
}
export interface ValidationErrorItem {
  instancePath: string;
  keyword: string;
  message: string;
}
/**
 * INFORM.EVENT, Coordinator → agents: an event a specialist broadcast (BROADCAST_EVENT). No answer (FIPA inform).
 */
export interface EventContent {
  type: "EVENT";
  event: string;
  data: string;
  origin: AgentName;
}
/**
 * INFORM.FACTS, KB → Coordinator (seed contract §2.4). ts is the stored value and is not format-checked: the seed's own example carries a placeholder there. The seed shape has no type; an optional type FACTS is allowed.
 */
export interface FactsContent {
  type?: "FACTS";
  /**
   * @maxItems 1000
   */
  facts: StoredFact[];
}
export interface StoredFact {
  session_id?: ConversationId;
  slot: string;
  value: FactValue;
  confidence: Confidence;
  ts: string;
  subject?: Jid;
}
/**
 * FAILURE (seed contract §2.3, §4). reason is the seed §4 dictionary plus the pipeline's FAILURE codes; it mirrors the FAILURE rows of shared/acl/errors.ts (a unit test keeps them equal). The seed shape has no type; an optional type FAILURE is allowed.
 */
export interface FailureContent {
  type?: "FAILURE";
  reason: FailureReason;
  detail?: Detail;
  errors?: ValidationErrors;
}
/**
 * QUERY-REF.GET_FACTS, Coordinator → KB (seed contract §2.4). Every filter field is optional; text is a substring search over values.
 */
export interface GetFactsContent {
  type: "GET_FACTS";
  filter: FactFilter;
}
export interface FactFilter {
  session_id?: ConversationId;
  slot?: string;
  text?: string;
  limit?: number;
  subject?: Jid;
}
/**
 * INFORM.HEARTBEAT, Specialist → Registry (DF): renews the registration lease (seed contract §2.2).
 */
export interface HeartbeatContent {
  type: "HEARTBEAT";
  jid: Jid;
}
/**
 * QUERY-REF need, Coordinator → Registry (DF) (seed contract §2.2). The seed shape has no type; an optional type NEED is allowed.
 */
export interface NeedContent {
  type?: "NEED";
  need: Capability;
  /**
   * Optional: only agents registered with this role (a delegated task for a planner, a researcher, …).
   */
  role?: string;
  /**
   * Optional: the request text, so the DF can rank candidates by topic (the list still holds every capable agent).
   */
  hint?: string;
  /**
   * Optional (FIPA SC00023 df search-constraints max-results): at most this many candidates, the best first. Without it the DF lists up to its limit, 100.
   */
  max_results?: number;
}
/**
 * NOT-UNDERSTOOD (FIPA SC00037): answer to input that fails the pipeline's checks. reason mirrors the NOT-UNDERSTOOD rows of shared/acl/errors.ts (a unit test keeps them equal).
 */
export interface NotUnderstoodContent {
  type?: "NOT_UNDERSTOOD";
  reason: NotUnderstoodReason;
  detail: Detail;
  errors?: ValidationErrors;
}
/**
 * INFORM.NOTIFY_USER, Coordinator → Presenter: tell a person something they did not ask for in this conversation (a task assigned to them, a TaskUpdate on a task they assigned, a meeting they were invited to or that was cancelled). The Presenter chats `text` to `user`; `rich.ics` (an iCalendar text) is delivered as a second message.
 */
export interface NotifyUserContent {
  type: "NOTIFY_USER";
  user: Jid1;
  text: string;
  rich?: {
    [k: string]: unknown | undefined;
  };
}
/**
 * Parley extension (the RFC defines no success answer): INFORM, Calendar/Room → Coordinator, answering ConfirmCollaboration (CONFIRMED), CancelCollaboration (CANCELLED) or a Calendar's AssignTask (TASK_RECORDED: stored as VTODO NEEDS-ACTION, the person decides later).
 */
export interface OACoPAck {
  type: "OACoPAck";
  threadId: string;
  status: "CONFIRMED" | "CANCELLED" | "TASK_RECORDED";
  /**
   * The thread's revision now held (= iCalendar SEQUENCE).
   */
  revision?: number;
  /**
   * iCalendar UID of the written VEVENT/VTODO.
   */
  uid?: string;
  /**
   * Whose calendar (person's name, e.g. bob).
   */
  person?: string;
  slot?: OACoPSlot;
}
/**
 * A time interval (oacop-rfc §3.2/§3.3), ISO 8601 date-times; Parley always sends UTC with Z.
 *
 * This interface was referenced by `ContractTypes`'s JSON-Schema
 * via the `definition` "OACoPSlot".
 */
export interface OACoPSlot {
  start: string;
  end: string;
  [k: string]: unknown | undefined;
}
/**
 * oacop-rfc §4.1/§7.4 (normative fields kept exactly). REQUEST, Coordinator → Calendar (stored as a VTODO, the person decides later) or Room (§8.2 booking). Parley adds object.description/duration/startDate/endDate, revision, sender, proofOfBurn.
 */
export interface AssignTask {
  type: "AssignTask";
  threadId: string;
  object: OACoPTaskObject;
  deadline: string;
  revision?: number;
  sender?: OACoPSender;
  proofOfBurn?: OACoPTaskProofOfBurn;
  [k: string]: unknown | undefined;
}
export interface OACoPTaskObject {
  type: "Task";
  title: string;
  parentTaskId?: string;
  dependencies?: string[];
  description?: string;
  duration?: string;
  startDate?: string;
  endDate?: string;
  location?: string;
  [k: string]: unknown | undefined;
}
export interface OACoPTaskProofOfBurn {
  txId: string;
  amount?: string;
  [k: string]: unknown | undefined;
}
/**
 * oacop-rfc §3.5/§7.6 (normative fields kept exactly). CANCEL (a new exchange) or REJECT-PROPOSAL (answering a PROPOSE), by the initiator or a participant; revision rule §3.4.
 */
export interface CancelCollaboration {
  type: "CancelCollaboration";
  threadId: string;
  revision: number;
  reason: string;
  sender?: OACoPSender;
  [k: string]: unknown | undefined;
}
/**
 * oacop-rfc §3.3/§7.3 (normative fields kept exactly). ACCEPT-PROPOSAL, Coordinator → Calendar/Room, revision > the proposal's (§3.4). Parley adds optional object (title etc. when the participant never saw the proposal) and sender.
 */
export interface ConfirmCollaboration {
  type: "ConfirmCollaboration";
  threadId: string;
  revision: number;
  finalSlot: OACoPSlot;
  object?: OACoPObject;
  sender?: OACoPSender;
  [k: string]: unknown | undefined;
}
/**
 * oacop-rfc §2.2 CollaborationObject with the §2.4 iCalendar mapping (title→SUMMARY, description→DESCRIPTION, startDate/endDate→DTSTART/DTEND, duration→DURATION, location→LOCATION).
 *
 * This interface was referenced by `ContractTypes`'s JSON-Schema
 * via the `definition` "OACoPObject".
 */
export interface OACoPObject {
  type: "Event" | "Task";
  duration?: string;
  title?: string;
  description?: string;
  location?: string;
  startDate?: string;
  endDate?: string;
  icalComponent?: string;
  parentTaskId?: string;
  /**
   * @maxItems 100
   */
  dependencies?: string[];
  [k: string]: unknown | undefined;
}
/**
 * oacop-rfc §5. FAILURE, answering any OACoP message that could not be processed logically.
 */
export interface OACoPError {
  type: "OACoPError";
  code: OACoPErrorCode;
  message: string;
  threadId?: string;
  /**
   * Parley: the receiver's current revision of the thread (with OACOP_STALE_REVISION).
   */
  revision?: number;
}
/**
 * oacop-rfc §3.2/§7.2 (normative fields kept exactly). PROPOSE (INTERESTED/TENTATIVE) or REFUSE (DECLINED), Calendar/Room → Coordinator. Only free slots inside the requested timeWindow (§1.1 privacy of availability).
 */
export interface ProposalResponse {
  type: "ProposalResponse";
  threadId: string;
  respondingToRevision: number;
  status: "INTERESTED" | "DECLINED" | "TENTATIVE";
  availableSlots?: OACoPSlot[];
  sender?: OACoPSender;
  comment?: string;
  [k: string]: unknown | undefined;
}
/**
 * oacop-rfc §3.1/§7.1 (normative fields kept exactly). CFP, Coordinator → Calendar/Room. Parley adds the optional §2.1/§2.3 fields: constraints (timeWindow, participants, requiredParticipants, room), object.title etc., sender, proofOfBurn.amount.
 */
export interface ProposeCollaboration {
  type: "ProposeCollaboration";
  threadId: string;
  revision: number;
  object: OACoPObject;
  proofOfBurn?: OACoPProofOfBurn;
  constraints?: OACoPConstraints;
  sender?: OACoPSender;
  id?: string;
  created?: string;
  [k: string]: unknown | undefined;
}
export interface OACoPProofOfBurn {
  txId: string;
  amount?: string;
  [k: string]: unknown | undefined;
}
/**
 * oacop-rfc §2.3. A Calendar answers only inside timeWindow (required by Parley's calendars: OACOP_UNSUPPORTED_CONSTRAINT without it).
 */
export interface OACoPConstraints {
  timeWindow?: OACoPSlot;
  /**
   * @maxItems 50
   */
  participants?: string[];
  /**
   * @maxItems 50
   */
  requiredParticipants?: string[];
  room?: string;
  [k: string]: unknown | undefined;
}
/**
 * Parley extension: REQUEST, Coordinator → Calendar, carrying the person's answer to an assigned task (said in chat). The calendar updates the VTODO and answers INFORM TaskUpdate with the same status (oacop-rfc §4.2).
 */
export interface TaskDecision {
  type: "TaskDecision";
  threadId: string;
  status: "ACCEPTED" | "DECLINED" | "IN_PROGRESS" | "COMPLETED" | "BLOCKED";
  progress?: number;
  comment?: string;
}
/**
 * oacop-rfc §4.2/§7.5 (normative fields kept exactly). INFORM, worker (Calendar/Room) → Coordinator: the answer to a TaskDecision REQUEST or to a Room's AssignTask, or opened by a calendar on its own. Parley adds sender and person.
 */
export interface TaskUpdate {
  type: "TaskUpdate";
  threadId: string;
  status: "ACCEPTED" | "DECLINED" | "IN_PROGRESS" | "COMPLETED" | "BLOCKED";
  progress?: number;
  comment?: string;
  sender?: OACoPSender;
  person?: string;
  [k: string]: unknown | undefined;
}
/**
 * INFORM.PRESENTER_REPLY, Coordinator → Presenter (seed contract §2.5).
 */
export interface PresenterReplyContent {
  type: "PRESENTER_REPLY";
  text: string;
  rich?: {
    [k: string]: unknown | undefined;
  };
}
/**
 * QUERY-REF.QUERY_AGENTS, Specialist → Coordinator (plan part 2 query_agents): the live agents, optionally of one role or serving one skill. Answered with INFORM AGENTS.
 */
export interface QueryAgentsContent {
  type: "QUERY_AGENTS";
  role?: string;
  skill?: string;
}
/**
 * REFUSE (seed contract §2.3): reason such as busy, OUT_OF_SCOPE, FORBIDDEN_SENDER, a signature check (MISSING_SIGNATURE, BAD_SIGNATURE, UNKNOWN_DID, DID_MISMATCH, STALE_MESSAGE, REPLAYED), or RATE_LIMITED (oacop-rfc §6.1, Agora 429: too many envelopes from one sender DID): the REFUSE rows of shared/acl/errors.ts, plus the seed's lowercase busy. The seed shape has no type; an optional type REFUSE is allowed.
 */
export interface RefuseContent {
  type?: "REFUSE";
  reason: string;
  detail?: Detail;
  errors?: ValidationErrors;
}
/**
 * REQUEST.REGISTER_MANY, a host of virtual agents → Registry (DF) (issue 14 §3): several agents' REGISTERs in one message. Each entry is that agent's own REQUEST.REGISTER envelope, signed by its own key; the DF checks every entry as it would the REGISTER alone (contract, signature, replay, the operator's enrolment of its JID and DID) and refuses the whole batch, registering none, if one entry fails or names an agent outside the sender's component domain. The sender is one of the host's agents; it vouches for nothing but the delivery.
 */
export interface RegisterManyContent {
  type: "REGISTER_MANY";
  /**
   * @minItems 1
   * @maxItems 64
   */
  entries: Envelope[];
}
/**
 * REQUEST.REGISTER, Specialist → Registry (DF) (seed contract §2.2).
 */
export interface RegisterContent {
  type: "REGISTER";
  profile: AgentProfile;
}
/**
 * INFORM REGISTERED_MANY, Registry → the host agent that sent REGISTER_MANY: every entry was registered; for each, the reply_with of its REGISTER, its JID and the lease to renew.
 */
export interface RegisteredManyContent {
  type: "REGISTERED_MANY";
  /**
   * @minItems 1
   * @maxItems 64
   */
  registered: {
    in_reply_to: MessageId;
    jid: Jid;
    lease_ms: number;
  }[];
}
/**
 * INFORM REGISTERED, Registry → agent: the answer to REQUEST.REGISTER (FIPA SC00026 inform-done), with the lease the agent must renew by HEARTBEAT.
 */
export interface RegisteredContent {
  type: "REGISTERED";
  jid: Jid;
  lease_ms: number;
}
/**
 * INFORM.RESULT, Specialist → Coordinator (seed contract §2.3).
 */
export interface ResultContent {
  type: "RESULT";
  result: ExpertResult;
}
/**
 * INFORM.SESSION_CHAT_REPLY, sessions@<domain> → Coordinator: the text the person reads for a SESSION_CHAT (refusals included, as sentences) and `rich` ({kind: 'session', …} with the receipt, the state or the SESSION_ERROR reason); the Coordinator answers the Presenter PRESENTER_REPLY with both.
 */
export interface SessionChatReplyContent {
  type: "SESSION_CHAT_REPLY";
  text: string;
  rich: {
    [k: string]: unknown | undefined;
  };
}
/**
 * REQUEST.SESSION_CHAT, Coordinator → sessions@<domain> (docs/sessions.md): a person's `session …` chat line, forwarded in the person's conversation (= the session id). Only the Coordinator may send it. on_behalf_of: the person (USER_MSG.user); presenter_did: the verified sender_did of the person's USER_MSG, the Presenter's, which convenes on the person's behalf (checked against the Presenter's pinned DID). Answered INFORM SESSION_CHAT_REPLY (a line taken up after answer_within_ms: not applied, said so).
 */
export interface SessionChatContent {
  type: "SESSION_CHAT";
  text: string;
  on_behalf_of: Jid;
  presenter_did?: Did;
  /**
   * How long the Coordinator waits for the answer from the envelope's timestamp (PARLEY_SESSIONS_TIMEOUT_MS): a line the sessions agent takes up after that (less 1 s for the way back) is not applied, since the person was told it failed.
   */
  answer_within_ms?: number;
}
/**
 * REQUEST.SESSION_CLOSE (RFC 0001 §3.2 close, §3.6): the convener only (its signed envelope is the convener signature).
 */
export interface SessionCloseContent {
  type: "SESSION_CLOSE";
  reason?: string;
}
/**
 * REQUEST.SESSION_CREATE → sessions@<domain> (RFC 0001 §3.2 create). The session id is the envelope's conversation_id; the sender's verified DID becomes the convener and first participant. on_behalf_of: the person a Presenter convenes for (docs/sessions.md). Answered INFORM SESSION_RECEIPT or REFUSE SESSION_ERROR (SESSION_EXISTS, QUOTA_EXCEEDED, UNKNOWN_STATE_SCHEMA, STATE_INVALID).
 */
export interface SessionCreateContent {
  type: "SESSION_CREATE";
  state_schema: StateSchemaRef;
  state: {
    [k: string]: unknown | undefined;
  };
  title?: string;
  on_behalf_of?: Jid;
  max_participants?: number;
  max_duration_hours?: number;
}
/**
 * REQUEST.SESSION_DELETE (RFC 0001 §6 data_delete): the convener, controller of the log, deletes the session's state, ledger and log.
 */
export interface SessionDeleteContent {
  type: "SESSION_DELETE";
}
/**
 * REFUSE|FAILURE.SESSION_ERROR: why a session request was not done (docs/acl_contract.md "Coordination sessions"). current_version travels with VERSION_CONFLICT.
 */
export interface SessionErrorContent {
  type: "SESSION_ERROR";
  reason:
    | "NOT_A_PARTICIPANT"
    | "NOT_CONVENER"
    | "BAD_CREDENTIAL"
    | "VERSION_CONFLICT"
    | "QUOTA_EXCEEDED"
    | "SESSION_FULL"
    | "SESSION_CLOSED"
    | "SESSION_EXPIRED"
    | "UNKNOWN_SESSION"
    | "SESSION_EXISTS"
    | "UNKNOWN_STATE_SCHEMA"
    | "STATE_INVALID"
    | "ALREADY_PARTICIPANT"
    | "CONVENER_MUST_HANDOFF"
    | "MISSING_SIGNATURE";
  detail: Detail;
  session_id?: SessionId;
  current_version?: number;
  errors?: ValidationErrors;
}
/**
 * REQUEST.SESSION_HANDOFF (RFC 0001 §3.6.4): a SessionHandoff signed by the current convener naming a participant as the new convener.
 */
export interface SessionHandoffContent {
  type: "SESSION_HANDOFF";
  credential: SessionCredential;
}
/**
 * RFC 0001 §3.6 convener credential: signed with the issuer's Ed25519 key over RFC 8785 canonical JSON of the credential with signature set to "" (the envelope signing rule of Agora v1.0 §2).
 *
 * This interface was referenced by `ContractTypes`'s JSON-Schema
 * via the `definition` "SessionCredential".
 */
export interface SessionCredential {
  type: "SessionAdmission" | "SessionRevocation" | "SessionHandoff";
  session_id: SessionId;
  subject: Did;
  issuer: Did;
  issued: UtcTimestamp;
  expires: UtcTimestamp;
  signature: string;
}
/**
 * INFORM.SESSION_INFO: answer to SESSION_STATE.
 */
export interface SessionInfoContent {
  type: "SESSION_INFO";
  session_id: SessionId;
  state: {
    [k: string]: unknown | undefined;
  };
  state_version: number;
  state_schema: StateSchemaRef;
  status: SessionStatus;
  title?: string;
  on_behalf_of?: Jid;
  convener: Did;
  /**
   * @maxItems 10000
   */
  participants: Did[];
  turn_id: TurnId;
  expires_at?: UtcTimestamp;
}
/**
 * REQUEST.SESSION_JOIN (RFC 0001 §3.2 join, §3.6 admission): a SessionAdmission signed by the current convener for the subject DID; sent by the subject or by the convener.
 */
export interface SessionJoinContent {
  type: "SESSION_JOIN";
  credential: SessionCredential;
}
/**
 * REQUEST.SESSION_LEAVE (RFC 0001 §3.2 leave): without credential the sender leaves; with a SessionRevocation signed by the convener its subject is removed (§3.6).
 */
export interface SessionLeaveContent {
  type: "SESSION_LEAVE";
  credential?: SessionCredential;
}
/**
 * QUERY-REF.SESSION_LOG (RFC 0001 §3.2 log): the hash-chained turn log; answered INFORM SESSION_TURNS.
 */
export interface SessionLogContent {
  type: "SESSION_LOG";
  after_seq?: number;
  limit?: number;
}
/**
 * INFORM.SESSION_RECEIPT (RFC 0001 §3.5): the turn a successful request appended (turn_id, previous_turn_id, chain hash). A delete answers with status deleted and the last turn it removed.
 */
export interface SessionReceiptContent {
  type: "SESSION_RECEIPT";
  session_id: SessionId;
  turn_id: TurnId;
  previous_turn_id: TurnId | null;
  hash?: string;
  op: string;
  state_version: number;
  status: "open" | "closed" | "deleted";
  convener?: Did;
}
/**
 * Session state schema for a project / joint plan session (RFC 0001 §2 patterns 1-2): a goal and ordered steps with an owner and a status. A session names it as state_schema; every update must match it.
 */
export interface PlanSessionState {
  title: string;
  goal?: string;
  /**
   * @maxItems 200
   */
  steps: PlanStep[];
  notes?: string;
}
export interface PlanStep {
  id: string;
  text: string;
  status: "todo" | "doing" | "done" | "blocked";
  owner?: string;
}
/**
 * QUERY-REF.SESSION_STATE (RFC 0001 §3.2 state): the current state, state_version, participants; answered INFORM SESSION_INFO.
 */
export interface SessionStateContent {
  type: "SESSION_STATE";
}
/**
 * INFORM.SESSION_TURNS: answer to SESSION_LOG, turns in order.
 */
export interface SessionTurnsContent {
  type: "SESSION_TURNS";
  session_id: SessionId;
  /**
   * @maxItems 200
   */
  turns: SessionTurn[];
  more?: boolean;
}
/**
 * One entry of a session's hash-chained log (RFC 0001 §3.5): hash = sha256(previous hash ‖ RFC 8785 JSON of the turn without hash).
 *
 * This interface was referenced by `ContractTypes`'s JSON-Schema
 * via the `definition` "SessionTurn".
 */
export interface SessionTurn {
  seq: number;
  turn_id: TurnId;
  previous_turn_id: TurnId | null;
  op: "create" | "join" | "leave" | "update" | "close" | "handoff";
  actor: Did;
  at: UtcTimestamp;
  body: {
    [k: string]: unknown | undefined;
  };
  hash: string;
}
/**
 * REQUEST.SESSION_UPDATE (RFC 0001 §3.2 update, §3.4): refused VERSION_CONFLICT unless expected_version equals the current state_version; the new state must match the session's state_schema.
 */
export interface SessionUpdateContent {
  type: "SESSION_UPDATE";
  expected_version: number;
  state: {
    [k: string]: unknown | undefined;
  };
  note?: string;
}
/**
 * INFORM.STORE_FACT, Coordinator → KB (seed contract §2.4).
 */
export interface StoreFactContent {
  type: "STORE_FACT";
  fact: Fact;
}
export interface Fact {
  session_id: ConversationId;
  slot: string;
  value: FactValue;
  confidence: Confidence;
  ts: UtcTimestamp;
  subject?: Jid2;
}
/**
 * INFORM STORED, KB → Coordinator: the fact of an INFORM.STORE_FACT is durable (lets the Coordinator tell KB_STORE_FAILED and KB_UNAVAILABLE apart, seed contract §4).
 */
export interface StoredContent {
  type: "STORED";
  count: number;
}
/**
 * REQUEST.USER_MSG, Presenter → Coordinator (seed contract §2.1).
 */
export interface UserMsgContent {
  type: "USER_MSG";
  text: string;
  /**
   * @maxItems 20
   */
  attachments?: Attachment[];
  user?: Jid3;
}
export interface Attachment {
  name?: string;
  media_type?: string;
  url?: string;
}
