// Turning the Coordinator's answers into plain text for a person (seed contract §2.5, §4).
// Pure: every FAILURE reason, NOT-UNDERSTOOD and REFUSE gets a clear sentence; the
// machine-readable reason stays in telemetry, the person reads words.
import type { Envelope } from '../../shared/acl/envelope.js';

/** USER_MSG text limit (contracts/user-msg.json maxLength, counted in code points like ajv). */
export const MAX_TEXT_CHARS = 16000;
/** How much of a peer's `detail` we show a person. */
const MAX_DETAIL_CHARS = 300;

export const TEXT = {
  timeout: 'Sorry, no answer arrived in time.',
  newConversation: 'Started a new conversation.',
  notAllowed: 'Sorry, this assistant is not available to your account.',
  kbNote: '(not saved to memory: the knowledge base is unavailable, so I cannot recall this later)',
  kbStoreFailedNote: '(not saved to memory: the knowledge base could not store it, so I cannot recall this later)',
  tooLong: (chars: number) =>
    `Sorry, that message is too long (${chars} characters; the limit is ${MAX_TEXT_CHARS}). Please shorten it.`,
} as const;

/** Seed contract §4 reasons, plus the pipeline's FAILURE codes, in words. */
const FAILURE_TEXT: Record<string, string> = {
  NO_CANDIDATE: 'Sorry, none of the specialists can answer that right now.',
  SPECIALIST_TIMEOUT: 'Sorry, the specialist took too long to answer. Please try again in a moment.',
  INVALID_ARGS: 'Sorry, the specialist could not work with that question. Could you rephrase it?',
  INTERNAL_ERROR: 'Sorry, something went wrong on our side while answering.',
  KB_UNAVAILABLE: 'Sorry, the knowledge base is unavailable right now, so I could not answer that.',
  KB_STORE_FAILED: 'Sorry, the knowledge base could not store this, so I could not answer that.',
  TIMEOUT: 'Sorry, the work took too long.',
  NOT_REGISTERED: 'Sorry, a specialist was not available (its registration had lapsed). Please try again.',
  BUDGET_EXCEEDED: 'Sorry, every specialist asked more than the budget allows for this question.',
  OFFER_EXPIRED: 'Sorry, the specialist\'s offer expired before it could be accepted. Please try again.',
};

/** Code points, the unit of JSON Schema maxLength (an emoji counts once). */
export function charCount(text: string): number {
  let n = 0;
  for (const _ of text) n += 1;
  return n;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

function clip(text: string): string {
  return text.length > MAX_DETAIL_CHARS ? `${text.slice(0, MAX_DETAIL_CHARS - 1)}…` : text;
}

function withDetail(sentence: string, detail: string | undefined): string {
  return detail ? `${sentence} (${clip(detail)})` : sentence;
}

/** INFORM PRESENTER_REPLY → text, noting when the answer was not stored (rich.kb). */
export function renderReply(content: Record<string, unknown>): string {
  const text = str(content.text) ?? '(the answer was empty)';
  const rich = content.rich as Record<string, unknown> | undefined;
  const kb = rich?.kb;
  if (kb === 'KB_UNAVAILABLE') return `${text}\n${TEXT.kbNote}`;
  if (kb === 'KB_STORE_FAILED') return `${text}\n${TEXT.kbStoreFailedNote}`;
  return text;
}

/** FAILURE {reason, detail} → a sentence by reason, with the detail in brackets. */
export function renderFailure(content: Record<string, unknown>): string {
  const reason = str(content.reason) ?? 'INTERNAL_ERROR';
  const sentence = FAILURE_TEXT[reason] ?? `Sorry, the request failed (${reason}).`;
  return withDetail(sentence, str(content.detail));
}

/** NOT-UNDERSTOOD / REFUSE from the Coordinator: an apology that names the reason. */
export function renderRejection(performative: string, content: Record<string, unknown>): string {
  const reason = str(content.reason) ?? 'unknown reason';
  const what = performative === 'REFUSE' ? 'refused the request' : 'did not understand the request';
  return withDetail(`Sorry, the coordinator ${what}: ${reason}.`, str(content.detail));
}

/** An iCalendar invitation carried as rich.ics (docs/oacop.md): delivered as a second message. */
export function icsOf(rich: unknown): string | undefined {
  const ics = (rich as { ics?: unknown } | null | undefined)?.ics;
  return typeof ics === 'string' && ics.startsWith('BEGIN:VCALENDAR') ? ics : undefined;
}

/** Any answer envelope → text, or undefined for what is not an answer (e.g. AGREE). */
export function renderAnswer(env: Envelope): string | undefined {
  const content = env.content as Record<string, unknown>;
  switch (env.performative) {
    case 'INFORM':
      return content.type === 'PRESENTER_REPLY' ? renderReply(content) : undefined;
    case 'FAILURE':
      return renderFailure(content);
    case 'NOT-UNDERSTOOD':
    case 'REFUSE':
      return renderRejection(env.performative, content);
    default:
      return undefined;
  }
}
