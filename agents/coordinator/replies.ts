// Turns what the Coordinator learned into what the person reads: PRESENTER_REPLY text and the
// human-readable detail of FAILUREs (the Presenter shows detail as is). Pure, no I/O.
import { DateTime } from 'luxon';
import type { ErrorCode } from '../../shared/acl/index.js';
import type { AgentProfile, StoredFact } from '../../shared/contracts/index.js';

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

/** Refusals that say nothing to a person: "not mine" and "full right now". */
const UNINFORMATIVE: ReadonlySet<string> = new Set(['OUT_OF_SCOPE', 'busy', 'BUSY', 'NOT-UNDERSTOOD', 'REFUSE', 'FAILURE']);
const isBusyReason = (reason: string) => reason.toLowerCase() === 'busy';
/** How many examples the friendly fallback suggests. */
const MAX_SUGGESTIONS = 3;

function timedOut(a: Attempt, t: { agreeTimeoutMs: number; resultTimeoutMs: number }): string {
  if (a.reason === 'CFP') return `${a.candidate} made no offer in time`;
  return a.reason === 'AGREE'
    ? `${a.candidate} did not take the question within ${seconds(t.agreeTimeoutMs)}`
    : `${a.candidate} took the question but did not answer within ${seconds(t.resultTimeoutMs)}`;
}

/**
 * The examples specialists name in their OUT_OF_SCOPE detail ("it answers arithmetic (e.g.
 * "what is 17 * 23?"), …"): what this system can do right now, from the refusals themselves.
 */
export function suggestionsFrom(attempts: readonly Attempt[]): string[] {
  const seen = new Set<string>();
  for (const a of attempts) {
    for (const m of (a.detail ?? '').matchAll(/e\.g\. "([^"]{1,80})"/g)) if (m[1]) seen.add(m[1]);
  }
  return [...seen].slice(0, MAX_SUGGESTIONS);
}

/**
 * What a question nobody took was about, when the system can do something near it or must say it
 * cannot: "remind me …" (no reminders), "the weather in Paris" (offline), "move my appointment"
 * (the scheduling words). Checked in order; the first that matches is said before the examples.
 */
const NEAR: ReadonlyArray<[RegExp, string]> = [
  [/\b(?:remind(?:er)?s?|alarm|wake\s+me)\b/i, "I can't set reminders. I can book a meeting in everyone's calendar (\"schedule 30 min with bob tomorrow at 10\") or give someone a task with a due date (\"assign 'Q1 report' to bob by Friday\")."],
  [/\b(?:weather|forecast|news|stocks?|share\s+price|exchange\s+rates?|bitcoin|search\s+the\s+web|google)\b/i, "I work offline, without the internet, so I can't look up the weather, news or prices."],
  // "convert 100 usd to eur": money needs today's rates (a unit the maths specialist does not take).
  [/\b(?:usd|eur|gbp|jpy|chf|cad|aud|cny|inr|dollars?|euros?|yen|francs?|rupees?|currenc(?:y|ies))\b|[$€£¥]\s*\d/i, "I work offline, without the internet, so I don't know today's exchange rates."],
  // "decline the meeting with alice": invitations are answered by the person's calendar agent.
  [/\b(?:decline|reject|refuse|leave|skip|accept)\b.*\b(?:meeting|invitation|invite|appointment|call)s?\b/i,
    'Your calendar answers invitations for you: it accepts one when you are free then. If you can\'t make a meeting someone else booked, say e.g. "I can\'t make the meeting on monday" and I tell them; one you booked, "cancel meeting 1" or "move meeting 1 to 3pm" ("my meetings" lists them).'],
  [/\b(?:meetings?|appointments?|calendar|schedule|booking|call\s+with)\b/i, 'For meetings, say e.g. "schedule 30 min with bob tomorrow afternoon", "my meetings" or "when is bob free tomorrow?".'],
  [/\b(?:tasks?|to-?dos?|assign(?:ment)?)\b/i, 'For tasks, say e.g. "assign \'Q1 report\' to bob by Friday" or "my tasks".'],
  // General knowledge: nothing here knows it, and saying so beats "I can't help" with no reason.
  [/\b(?:capital\s+(?:city\s+)?of|population\s+of|president\s+of|prime\s+minister\s+of|who\s+(?:(?:is|was)\s+(?!free|available|busy|online|here|there|in\b|on\b|coming|attending)|invented|wrote|discovered|painted)|when\s+(?:was|did)\s+\w+\s+(?:born|die|invented|founded|built))\b/i,
    "I have no encyclopaedia: my specialists know maths, time and dates, word definitions and your calendars."],
];

