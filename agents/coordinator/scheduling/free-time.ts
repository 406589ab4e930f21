// "am I free tomorrow at 3pm?", "when is bob free on monday?", "are bob and carol free tomorrow
// afternoon?": a person's free time, asked of their calendar agents the OACoP way (a CFP the
// Coordinator then withdraws with REJECT-PROPOSAL: nothing is booked, nothing held). Calendars
// answer the Coordinator with free intervals only, never what fills the rest (docs/oacop.md).
// Pure: the question's parse and the sentences; free-time-machine.ts asks.
import { DateTime } from 'luxon';
import { parseNames, parseWindow } from './parse.js';
import { dayWindow, intersect, normalise, type Window } from './slots.js';
import { MAX_ALTERNATIVES } from './decide.js';
import { bookCommand, numbered, replyPick, when } from './texts.js';
import { DEFAULT_ZONE } from './zones.js';

export interface FreeTimeQuestion {
  kind: 'free-time';
  /** Names as written; 'me' is the asker. */
  people: string[];
  /** Where to look: a day's working hours (08–18 in the asker's zone) or the window said. */
  window: Window;
  /** "at 3pm": is exactly this slot free? (30 minutes unless a length was said). */
  slot?: Window;
  /** Asked "is bob busy …?": a slot's yes and no are the other way round. */
  busy?: true;
}

// "am I free …", "is bob free …", "are bob and carol free …", "when is bob free …", "… available …".
// "am I busy tomorrow?", "is bob busy at 3pm?" ask the same: the answer says when they are free.
const FREE = /^\s*(?:when\s+)?(?:am\s+(i)|is\s+([a-z][a-z0-9._-]*)|are\s+(.+?))\s+(free|available|busy)\b\s*(.*?)\s*[?.!]*\s*$/i;

const NAMES = String.raw`([a-z][a-z0-9._-]*(?:\s*(?:,|\band\b|&)\s*[a-z][a-z0-9._-]*)*)`;
// Other ways to ask the same, each said again as "are … free …" (each got "I can't help"):
// "find a time for bob and me next week", "find a slot with bob tomorrow" (the asker is in it),
// "when can bob and I meet?", "when can I meet bob on friday?", "is there a time bob and carol
// are both free on friday?".
const SAID_AGAIN: Array<[RegExp, (names: string, rest: string) => string]> = [
  [new RegExp(String.raw`^\s*(?:please\s+|can\s+you\s+|could\s+you\s+)?(?:find|suggest|propose|look\s+for|give\s+me)\s+(?:me\s+|us\s+)?(?:a\s+|some\s+)?(?:good\s+|free\s+|common\s+)?(?:time|slot|time\s+slot|moment)s?\s+(?:for\s+(?:a\s+)?(?:meeting|call)\s+)?(?:for|with|to\s+meet(?:\s+with)?)\s+(?:me\s+and\s+)?${NAMES}(.*)$`, 'i'),
    (names, rest) => `are ${names} and I free ${rest}`],
  [new RegExp(String.raw`^\s*when\s+(?:can|could|shall|should|do)\s+i\s+meet(?:\s+up)?(?:\s+with)?\s+${NAMES}(.*)$`, 'i'), (names, rest) => `are ${names} and I free ${rest}`],
  [new RegExp(String.raw`^\s*when\s+(?:can|could|shall|should|do)\s+${NAMES}\s+meet(?:\s+up)?\b(.*)$`, 'i'), (names, rest) => `are ${names} free ${rest}`],
  [new RegExp(String.raw`^\s*is\s+there\s+(?:a\s+|any\s+)?(?:time|slot|moment)\s+(?:when\s+)?${NAMES}\s+(?:are|is)\s+(?:both\s+|all\s+)?(?:free|available)\b(.*)$`, 'i'), (names, rest) => `are ${names} free ${rest}`],
];

function saidAgain(text: string): string {
  for (const [re, as] of SAID_AGAIN) {
    const m = re.exec(text);
    if (m) return as(m[1] as string, m[2] ?? '');
  }
  // "are bob and carol both free …": "both" is no one's name.
  return text.replace(/\s+(?:both|all)\s+(?=(?:free|available|busy)\b)/i, ' ');
}

