// Turns what the Coordinator learned into what the person reads: PRESENTER_REPLY text and the
// human-readable detail of FAILUREs (the Presenter shows detail as is). Pure, no I/O.
import type { ErrorCode } from '../../shared/acl/errors.js';
import type { AgentProfile, StoredFact } from '../../shared/contracts/types.gen.js';

/** How one candidate's turn ended (seed contract §3 RETRY_NEXT causes). */
export interface Attempt {
  candidate: string;
  /** expired / over-budget: an offer of the negotiated flow that could not be accepted. */
  outcome: 'refused' | 'timeout' | 'failed' | 'expired' | 'over-budget';
  /** REFUSE/FAILURE reason, or AGREE/RESULT for a timeout. */
  reason: string;
  detail?: string;
}

export type KbOutcome = 'stored' | 'KB_STORE_FAILED' | 'KB_UNAVAILABLE';

/** Reasons a specialist may give in FAILURE (seed contract §2.3); anything else is INTERNAL_ERROR. */
const SPECIALIST_REASONS: ReadonlySet<string> = new Set(['INVALID_ARGS', 'INTERNAL_ERROR', 'TIMEOUT']);

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

function describe(a: Attempt, t: { agreeTimeoutMs: number; resultTimeoutMs: number }): string {
  if (a.outcome === 'timeout') {
    if (a.reason === 'CFP') return `${a.candidate} made no offer in time`;
    return a.reason === 'AGREE'
      ? `${a.candidate} did not accept within ${seconds(t.agreeTimeoutMs)}`
      : `${a.candidate} accepted but did not answer within ${seconds(t.resultTimeoutMs)}`;
  }
  if (a.outcome === 'expired') return `${a.candidate}'s offer expired before it could be accepted`;
  if (a.outcome === 'over-budget') return `${a.candidate} asked more than the budget (${a.detail ?? a.reason})`;
  const why = a.detail ? `${a.reason}: ${a.detail}` : a.reason;
  return a.outcome === 'refused' ? `${a.candidate} declined (${why})` : `${a.candidate} failed (${why})`;
}

/**
 * Seed contract §3/§4, list exhausted: SPECIALIST_TIMEOUT when one timed out, else the
 * specialist's FAILURE reason when one failed, else (negotiated flow) OFFER_EXPIRED when an offer
 * ran out, else BUDGET_EXCEEDED (Agora 402) when offers were only too dear, else NO_CANDIDATE
 * (all refused, or nobody listed).
 */
export function exhausted(attempts: readonly Attempt[], t: { agreeTimeoutMs: number; resultTimeoutMs: number }): { code: ErrorCode; detail: string } {
  if (attempts.length === 0) {
    return { code: 'NO_CANDIDATE', detail: 'No specialist is available to answer questions right now. Please try again later.' };
  }
  const tried = attempts.map((a) => describe(a, t)).join('; ');
  if (attempts.some((a) => a.outcome === 'timeout')) {
    return { code: 'SPECIALIST_TIMEOUT', detail: `No specialist answered in time: ${tried}.` };
  }
  const failed = [...attempts].reverse().find((a) => a.outcome === 'failed');
  if (failed) {
    const code = (SPECIALIST_REASONS.has(failed.reason) ? failed.reason : 'INTERNAL_ERROR') as ErrorCode;
    return { code, detail: `Your question could not be answered: ${tried}.` };
  }
  if (attempts.some((a) => a.outcome === 'expired')) return { code: 'OFFER_EXPIRED', detail: `No offer could be accepted in time: ${tried}.` };
  if (attempts.some((a) => a.outcome === 'over-budget')) return { code: 'BUDGET_EXCEEDED', detail: `Every offer exceeded the budget: ${tried}.` };
  return { code: 'NO_CANDIDATE', detail: `Every specialist declined your question: ${tried}.` };
}

export const DIRECTORY_UNAVAILABLE = 'directory unavailable: the Registry did not answer, so no specialist could be found. Please try again shortly.';

/**
 * The answer text. Whether the KB kept it travels as rich.kb; the Presenter, which renders
 * everything people read, turns that into a note (one wording, in one place).
 */
export function answerText(answer: string, _kb: KbOutcome): string {
  return answer === '' ? '(the specialist returned an empty answer)' : answer;
}

