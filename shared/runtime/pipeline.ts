// The one inbound pipeline (docs/architecture.md): stanza → size → JSON → envelope schema →
// content schema → signature (signing.ts) → rate limit per DID (rate-limit.ts) → sender identity →
// role policy. Pure apart from the injected signature check and rate limiter: it classifies, the
// agent acts.
// Every failure carries a code from the one error catalogue (shared/acl/errors.ts).
import type { Envelope, ErrorCode } from '../acl/index.js';
import {
  type ContentKind, type ContentKindResolver, type Contracts, type ValidationErrorItem,
  validateEnvelope,
} from '../contracts/index.js';
import type { InboundMessage } from '../transport/index.js';
import { identify, type Identity, type Role } from './names.js';
import { type KindPolicies, mayInitiate, mayReply, mayTalk, needsAssignment } from './policy.js';
import type { SignatureCheck } from './signing.js';

/** Body bytes beyond which we do not even parse: 64 kB content plus generous header room. */
export const MAX_BODY_BYTES = 96 * 1024;

export interface PipelineContext {
  domain: string;
  self: Identity;
  /** Whether this agent reads plain chat from people (only the Presenter does). */
  readsChat: boolean;
  /** The signature stage (Signing.check); absent when signing is off (PARLEY_SIGNING=0, unit tests). */
  verify?: (envelope: Envelope, from: Identity, kind: string) => SignatureCheck;
  /**
   * Agora §5 429 (rate-limit.ts): spends one token of the sender's bucket, keyed by its verified
   * sender_did (by from-JID when signing is off); a string is the REFUSE detail. Absent = no limit.
   */
  rateLimit?: (key: string) => true | string;
  /**
   * Whether `jid` was given work in `conversationId` by this agent (the Coordinator: an
   * ASK_EXPERT or AGORA_ACCEPT it sent there). Kinds the policy scopes to assigned conversations
   * (DELEGATE_TASK, QUERY_AGENTS from a specialist) are refused without it (fail closed).
   */
  assigned?: (jid: string, conversationId: string) => boolean;
  /**
   * The message kinds judged: absent (every agent) = contracts/ and the declared MESSAGE_KINDS.
   * Only test/unit/recipe-message-kind.test.ts passes a table with one more declared row.
   */
  kinds?: { contracts: Contracts; content: ContentKindResolver; policies: KindPolicies };
}

export interface Rejection {
  action: 'reject';
  code: ErrorCode;
  detail: string;
  errors?: ValidationErrorItem[];
  from: Identity;
  /** What the error reply correlates to, as far as the input allowed parsing. */
  conversation_id: string;
  in_reply_to?: string;
  /** The envelope, when the header parsed (its performative decides whether we may answer). */
  envelope?: Envelope;
  /** The raw performative when the header did not validate: an invalid FAILURE is still not answered. */
  performative?: unknown;
  /** Recorded and counted, never answered (a retransmitted signed envelope, signing.ts). */
  quiet?: boolean;
}

export type Classified =
  | { action: 'chat'; msg: InboundMessage; from: Identity }
  | { action: 'ignore'; reason: string; from: Identity }
  | Rejection
  | { action: 'deliver'; envelope: Envelope; kind: ContentKind; from: Identity };

/** Accounts that are not agents: people of this domain, the admin, and anyone from elsewhere. */
const HUMAN_ROLES: ReadonlySet<Role> = new Set(['person', 'admin', 'foreign']);

/**
 * People never speak envelopes: at an agent that reads chat, a type="chat" message from a person
 * is chat whatever it contains (a typed JSON object included), and so is any non-JSON text.
 * The Presenter then decides who may talk to it (allow list), not the pipeline.
 */
function isPeopleChat(msg: InboundMessage, role: Role, readsChat: boolean, body: string): boolean {
  return readsChat && HUMAN_ROLES.has(role) && (msg.type === 'chat' || !body.trimStart().startsWith('{'));
}

export function classify(msg: InboundMessage, ctx: PipelineContext): Classified {
  try {
    return classifyMessage(msg, ctx);
  } catch (err) {
    // JSON.parse reads any depth within MAX_BODY_BYTES, but validation, canonical JSON and
    // JSON.stringify recurse: a body nested ~15,000 deep exhausted the stack and was answered
    // FAILURE INTERNAL_ERROR, as if the fault were ours. It is the sender's: NOT-UNDERSTOOD.
    if (!(err instanceof RangeError) || !/call stack/i.test(err.message)) throw err;
    const from = identify(msg.from, ctx.domain);
    return {
      action: 'reject', from, conversation_id: msg.thread ?? 'unknown', in_reply_to: msg.id,
      code: 'SCHEMA_VIOLATION', detail: 'the message is nested too deeply to be read',
    };
  }
}