/** The question, or undefined when the line is no such question ("is it free to use?" names nobody). */
export function parseFreeTime(text: string, now: Date, zone = DEFAULT_ZONE): FreeTimeQuestion | undefined {
  const m = FREE.exec(saidAgain(text));
  if (!m) return undefined;
  // "are bob and I free …": the asker is 'me' however they name themselves, once.
  const named = m[1] ? ['me'] : m[2] ? [m[2].toLowerCase()] : parseNames(m[3] as string).required;
  const people = [...new Set(named.map((p) => (['i', 'me', 'myself'].includes(p) ? 'me' : p)))];
  if (people.length === 0 || people.some((p) => ['it', 'you', 'this', 'that', 'there', 'we', 'they'].includes(p))) return undefined;
  const rest = m[5] ?? '';
  const busy = (m[4] as string).toLowerCase() === 'busy' ? { busy: true as const } : {};
  const local = DateTime.fromJSDate(now).setZone(zone);
  const said = rest.trim() === '' ? undefined : parseWindow(rest, now, 30, zone);
  // Nothing said: the rest of today's working hours, or the next day's once they are over; a
  // Saturday or Sunday is skipped ("when is bob free?" on a Saturday evening: Monday, not a weekend
  // nobody works — the answer named a day of "outside working hours").
  let next = Date.parse(dayWindow(local, 8, 18).end) > now.getTime() ? local : local.plus({ days: 1 });
  while (next.weekday > 5) next = next.plus({ days: 1 });
  const window = said ?? dayWindow(next, 8, 18);
  const exact = said && /\b(?:at|@)\s*\d/i.test(rest) && Date.parse(said.end) - Date.parse(said.start) <= 4 * 3_600_000;
  if (!exact) return { kind: 'free-time', people, window: clampStart(window, now), ...busy };
  // "at 3pm": that slot, judged against the whole day so a "no" can say when instead.
  const day = dayWindow(DateTime.fromISO(said.start, { zone: 'utc' }).setZone(zone), 8, 18);
  const whole = { start: min(day.start, said.start), end: max(day.end, said.end) };
  return { kind: 'free-time', people, window: clampStart(whole, now), slot: said, ...busy };
}

const min = (a: string, b: string) => (Date.parse(a) <= Date.parse(b) ? a : b);
const max = (a: string, b: string) => (Date.parse(a) >= Date.parse(b) ? a : b);
const clampStart = (w: Window, now: Date): Window => (Date.parse(w.start) < now.getTime() && Date.parse(w.end) > now.getTime() ? { start: now.toISOString(), end: w.end } : w);

/** What one calendar said: its free intervals, why none ("busy", outside working hours), or silence. */
export type Answer = { free: Window[] } | { none: string };

const hhmm = (iso: string, zone: string) => DateTime.fromISO(iso, { zone: 'utc' }).setZone(zone).toFormat('HH:mm');

/** "09:00–10:00, 11:00–17:00" on one day; each with its day when the window spans several. */
/**
 * Free intervals as a person reads them: times alone within one day; over several days grouped by
 * day ("Mon 30 Nov 10:00–18:00; Tue 1 Dec 10:00–13:00, 14:00–18:00"), the year and zone said once
 * in the heading. An interval past midnight keeps both dates.
 */
function intervals(free: readonly Window[], window: Window, zone: string): string {
  const local = (iso: string) => DateTime.fromISO(iso, { zone: 'utc' }).setZone(zone);
  const oneDay = local(window.start).hasSame(local(window.end).minus({ milliseconds: 1 }), 'day');
  const shown = free.slice(0, 12);
  const more = free.length > shown.length ? ` and ${free.length - shown.length} more` : '';
  if (oneDay) return `${shown.map((w) => `${hhmm(w.start, zone)}–${hhmm(w.end, zone)}`).join(', ')}${more}`;
  const days: Array<{ day: string; times: string[] }> = [];
  for (const w of shown) {
    const [s, e] = [local(w.start), local(w.end).minus({ milliseconds: 1 })];
    const day = s.setLocale('en-GB').toFormat('ccc d LLL');
    const time = s.hasSame(e, 'day') ? `${hhmm(w.start, zone)}–${hhmm(w.end, zone)}` : `${hhmm(w.start, zone)}–${local(w.end).setLocale('en-GB').toFormat('ccc d LLL HH:mm')}`;
    const last = days[days.length - 1];
    if (last?.day === day) last.times.push(time);
    else days.push({ day, times: [time] });
  }
  return `${days.map((d) => `${d.day} ${d.times.join(', ')}`).join('; ')}${more}`;
}

const HALF_HOUR_MS = 30 * 60_000;

type Choice = { label: string; say: string };

/**
 * One other person's or a room's free time: the first 30 minutes of each free interval that long
 * (up to 3), each with the line that books it with them (parse.ts parseMeet's strict form).
 */
export function freeTimeChoices(q: FreeTimeQuestion, answers: ReadonlyArray<[string, Answer]>, zone: string, rooms: ReadonlySet<string> = new Set()): Choice[] {
  if (q.slot || !answers.every(([, a]) => 'free' in a)) return [];
  const [n] = answers[0] ?? [];
  let free: Window[];
  let names: string[];
  if (answers.length === 1 && n && n !== 'me') {
    free = (answers[0]?.[1] as { free: Window[] }).free;
    names = [n];
  } else if (answers.length > 1 && answers.some(([p]) => p === 'me')) {
    // The asker and others ("find a time for bob and me"): the times all of them share.
    free = intersect(answers.map(([, a]) => (a as { free: Window[] }).free), q.window);
    names = answers.map(([p]) => p).filter((p) => p !== 'me');
  } else return [];
  const room = names.filter((p) => rooms.has(p));
  if (room.length > 1) return [];
  const people = names.filter((p) => !rooms.has(p));
  return halfHours(free).map((start) => {
    const slot = { start: new Date(start).toISOString(), end: new Date(start + HALF_HOUR_MS).toISOString() };
    return { label: when(slot, zone), say: bookCommand(slot, room[0] ? { minutes: 30, names: people, roomWanted: true, room: `room-${room[0]}` } : { minutes: 30, names: people, roomWanted: false }) };
  });
}

