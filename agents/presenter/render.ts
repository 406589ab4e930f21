// Turning the Coordinator's answers into plain text for a person (seed contract §2.5, §4).
// Pure: every FAILURE reason, NOT-UNDERSTOOD and REFUSE gets a clear sentence; the
// machine-readable reason stays in telemetry, the person reads words.
import type { Envelope } from '../../shared/acl/index.js';

/** USER_MSG text limit (contracts/user-msg.json maxLength, counted in code points like ajv). */
export const MAX_TEXT_CHARS = 16000;
/** How much of a peer's `detail` we show a person. */
const MAX_DETAIL_CHARS = 300;

export const TEXT = {
  timeout: 'Sorry, no answer arrived in time.',
  /** The line after PARLEY_PRESENTER_PROGRESS_MS without an answer: who has it, and how long it may take. */
  working: (resultTimeoutMs: number | undefined, by?: string) => {
    const limit = resultTimeoutMs ? `${Math.round(resultTimeoutMs / 1000)} s` : undefined;
    const who = by
      ? `${by} is working on your question${limit ? ` (a specialist has up to ${limit} to answer)` : ''}`
      : `the Coordinator has passed your question to the specialists${limit ? `, and each has up to ${limit} to answer` : ''}`;
    return `Still working on it: ${who}. I'll write as soon as there is an answer.`;
  },
  newConversation: 'Started a new conversation.',
  slowDown: (setAside: number, ratePerS: number, atOnce: number) =>
    `You're sending messages faster than I can answer, so I've set aside ${setAside === 1 ? 'one message' : `${setAside} messages`} without answering ${setAside === 1 ? 'it' : 'them'}. `
    + `I take about ${ratePerS} a second and work on ${atOnce} at a time; please wait for my answers and send what I set aside again, more slowly.`,
  notAllowed: 'Sorry, this assistant is not available to your account.',
  /** A number past the choices last shown (shown-choices.ts). */
  noSuchChoice: (count: number) => (count === 1 ? 'There is only one choice: reply 1 to take it.' : `There is no such choice: reply a number from 1 to ${count}.`),
  /** "times 2" with no number told lately to go on from (last-value.ts). */
  nothingToGoOn: 'Go on from what? "times 2", "plus 5" or "divide that by 3" work right after I answer a calculation with a number: ask one first, e.g. "what is 17 * 23?".',
  kbNote: '(not saved to memory: the knowledge base is unavailable, so I cannot recall this later)',
  kbStoreFailedNote: '(not saved to memory: the knowledge base could not store it, so I cannot recall this later)',
  tooLong: (chars: number) =>
    `Sorry, that message is too long (${chars} characters; the limit is ${MAX_TEXT_CHARS}). Please shorten it.`,
} as const;

/**
 * Seed contract §4 reasons, plus the pipeline's FAILURE codes, in words. The Coordinator's
 * `detail` is written for the person (agents/coordinator/replies.ts): one plain sentence carries
 * it; the code itself stays in the trace (issue 16).
 */
const FAILURE_TEXT: Record<string, (detail: string | undefined) => string> = {
  NO_CANDIDATE: (d) => d ?? 'Sorry, none of the specialists can answer that right now.',
  SPECIALIST_TIMEOUT: (d) => `Sorry, no answer arrived in time${d ? ` (${d.replace(/\.$/, '')})` : ''}. Please try again in a moment.`,
  INVALID_ARGS: (d) => (d ? `Sorry, I could not answer that: ${d}` : 'Sorry, the specialist could not work with that question. Could you rephrase it?'),
  INTERNAL_ERROR: (d) => withDetail('Sorry, something went wrong on our side while answering.', d),
  KB_UNAVAILABLE: (d) => withDetail('Sorry, the knowledge base is unavailable right now, so I could not answer that.', d),
  KB_STORE_FAILED: (d) => withDetail('Sorry, the knowledge base could not store this, so I could not answer that.', d),
  TIMEOUT: (d) => withDetail('Sorry, the work took too long.', d),
  NOT_REGISTERED: (d) => withDetail('Sorry, a specialist was not available (its registration had lapsed). Please try again.', d),
  BUDGET_EXCEEDED: (d) => withDetail('Sorry, every specialist asked more than the budget allows for this question.', d),
  OFFER_EXPIRED: (d) => withDetail('Sorry, the specialist\'s offer expired before it could be accepted. Please try again.', d),
  WORK_LOST: (d) => withDetail('Sorry, the specialist restarted and lost the question. Please try again.', d),
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

/** FAILURE {reason, detail} → one sentence by reason that carries the detail. */
export function renderFailure(content: Record<string, unknown>): string {
  const reason = str(content.reason) ?? 'INTERNAL_ERROR';
  const detail = str(content.detail);
  const text = FAILURE_TEXT[reason];
  return text ? text(detail === undefined ? undefined : clip(detail)) : withDetail('Sorry, the request failed.', detail);
}

/** NOT-UNDERSTOOD / REFUSE from the Coordinator: an apology in words (the code is in the trace). */
export function renderRejection(performative: string, content: Record<string, unknown>): string {
  const what = performative === 'REFUSE' ? 'Sorry, I cannot do that request' : 'Sorry, I could not understand that request';
  const detail = str(content.detail);
  return detail ? `${what}: ${clip(detail)}` : `${what}.`;
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