function classifyMessage(msg: InboundMessage, ctx: PipelineContext): Classified {
  const from = identify(msg.from, ctx.domain);
  if (msg.type === 'error') return { action: 'ignore', reason: 'error stanza', from };
  if (msg.body === undefined || msg.body === '') {
    // A person's submitted data form (XEP-0004 in a message, no body) is chat too: the Presenter reads the answer from it.
    const form = msg.stanza?.getChildren('x', 'jabber:x:data').some((x) => x.attrs.type === 'submit');
    if (form && ctx.readsChat && HUMAN_ROLES.has(from.role) && msg.type === 'chat') return { action: 'chat', msg, from };
    return { action: 'ignore', reason: 'no body', from };
  }
  // People chat in plain text with the Presenter; a chat body that is not JSON is chat.
  if (isPeopleChat(msg, from.role, ctx.readsChat, msg.body)) return { action: 'chat', msg, from };
  const base = { action: 'reject' as const, from, conversation_id: msg.thread ?? 'unknown', in_reply_to: msg.id };
  if (Buffer.byteLength(msg.body, 'utf8') > MAX_BODY_BYTES) {
    return { ...base, code: 'CONTENT_TOO_LARGE', detail: `message body over ${MAX_BODY_BYTES} bytes; content ≤ 64 kB (seed contract §1)` };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(msg.body);
  } catch (err) {
    if (ctx.readsChat && HUMAN_ROLES.has(from.role)) return { action: 'chat', msg, from };
    return { ...base, code: 'INVALID_JSON', detail: (err as Error).message.slice(0, 300) };
  }
  const result = validateEnvelope(raw, ctx.kinds?.contracts, ctx.kinds?.content);
  if (!result.ok) {
    const env = result.envelope;
    return {
      ...base,
      performative: (raw as { performative?: unknown } | null)?.performative,
      code: result.code,
      detail: result.detail,
      errors: result.errors,
      ...(env ? { envelope: env, conversation_id: env.conversation_id, in_reply_to: env.reply_with } : {}),
    };
  }
  const envelope = result.envelope;
  const rejectEnv = (code: ErrorCode, detail: string): Rejection => ({
    ...base, code, detail, envelope, conversation_id: envelope.conversation_id, in_reply_to: envelope.reply_with,
  });
  // Agora v1.0 §1-2: nothing unsigned, forged, stale or replayed goes further, not even the
  // correlation checks (their answers would tell a forger about our open exchanges).
  const signature = ctx.verify?.(envelope, from, result.kind.kind);
  if (signature && !signature.ok) {
    return { ...rejectEnv(signature.code, signature.detail), ...(signature.quiet ? { quiet: true } : {}) };
  }
  // Per sender DID, after the signature stage: nobody spends another agent's tokens.
  const limited = ctx.rateLimit?.(signature && envelope.sender_did ? envelope.sender_did : `jid:${from.jid}`);
  if (typeof limited === 'string') return rejectEnv('RATE_LIMITED', limited);
  // Seed contract §1: conversation_id = XMPP thread, unchanged along the whole path.
  if (msg.thread !== envelope.conversation_id) {
    return rejectEnv('BROKEN_CORRELATION', `XMPP <thread> ${JSON.stringify(msg.thread ?? null)} must equal conversation_id`);
  }
  if (envelope.sender !== from.name) {
    return rejectEnv('SENDER_MISMATCH', `envelope sender ${JSON.stringify(envelope.sender)} is not ${from.jid} (${from.name})`);
  }
  if (envelope.receiver !== ctx.self.name) {
    return rejectEnv('UNEXPECTED_MESSAGE', `envelope receiver ${JSON.stringify(envelope.receiver)} is not ${ctx.self.name}`);
  }
  const kind = result.kind.kind;
  const policies = ctx.kinds?.policies;
  if (!mayTalk(from.role, ctx.self.role, kind, policies)) {
    const why = from.role === 'person' ? ` (${from.jid} is not an enrolled agent: never enrolled, revoked or expired; the operator enrols agents with \`npm run enrol\`)` : ' (seed contract §5)';
    return rejectEnv('FORBIDDEN_SENDER', `${from.role} ${from.jid} may not send to the ${ctx.self.role}${why}`);
  }
  if (envelope.in_reply_to === undefined) {
    if (!mayInitiate(from.role, kind, policies)) return rejectEnv('FORBIDDEN_SENDER', `a ${from.role} may not open a ${kind} exchange (docs/acl_contract.md "Role policy")`);
    if (needsAssignment(from.role, kind, policies) && !(ctx.assigned?.(from.jid, envelope.conversation_id) ?? false)) {
      return rejectEnv('FORBIDDEN_SENDER', `a ${from.role} may send ${kind} only inside a conversation it was asked to work on; ${from.jid} was given no work in ${envelope.conversation_id}`);
    }
  } else if (!mayReply(from.role, kind, policies)) {
    return rejectEnv('FORBIDDEN_SENDER', `a ${from.role} may not answer with ${kind} (docs/acl_contract.md "Role policy")`);
  }
  return { action: 'deliver', envelope, kind: result.kind, from };
}