/** The friendly answer to a question nobody could take: what it was near, or what to try instead (issue 16). */
export function fallbackText(suggestions: readonly string[], question = ''): string {
  const near = NEAR.find(([re]) => re.test(question))?.[1];
  if (near) return `${near} Say "help" to see everything I can do.`;
  const quoted = suggestions.map((s) => `"${s}"`);
  const tries = quoted.length === 0 ? '' : quoted.length === 1 ? ` Try e.g. ${quoted[0]}.` : ` Try e.g. ${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}.`;
  return `I can't help with that one.${tries} Say "help" to see everything I can do.`;
}

/**
 * Seed contract §3/§4, list exhausted: SPECIALIST_TIMEOUT when one timed out, else the
 * specialist's FAILURE reason when one failed, else (negotiated flow) OFFER_EXPIRED when an offer
 * ran out, else BUDGET_EXCEEDED (Agora 402) when offers were only too dear, else NO_CANDIDATE
 * (all refused, or nobody listed).
 * The detail is what the person reads (one plain sentence, issue 16): the useful reason one
 * specialist gave, or what to try instead; every attempt's code stays in the `exhausted` note.
 */
export function exhausted(attempts: readonly Attempt[], t: { agreeTimeoutMs: number; resultTimeoutMs: number }, question?: string): { code: ErrorCode; detail: string } {
  if (attempts.length === 0) {
    return { code: 'NO_CANDIDATE', detail: 'No specialist is online right now, so I cannot answer questions yet. Please try again later.' };
  }
  const late = attempts.find((a) => a.outcome === 'timeout');
  if (late) return { code: 'SPECIALIST_TIMEOUT', detail: `${timedOut(late, t)}.` };
  const failed = [...attempts].reverse().find((a) => a.outcome === 'failed');
  if (failed) {
    const code = (SPECIALIST_REASONS.has(failed.reason) ? failed.reason : 'INTERNAL_ERROR') as ErrorCode;
    return { code, detail: failed.detail && code === 'INVALID_ARGS' ? failed.detail : `${failed.candidate} could not finish it.` };
  }
  if (attempts.some((a) => a.outcome === 'expired')) return { code: 'OFFER_EXPIRED', detail: 'No offer could be accepted in time.' };
  const dear = attempts.find((a) => a.outcome === 'over-budget');
  if (dear) return { code: 'BUDGET_EXCEEDED', detail: `Every offer exceeded the budget (${dear.detail ?? dear.reason}).` };
  const busy = attempts.filter((a) => a.outcome === 'refused' && isBusyReason(a.reason)).map((a) => a.candidate);
  if (busy.length > 0) return { code: 'NO_CANDIDATE', detail: `Every specialist that can answer this is busy right now (${[...new Set(busy)].join(', ')}). Please try again in a moment.` };
  // A refusal with a reason the person can act on ("only 1..3999") is that reason.
  const useful = attempts.find((a) => a.outcome === 'refused' && !UNINFORMATIVE.has(a.reason) && a.detail);
  if (useful?.detail) return { code: 'NO_CANDIDATE', detail: useful.detail };
  return { code: 'NO_CANDIDATE', detail: fallbackText(suggestionsFrom(attempts), question) };
}

