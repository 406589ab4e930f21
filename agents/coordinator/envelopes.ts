// Small pure helpers the Coordinator's machines share: building its outbound envelopes, reading
// what came back, and the timeouts every exchange carries (seed contract §1, §3).
import {
  contentByteSize, type Envelope, makeEnvelope, MAX_CONTENT_BYTES, nowIso, replyTo, type ErrorCode, errorContent, type Performative,
} from '../../shared/acl/index.js';
import type { ExchangeInput, InboundEvent } from '../../shared/runtime/index.js';
import type { BusyRetrySettings } from './busy-wait.js';
import type { AgoraSettings } from './negotiation.js';

/** From loadTunables(): seed contract §3 (AGREE 3 s, RESULT 30 s) plus the DF and KB waits. */
export interface CoordinatorTimeouts {
  agreeTimeoutMs: number;
  resultTimeoutMs: number;
  registryTimeoutMs: number;
  kbTimeoutMs: number;
  /** How long a scale-up (POST /scale, a new specialist registering) may take. */
  scaleTimeoutMs?: number;
  /** How long a person's session line may wait for the sessions agent (PARLEY_SESSIONS_TIMEOUT_MS; default the RESULT timeout). */
  sessionsTimeoutMs?: number;
}

/** What every Coordinator exchange is opened with (the USER_MSG and where it runs). */
export interface CoordinatorInput extends ExchangeInput {
  domain: string;
  timeouts: CoordinatorTimeouts;
  /** Candidate JIDs the DF gave for a question of the same shape moments ago (candidate-cache.ts). */
  cached?: string[];
  /** Ask the supervisor for one more specialist when every candidate refused busy (main.ts). */
  canScale?: boolean;
  /** A specialist's DELEGATE_TASK (not a person's USER_MSG): never back to `exclude`, of `role`. */
  delegation?: { exclude: string; role?: string };
  /** The negotiated flow (Agora §3 via contract-net); absent = the direct flow only. */
  agora?: AgoraSettings;
  /** Every candidate busy → wait and ask again within a budget (busy-wait.ts); absent = fail at once. */
  busyRetry?: BusyRetrySettings;
  /** The person's time zone (IANA), sent to specialists as args.zone: "what time is it?" is read in it (issue 16). */
  zone?: string;
}

/** The USER_MSG fields a machine needs. */
export function userMsg(request: Envelope): { text: string; user?: string } {
  const c = request.content;
  const text = typeof c.text === 'string' ? c.text : '';
  return typeof c.user === 'string' ? { text, user: c.user } : { text };
}

/** A new initiating envelope in the USER_MSG's conversation (one conversation_id throughout). */
export function outbound(
  request: Envelope, self: string, performative: Performative, receiver: string, content: object, inReplyTo?: string,
): Envelope {
  return makeEnvelope({
    performative, sender: self, receiver, conversation_id: request.conversation_id, content,
    ...(inReplyTo !== undefined ? { in_reply_to: inReplyTo } : {}),
  });
}

/** FIPA SC00026 cancel: withdraws `ask`; in_reply_to lets the specialist's router find the exchange. */
export function cancelOf(ask: Envelope, reason: string): Envelope {
  return makeEnvelope({
    performative: 'CANCEL', sender: ask.sender, receiver: ask.receiver, conversation_id: ask.conversation_id,
    protocol: ask.protocol, in_reply_to: ask.reply_with, content: { reason: reason.slice(0, 200) },
  });
}

export function presenterReply(request: Envelope, text: string, rich: object): Envelope {
  return replyTo(request, { performative: 'INFORM', content: { type: 'PRESENTER_REPLY', text: text.slice(0, 32000), rich } });
}

export function presenterFailure(request: Envelope, code: ErrorCode, detail: string): Envelope {
  return replyTo(request, { performative: 'FAILURE', content: errorContent(code, detail) });
}

/** True when `event` answers `sent` (correlation rule of seed contract §1). */
export function answers(event: InboundEvent, sent: Envelope | undefined): boolean {
  return sent !== undefined && event.envelope.in_reply_to === sent.reply_with;
}

/** The Presenter withdrew the person's question: CANCEL in_reply_to the USER_MSG. */
export function isCancelOf(event: InboundEvent, request: Envelope): boolean {
  return event.envelope.performative === 'CANCEL' && event.envelope.in_reply_to === request.reply_with;
}

/** "REFUSE busy", "FAILURE INVALID_ARGS: …": a short cause for notes and human detail text. */
export function reasonOf(env: Envelope): { reason: string; detail?: string } {
  const c = env.content;
  const reason = typeof c.reason === 'string' ? c.reason : env.performative;
  // AGORA_ERROR carries its detail as `message` (Agora v1.0 §4 ERROR).
  const detail = typeof c.detail === 'string' ? c.detail : typeof c.message === 'string' ? c.message : '';
  return detail !== '' ? { reason, detail } : { reason };
}

export function contentType(env: Envelope): string | undefined {
  return typeof env.content.type === 'string' ? env.content.type : undefined;
}

/** STORE_FACT for an answer (seed contract §2.4), scoped to the person when the Presenter named one. */
export function answerFact(
  request: Envelope, a: { question: string; answer: string; answeredBy: string; confidence: number }, subject?: string,
): object {
  const fact = (question: string, answer: string) => ({
    type: 'STORE_FACT',
    fact: {
      session_id: request.conversation_id, slot: 'answer',
      value: { question, answer, answered_by: a.answeredBy },
      confidence: a.confidence, ts: nowIso(), ...(subject ? { subject } : {}),
    },
  });
  // A long question with a long answer (each within its own 64 kB) can be over 64 kB together:
  // such a STORE_FACT would not be sent (shared/runtime outbound-fit.ts), its STORED never come,
  // and KbHealth take the KB for slow. The KB keeps an abridged copy instead.
  let content = fact(a.question, a.answer);
  for (let keep = 0.8; contentByteSize(content) > MAX_CONTENT_BYTES && keep > 0.01; keep *= 0.8) {
    content = fact(abridged(a.question, Math.min(2000, a.question.length)), abridged(a.answer, Math.floor(a.answer.length * keep)));
  }
  return content;
}

/** `text` cut to at most `chars` UTF-16 units and marked "…" (never half a surrogate pair). */
function abridged(text: string, chars: number): string {
  if (text.length <= chars) return text;
  const cut = text.slice(0, chars);
  return `${/[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut}…`;
}
