/* eslint-disable */
/**
 * GENERATED FILE - DO NOT EDIT.
 * Generated from contracts/*.json by scripts/gen-types.ts (json-schema-to-typescript).
 * Regenerate: npx tsc -p tsconfig.json && npm run gen:types   (CI: npm run check:types)
 */

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
 * Logical agent name used as envelope sender/receiver (seed contract §1), e.g. Presenter.
 *
 * This interface was referenced by `ContractTypes`'s JSON-Schema
 * via the `definition` "AgentName".
 */
export type AgentName = string;
/**
 * An Ed25519 did:key (W3C CCG did:key; Agora v1.0 §1): did:key:z6Mk… (multicodec 0xed01, base58btc).
 */
export type Did1 = string;
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
  | "OFFER_EXPIRED";
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
 * XMPP address local@domain with an optional /resource (RFC 7622).
 */
export type Jid2 = string;

/**
 * Maps each contract file name (contracts/<name>.json) to its TypeScript type.
 */
export interface ContractTypes {
  "agora-accept": AgoraAcceptContent;
  "agora-error": AgoraErrorContent;
  "agora-offer": AgoraOfferContent;
  "agora-reject": AgoraRejectContent;
  "agora-request": AgoraRequestContent;
  "agora-result": AgoraResultContent;
  agree: AgreeContent;
  "ask-expert": AskExpertContent;
  cancel: CancelContent;
  candidates: CandidatesContent;
  deregister: DeregisterContent;
  deregistered: DeregisteredContent;
  describe: DescribeContent;
  directory: DirectoryContent;
  envelope: Envelope;
  "error-content": ErrorContent;
  facts: FactsContent;
  failure: FailureContent;
  "get-facts": GetFactsContent;
  heartbeat: HeartbeatContent;
  need: NeedContent;
  "not-understood": NotUnderstoodContent;
  "presenter-reply": PresenterReplyContent;
  refuse: RefuseContent;
  register: RegisterContent;
  registered: RegisteredContent;
  result: ResultContent;
  "store-fact": StoreFactContent;
  stored: StoredContent;
  "user-msg": UserMsgContent;
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
 * AGREE, Specialist → Coordinator (seed contract §2.3). The seed shape has no type; an optional type AGREE is allowed.
 */
export interface AgreeContent {
  type?: "AGREE";
  status: "accepted";
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
   * The DF's JID → did:key bindings of the candidates (docs/architecture.md "Identities and trust"): the Coordinator verifies their replies against them.
   */
  dids?: {
    [k: string]: Did | undefined;
  };
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
  max_concurrent?: number;
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
   * Optional: the request text, so the DF can rank candidates by topic (the list still holds every capable agent).
   */
  hint?: string;
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
 * REFUSE (seed contract §2.3): reason such as busy, OUT_OF_SCOPE, FORBIDDEN_SENDER, or a signature check (MISSING_SIGNATURE, BAD_SIGNATURE, UNKNOWN_DID, DID_MISMATCH, STALE_MESSAGE, REPLAYED), RATE_LIMITED (Agora 429, too many envelopes from one sender DID): the REFUSE rows of shared/acl/errors.ts, plus the seed's lowercase busy. The seed shape has no type; an optional type REFUSE is allowed.
 */
export interface RefuseContent {
  type?: "REFUSE";
  reason: string;
  detail?: Detail;
  errors?: ValidationErrors;
}
/**
 * REQUEST.REGISTER, Specialist → Registry (DF) (seed contract §2.2).
 */
export interface RegisterContent {
  type: "REGISTER";
  profile: AgentProfile;
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
  subject?: Jid1;
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
  user?: Jid2;
}
export interface Attachment {
  name?: string;
  media_type?: string;
  url?: string;
}