/**
 * Up to MAX_ALTERNATIVES half-hour starts: the first of each free interval, then, when there are
 * fewer intervals, later ones an hour apart in them, soonest first (a free day offered one time only).
 */
function halfHours(free: readonly Window[]): number[] {
  const long = free.map((w) => ({ s: Date.parse(w.start), e: Date.parse(w.end) })).filter((w) => w.e - w.s >= HALF_HOUR_MS);
  const starts = long.slice(0, MAX_ALTERNATIVES).map((w) => w.s);
  for (const w of long) {
    for (let t = w.s + 2 * HALF_HOUR_MS; t + HALF_HOUR_MS <= w.e && starts.length < MAX_ALTERNATIVES; t += 2 * HALF_HOUR_MS) starts.push(t);
  }
  return starts.sort((a, b) => a - b);
}

/** "To book 30 minutes with bob, reply its number (1–3):", the times, the first line in full; '' without choices. */
function bookHint(choices: readonly Choice[], names: string[], rooms: ReadonlySet<string>): string {
  if (choices.length === 0) return '';
  const people = names.filter((p) => p !== 'me' && !rooms.has(p));
  const room = names.find((p) => rooms.has(p));
  const whom = [...(people.length ? [` with ${people.join(' and ')}`] : []), ...(room ? [` in ${room}`] : [])].join('');
  return ['', `To book 30 minutes${whom}, ${replyPick(choices.length)}:`, ...numbered(choices.map((c) => c.label)), `The first in full: ${(choices[0] as Choice).say}`].join('\n');
}

/**
 * The whole answer, in the asker's zone: yes/no for a slot, else each person's free time and what
 * all share; `rooms`: names that are rooms (booked as a room); `choices`: freeTimeChoices' (the
 * machine computes them once for the text and rich.choices).
 */
export function freeTimeText(
  q: FreeTimeQuestion, answers: ReadonlyArray<[string, Answer]>, zone: string, rooms: ReadonlySet<string> = new Set(),
  choices: readonly Choice[] = freeTimeChoices(q, answers, zone, rooms),
): string {
  const you = (name: string) => (name === 'me' ? 'you' : name);
  const freeOf = (a: Answer) => ('free' in a ? a.free : []);
  const span = when(q.window, zone);
  if (q.slot) {
    const slot = q.slot;
    const covers = (a: Answer) => normalise(freeOf(a), q.window).some((w) => w.s <= Date.parse(slot.start) && w.e >= Date.parse(slot.end));
    const busy = answers.filter(([, a]) => !covers(a));
    const verb = answers.length > 1 || answers[0]?.[0] === 'me' ? 'are' : 'is';
    const [yes, no] = q.busy ? ['No', 'Yes'] : ['Yes', 'No'];
    if (busy.length === 0) return `${yes}: ${answers.map(([n]) => you(n)).join(' and ')} ${verb} free ${when(slot, zone)}.`;
    const lines = busy.map(([n, a]) => `• ${you(n)}: ${'none' in a ? a.none : 'busy then'}${'free' in a && a.free.length ? `; free that day ${intervals(a.free, q.window, zone)}` : ''}`);
    return [`${no}: ${when(slot, zone)} does not suit ${answers.length > 1 ? 'everyone' : you(answers[0]?.[0] ?? '')}.`, ...lines].join('\n');
  }
  if (answers.length === 1) {
    const [n, a] = answers[0] as [string, Answer];
    if ('none' in a) return `${n === 'me' ? 'You have' : `${n} has`} no free time ${span}: ${a.none}.`;
    return `${n === 'me' ? 'Your' : `${n}'s`} free time, ${span}: ${intervals(a.free, q.window, zone)}.${bookHint(choices, [n], rooms)}`;
  }
  const lines = answers.map(([n, a]) => `• ${you(n)}: ${'none' in a ? a.none : intervals(a.free, q.window, zone)}`);
  const all = intersect(answers.map(([, a]) => freeOf(a)), q.window);
  const shared = answers.every(([, a]) => 'free' in a) && all.length ? `All free: ${intervals(all, q.window, zone)}.` : 'There is no time when all are free.';
  return [`Free time, ${span}:`, ...lines, shared].join('\n') + bookHint(choices, answers.map(([n]) => n), rooms);
}