export const BUILT_INS = [
  { command: 'help', description: 'show this list' },
  { command: 'new', description: 'start a new conversation' },
  { command: 'what did you tell me about X?', description: 'recall answers I gave you about X' },
  { command: 'my time zone is Europe/Berlin', description: 'read and show your times in your zone (/tz shows it)' },
  { command: 'session start <title>', description: 'make this conversation a coordination session with a shared plan: session add <step>, session done <n>, session, session close' },
] as const;

/** Shown when people have calendar agents (OACoP): the scheduling and task commands. */
export const MEETING_COMMANDS = [
  { command: 'schedule 30 min with bob and carol tomorrow afternoon in a room for 3', description: 'book the earliest slot all can make, with the invitation (.ics)' },
  { command: 'cancel that meeting', description: 'cancel the last meeting you booked; everyone is told' },
  { command: "assign 'Q1 report' to bob by Friday", description: 'give someone a task; you hear each update' },
] as const;

const isCalendar = (p: AgentProfile) => p.capabilities.includes('CALENDAR');
const isRoom = (p: AgentProfile) => p.capabilities.includes('ROOM');
const roomLine = (p: AgentProfile) => `${p.name.replace(/^room-/, '')}${p.room?.capacity ? ` (${p.room.capacity})` : ''}`;

/**
 * Help (issue "seed contract end to end"): what the live directory can do now — the specialists
 * with their examples, the meeting commands when people have calendars (with the rooms), and the
 * built-ins. Calendars and rooms are summarised, not listed one per line like experts.
 */
export function helpText(profiles: readonly AgentProfile[] | undefined): string {
  const lines: string[] = [];
  const experts = (profiles ?? []).filter((p) => !isCalendar(p) && !isRoom(p));
  const calendars = (profiles ?? []).filter(isCalendar);
  const rooms = (profiles ?? []).filter(isRoom);
  if (profiles === undefined) {
    lines.push('I could not reach the directory just now, so I cannot list the specialists that are online.');
  } else if (experts.length === 0) {
    lines.push('No specialists are online right now, so I cannot answer questions yet.');
  } else {
    lines.push('You can ask me questions; these specialists are online:');
    for (const p of experts) {
      const about = p.description ? ` — ${p.description}` : '';
      const examples = (p.examples ?? []).slice(0, 3).map((e) => `"${e}"`).join(', ');
      lines.push(`• ${p.name}${about}${examples ? `\n  e.g. ${examples}` : ''}`);
    }
  }
  if (calendars.length > 0) {
    lines.push('', `Meetings and tasks (${calendars.length} ${calendars.length === 1 ? 'person has' : 'people have'} a calendar${rooms.length ? `; rooms: ${rooms.map(roomLine).join(', ')}` : ''}):`);
    for (const m of MEETING_COMMANDS) lines.push(`• ${m.command} — ${m.description}`);
  }
  lines.push('', 'Commands:');
  for (const b of BUILT_INS) lines.push(`• ${b.command} — ${b.description}`);
  return lines.join('\n');
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

function when(ts: string): string {
  const d = new Date(ts);
  return Number.isNaN(d.getTime()) ? ts : `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

function factLine(f: StoredFact): string {
  const v = f.value;
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    if (typeof o.answer === 'string') {
      const q = typeof o.question === 'string' ? `you asked "${clip(o.question, 200)}" and ` : '';
      const by = typeof o.answered_by === 'string' ? ` (${o.answered_by})` : '';
      return `• ${when(f.ts)}: ${q}I answered "${clip(o.answer, 500)}"${by}`;
    }
  }
  return `• ${when(f.ts)}: ${clip(typeof v === 'string' ? v : JSON.stringify(v), 500)}`;
}

/** Recall: newest first; "I have not told you anything about X." when nothing matched. */
export function recallText(topic: string, facts: readonly StoredFact[]): string {
  if (facts.length === 0) return `I have not told you anything about ${topic}.`;
  const sorted = [...facts].sort((a, b) => (a.ts < b.ts ? 1 : a.ts > b.ts ? -1 : 0));
  return [`Here is what I told you about ${topic}:`, ...sorted.map(factLine)].join('\n');
}