/** "answer both: a; b" (the plan skill's own prefix, skills/plan/skill.json). */
const MULTI_PART = /^\s*(?:plan|answer\s+(?:both|all|each)|do\s+(?:both|all))\s*:\s*/i;
/** "… and what time is it in Tokyo?": a second question joined by "and" starts with a question word. */
const AND_ASKED = /\s+and\s+(?=(?:what|what's|when|where|who|how|which|why|is|are|does|do|can|could|will)\s)/i;
/**
 * The parts of a question of several: "answer both: a; b", questions one after another in one
 * line ("what is 2+2? and what time is it in Tokyo?"), or joined by "and" before a question word
 * ("what is 3 + 4 and what time is it in Tokyo?"), each part a question of its own.
 */
function partsOf(question: string): string[] {
  const tidy = (ps: string[]) => ps.map((p) => p.trim().replace(/^(?:and|also|then)\s+/i, '').replace(/[?!.]+$/, '')).filter((p) => p.length >= 2);
  if (MULTI_PART.test(question)) return tidy(question.replace(MULTI_PART, '').split(/\s*;\s*|\n+/));
  const asked = question.split(/(?<=\?)\s+/);
  if (asked.length >= 2 && asked.every((p) => /\?\s*$/.test(p))) return tidy(asked);
  const joined = /^\s*(?:what|what's|when|where|who|how|which|why|is|are|does|do|can|could|will)\s/i.test(question) ? question.split(AND_ASKED) : [];
  return joined.length >= 2 && joined.every((p) => p.trim().split(/\s+/).length >= 2) ? tidy(joined) : [];
}

/** Skills that answer every part of such a question themselves (plan splits it; llm calls a tool per part). */
const ANSWERS_ALL_PARTS: ReadonlySet<string> = new Set(['plan', 'llm']);

/**
 * Issue 16, "never silently half": a question of several parts ("answer both: a; b") that a
 * single-part skill answered — which happens when no planner is online and one specialist
 * recognised one part — gets a line saying so and listing the parts to ask one at a time.
 * undefined when the question has one part or a skill that handles every part answered it
 * (`partsAnswered`: the parts the skill says it answered).
 */
export function partialAnswerNote(question: string, skill: string | undefined, answeredBy: string, partsAnswered = 1): string | undefined {
  if (skill !== undefined && ANSWERS_ALL_PARTS.has(skill)) return undefined;
  const parts = partsOf(question);
  // A skill that answered every part itself says so (meta.parts: "10 km in miles and 5 kg in lb").
  if (parts.length < 2 || partsAnswered >= parts.length) return undefined;
  const list = parts.slice(0, 5).map((p) => `"${p.length > 80 ? `${p.slice(0, 79)}…` : p}"`).join(', ');
  return `Only part of your question was answered: it has ${parts.length} parts, ${answeredBy} answered it as one question, and no planner is online to answer the parts together. Ask them one at a time: ${list}.`;
}

export const DIRECTORY_UNAVAILABLE = 'I could not reach the directory of specialists just now. Please try again shortly.';

/**
 * The answer text. Whether the KB kept it travels as rich.kb; the Presenter, which renders
 * everything people read, turns that into a note (one wording, in one place).
 */
export function answerText(answer: string): string {
  return answer === '' ? '(the specialist returned an empty answer)' : answer;
}

export const BUILT_INS = [
  { command: 'help', description: 'show this list' },
  { command: 'new', description: 'start a new conversation' },
  { command: 'what did you tell me about X?', description: 'recall answers I gave you about X ("history": the latest ones)' },
  { command: 'my time zone is Europe/Berlin', description: 'read and show your times in your zone (tz Europe/Berlin sets it, tz shows it)' },
  { command: 'session start <title>', description: 'make this conversation a coordination session with a shared plan: session add <step>, session done <n>, session, session close' },
] as const;

/** Shown when people have calendar agents (OACoP): the scheduling and task commands. */
export const MEETING_COMMANDS = [
  { command: 'schedule 30 min with bob and carol tomorrow afternoon in a room for 3', description: 'book the earliest slot all can make, with the invitation (.ics)' },
  { command: 'meet 30m bob,carol 2026-12-10T09:00Z..2026-12-12T18:00Z room', description: 'the same, strictly (times in UTC)' },
  { command: 'book a room for 4 for 1 hour tomorrow at 10', description: 'a room for you alone; "in atlas" names one, "rooms" lists them' },
  { command: 'when is bob free tomorrow?', description: 'free time from the calendars ("am I free at 3pm?", "are bob and carol free …?"); nothing is booked' },
  { command: 'cancel that meeting', description: 'cancel the last meeting you booked ("cancel my 3pm meeting", "… with bob", "tomorrow\'s meeting" say which); everyone is told' },
  { command: 'move that meeting to 3pm', description: 'move it in every calendar and the room at once ("move meeting 2 to friday at 11", "… an hour later")' },
  { command: "assign 'Q1 report' to bob by Friday", description: 'give someone a task; you hear each update' },
  { command: 'my meetings, my tasks', description: 'the meetings ahead I booked for you and your open tasks (agenda: both)' },
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

/** The rooms, smallest first (decide.ts orders rooms asked the same way). */
export function roomsOf(profiles: readonly AgentProfile[]): Array<{ name: string; capacity: number }> {
  return profiles.filter(isRoom).map((p) => ({ name: p.name.replace(/^room-/, ''), capacity: p.room?.capacity ?? 0 }))
    .sort((a, b) => a.capacity - b.capacity || a.name.localeCompare(b.name));
}

/** "which rooms are there?": each room with its seats, and how to book one. */
export function roomsText(profiles: readonly AgentProfile[] | undefined): string {
  if (profiles === undefined) return 'I could not reach the directory just now, so I cannot list the rooms. Please try again shortly.';
  const rooms = roomsOf(profiles);
  if (rooms.length === 0) return 'There are no rooms here to book.';
  const seats = (n: number) => `${n} ${n === 1 ? 'seat' : 'seats'}`;
  return [`The rooms: ${rooms.map((r) => `${r.name} (${seats(r.capacity)})`).join(', ')}.`,
    `Book one with e.g. "book a room for 4 for 1 hour tomorrow at 10" or "schedule 30 min with bob tomorrow in ${rooms[0]?.name}".`].join('\n');
}

const OPENERS: Record<string, string> = {
  hello: "Hello! I'm Parley, an assistant backed by a team of specialists.",
  who: "I'm Parley, an assistant backed by a team of specialists: each question goes to the one that knows the answer, and meetings go to everyone's calendar.",
  thanks: "You're welcome!",
  bye: 'Bye! Write any time.',
  ack: 'All right.',
  how: "I'm fine, thank you: every specialist is at work.",
};

// Clean, short, offline; picked by the line's own id, so asking again gets another.
const JOKES = [
  'Why do programmers prefer dark mode? Because light attracts bugs.',
  'I would tell you a UDP joke, but you might not get it.',
  'Why did the two calendar agents break up? They had no time for each other.',
  'There are 10 kinds of people: those who read binary and those who do not.',
  'Why was the calendar so popular? It had a lot of dates.',
  'A SQL query walks into a bar, goes up to two tables and asks: "May I join you?"',
  'Why did the agent refuse the request? It did not like the protocol.',
  'Time flies like an arrow; fruit flies like a banana.',
];
const jokeFor = (seed: string): string => JOKES[[...seed].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7) % JOKES.length] as string;

/** "hello"/"thanks": one friendly line and a few things to try, from the live directory (issue 16). */
export function briefText(greeting: string, profiles: readonly AgentProfile[] | undefined, seed = ''): string {
  if (greeting === 'joke') return `${jokeFor(seed)} Say "another joke" for one more, or "help" to see what I can do.`;
  const examples = (profiles ?? []).filter((p) => !isCalendar(p) && !isRoom(p)).map((p) => p.examples?.[0]).filter((e): e is string => !!e);
  const unique = [...new Set(examples)].slice(0, 3).map((e) => `"${e}"`);
  const tries = unique.length === 0 ? '' : ` Try e.g. ${unique.length === 1 ? unique[0] : `${unique.slice(0, -1).join(', ')} or ${unique.at(-1)}`}.`;
  const quiet = greeting === 'bye' || greeting === 'ack';
  return `${OPENERS[greeting] ?? OPENERS.hello}${quiet ? '' : tries} Say "help" to see everything I can do.`;
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** A fact's time in the person's zone (issue 16: every time shown is in it). */
function when(ts: string, zone: string): string {
  const d = DateTime.fromISO(ts, { zone: 'utc' });
  if (!d.isValid) return ts;
  const local = d.setZone(zone);
  // The zone's name, as every other time shown to a person (scheduling/texts.ts), not "GMT+1".
  return local.isValid ? `${local.toFormat('yyyy-MM-dd HH:mm')} ${zone}` : `${d.toFormat('yyyy-MM-dd HH:mm')} UTC`;
}

function factLine(f: StoredFact, zone: string): string {
  const v = f.value;
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    if (typeof o.answer === 'string') {
      const q = typeof o.question === 'string' ? `you asked "${clip(o.question, 200)}" and ` : '';
      const by = typeof o.answered_by === 'string' ? ` (${o.answered_by})` : '';
      return `• ${when(f.ts, zone)}: ${q}I answered "${clip(o.answer, 500)}"${by}`;
    }
  }
  return `• ${when(f.ts, zone)}: ${clip(typeof v === 'string' ? v : JSON.stringify(v), 500)}`;
}

/** Recall: newest first; "I have not told you anything about X." when nothing matched. */
/** `topic` '' ("what did I ask you before?"): the latest answers on anything. */
export function recallText(topic: string, facts: readonly StoredFact[], zone = 'UTC'): string {
  if (facts.length === 0) return topic ? `I have not told you anything about ${topic}.` : 'You have not asked me anything yet.';
  const sorted = [...facts].sort((a, b) => (a.ts < b.ts ? 1 : a.ts > b.ts ? -1 : 0));
  return [topic ? `Here is what I told you about ${topic}:` : 'Here is what I told you last:', ...sorted.map((f) => factLine(f, zone))].join('\n');
}
