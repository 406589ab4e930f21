// What a person asks of the Coordinator as OACoP initiator, from the chat line alone (issue
// "Coordinator as initiator, from chat"). Pure: `now` comes in, nothing is looked up here.
//   "schedule 30 min with bob and carol tomorrow afternoon in a room for 3"
//   "meet 30m bob,carol? 2026-12-10T09:00Z..2026-12-12T18:00Z [room|room:N|<room name>]"
// Every command has a plain-word form (meet, tz, cancel, assign): profanity, Gajim and
// Conversations take lines starting with "/" as their own commands. "/meet", "/tz", … stay aliases.
//   "cancel that meeting"      "assign 'Q1 report' to bob by Friday"
//   the assignee's answers: "accept", "decline", "50% draft started", "done", "blocked: …"
// The strict form says its times in UTC (…Z); the natural form is read in the person's time zone
// (zones.ts; UTC until they set one) and written in UTC.
// English only, as chrono-node's default `parse` is (en.casual): its root entry also loads 15 other
// locales, 266 modules and ≈ 0.15 s of the Coordinator's start-up for parsers never called.
import * as chrono from 'chrono-node/en';
import { DateTime } from 'luxon';
import { type AgendaQuestion, parseAgenda } from './agenda-parse.js';
import { type CantMake, parseCantMake } from './cant-make.js';
import { type MeetingRef, refWords } from './meeting-ref.js';
import { parseTaskAnswer, type TaskAnswer, type TaskStatus } from './task-answer-parse.js';
import type { AskBack } from './follow-up.js';
import { dayWindow, type Window } from './slots.js';
import { deadlineText, when } from './texts.js';
import { canonicalZone, DEFAULT_ZONE, offsetAt } from './zones.js';

export interface RoomWish {
  /** Seats needed; undefined = as many as the meeting has participants. */
  capacity?: number;
  /** A room named by the person (the meet form's last word). */
  name?: string;
}

export interface ScheduleRequest {
  kind: 'schedule';
  durationMin: number;
  /** Names as written (bob, carol), in order, without the asker. */
  participants: string[];
  /** The subset that may be left out (§2.3 requiredParticipants holds the others). */
  optional: string[];
  window: Window;
  room?: RoomWish;
  title: string;
}

export type SchedulingIntent =
  | ScheduleRequest
  /** "cancel that meeting": the last booked; "cancel meeting 2": the second in "my meetings"; "… with bob", "my 3pm meeting": the one described. */
  | ({ kind: 'cancel-meeting'; index?: number } & MeetingRef)
  | { kind: 'assign'; title: string; assignee: string; deadline: string }
  | TaskAnswer
  /** "I can't make the meeting on monday": its organizer is told (cant-make.ts). */
  | CantMake
  /** "my time zone is Europe/Berlin" / "tz Europe/Berlin"; "tz" alone asks which one is set. */
  | { kind: 'set-zone'; zone: string }
  | { kind: 'show-zone' }
  /** "my meetings", "when is my next meeting?", "what's on tomorrow?" (agenda-parse.ts, agenda.ts). */
  | AgendaQuestion
  /** Recognised as a scheduling command but unusable: the person is told why. */
  | { kind: 'scheduling-error'; detail: string; askBack?: AskBack };

export { parseTaskAnswer, type TaskStatus };

const NAME = /^[a-z][a-z0-9._-]{0,60}$/i;
const STOP = new Set([
  'in', 'on', 'at', 'for', 'from', 'between', 'during', 'by', 'about', 'to', 'tomorrow', 'today', 'tonight', 'next', 'this',
  'the', 'a', 'an', 'morning', 'afternoon', 'evening', 'room', 'before', 'after', 'within', 'sometime', 'some', 'any', 'please',
  'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun',
  'january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december',
]);

/** "30 min", "1 hour", "45m", "1h30", "90 minutes", "half an hour". */
const DURATION = /\b(?:(half an hour)|(\d{1,2})\s*h(?:ours?|rs?)?\s*(?:(\d{1,2})\s*(?:m(?:in(?:ute)?s?)?)?)?|(\d{1,3})\s*m(?:in(?:ute)?s?)?|(an?|one|\d{1,2}(?:\.\d+)?)\s*hours?)\b/i;

export function parseDuration(text: string): { minutes: number; match: string } | undefined {
  const d = durationIn(text);
  return d && d.minutes <= MAX_MEETING_MIN ? d : undefined;
}

/** The longest meeting a person may ask for. */
const MAX_MEETING_MIN = 24 * 60;

function durationIn(text: string): { minutes: number; match: string } | undefined {
  const m = DURATION.exec(text);
  if (!m) return undefined;
  let minutes: number;
  if (m[1]) minutes = 30;
  else if (m[2]) minutes = Number(m[2]) * 60 + Number(m[3] ?? 0);
  else if (m[4]) minutes = Number(m[4]);
  else minutes = /^(an?|one)$/i.test(m[5] ?? '') ? 60 : Math.round(Number(m[5]) * 60);
  return minutes > 0 ? { minutes, match: m[0] } : undefined;
}

/** "bob and carol", "bob, carol and optionally dave" up to the first word that is not a name. */
export function parseNames(text: string): { required: string[]; optional: string[] } {
  const required: string[] = [];
  const optional: string[] = [];
  let nextOptional = false;
  for (const raw of text.split(/[\s,;]+/).filter(Boolean)) {
    const word = raw.replace(/[.!?]+$/, '');
    const lower = word.toLowerCase();
    if (lower === 'and' || lower === '&') continue;
    if (lower === 'optionally' || lower === 'maybe') { nextOptional = true; continue; }
    const opt = nextOptional || word.endsWith('?') || /\(optional\)$/i.test(word);
    const name = lower.replace(/\?$/, '').replace(/\(optional\)$/, '');
    if (!NAME.test(name) || STOP.has(name)) break;
    if (!required.includes(name) && !optional.includes(name)) (opt ? optional : required).push(name);
    nextOptional = false;
  }
  return { required, optional };
}

const PARTS: Record<string, [number, number]> = { morning: [8, 12], afternoon: [12, 18], evening: [17, 21] };

const utcIso = (d: DateTime) => d.toUTC().toISO() as string;

/** The time window a phrase names, read in `zone` and written in UTC; a bare day means its working hours (08–18 there). */
export function parseWindow(text: string, now: Date, durationMin: number, zone = DEFAULT_ZONE): Window | undefined {
  const results = chrono.parse(text, { instant: now, timezone: offsetAt(zone, now) }, { forwardDate: true });
  const r = results[0];
  if (!r) return undefined;
  const start = DateTime.fromJSDate(r.start.date()).setZone(zone);
  if (r.end) return { start: utcIso(start), end: utcIso(DateTime.fromJSDate(r.end.date())) };
  if (/\bnext week\b/i.test(r.text)) {
    const monday = start.startOf('week');
    return { start: utcIso(monday.set({ hour: 8 })), end: utcIso(monday.plus({ days: 4 }).set({ hour: 18 })) };
  }
  const part = Object.keys(PARTS).find((p) => new RegExp(`\\b${p}\\b`, 'i').test(text));
  if (part) {
    const [h0, h1] = PARTS[part] as [number, number];
    return dayWindow(start, h0, h1);
  }
  // A stated hour ("friday 3pm"): exactly that slot.
  if (r.start.isCertain('hour')) return { start: utcIso(start), end: utcIso(start.plus({ minutes: durationMin })) };
  return dayWindow(start, 8, 18);
}

// "in a room for 3", "a room for 5 people" (after "book"), "in the cosmos room", "in room dune",
// and "in atlas": a bare word after "in" that is no time, number or filler word is taken for a
// room's name; a name no room has is answered with the rooms there are (texts.ts noRoomText),
// never dropped (a meeting "in atlas" was booked without any room).
const ROOM_NATURAL = /\b(?:in\s+)?(?:(?:a|the)\s+)?(?:meeting\s+)?room(?:\s+for\s+(\d{1,3})(?:\s+(?:people|persons|seats))?)?/i;
/** "room dune", then "the cosmos room": each a pattern of its own, so "in room dune" is not read as a room called "in". */
const ROOM_NAMED = [/\b(?:in\s+)?room\s+([a-z][a-z0-9_-]*)\b/gi, /\b(?:in\s+)?(?:the\s+)?([a-z][a-z0-9_-]*)\s+room\b/gi];
const ROOM_BARE = /\bin\s+(?:the\s+)?([a-z][a-z0-9_-]*)\b/gi;
const NOT_A_ROOM = new Set([
  ...STOP, 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve', 'half', 'few',
  'couple', 'several', 'minutes', 'minute', 'hours', 'hour', 'days', 'day', 'weeks', 'week', 'utc', 'gmt', 'person', 'private',
  'my', 'our', 'your', 'their', 'his', 'her', 'time', 'zone', 'noon', 'midnight',
  'meeting', 'conference', 'big', 'bigger', 'small', 'smaller', 'large', 'free', 'quiet', 'spare', 'empty',
]);

function roomWish(rest: string): { room?: RoomWish; rest: string } {
  for (const re of ROOM_NAMED) {
    for (const m of rest.matchAll(re)) {
      const word = (m[1] as string).toLowerCase(); // "a room", "room for" name no room
      if (!NOT_A_ROOM.has(word)) return { room: { name: word }, rest: rest.replace(m[0], ' ') };
    }
  }
  const rn = ROOM_NATURAL.exec(rest);
  if (rn) return { room: rn[1] ? { capacity: Number(rn[1]) } : {}, rest: rest.replace(rn[0], ' ') };
  for (const m of rest.matchAll(ROOM_BARE)) {
    const word = (m[1] as string).toLowerCase();
    if (!NOT_A_ROOM.has(word)) return { room: { name: word }, rest: rest.replace(m[0], ' ') };
  }
  return { rest };
}

/** "schedule …", "book …" with someone, or "book a room …" alone (the asker and the room). */
function parseSchedule(text: string, now: Date, zone: string): SchedulingIntent {
  const body = text.replace(/^\s*(?:please\s+)?(?:schedule|book|reserve|set\s+up|arrange|plan|organi[sz]e)\s+(?:a\s+|an\s+)?(?:meeting\s+|call\s+|appointment\s+)?/i, '');
  const w = /\bwith\s+(.+)$/i.exec(body);
  const names = w?.[1] ? parseNames(w[1]) : { required: [], optional: [] };
  const anyone = names.required.length + names.optional.length > 0;
  // A room's name comes after the people: "with bob in atlas"; before "with" it is the room phrase.
  const { room, rest: unroomed } = roomWish(body);
  const example = anyone || !room ? '"schedule 30 min with bob tomorrow afternoon"' : '"book a room for 4 for 1 hour tomorrow at 10"';
  const duration = durationIn(unroomed);
  // Asked back: the answer ("30 min") completes this request (follow-up.ts).
  if (!duration) return { kind: 'scheduling-error', detail: `How long ${anyone || !room ? 'should the meeting be' : 'do you need the room'}? Say e.g. ${example}.`, askBack: { text: text.trim(), missing: 'duration' } };
  if (duration.minutes > MAX_MEETING_MIN) return { kind: 'scheduling-error', detail: `A meeting can be at most 24 hours long, not ${duration.match.trim()}.` };
  if (!anyone && !room) {
    return { kind: 'scheduling-error', detail: 'With whom? Say e.g. "schedule 30 min with bob and carol tomorrow afternoon".', askBack: { text: text.trim(), missing: 'people' } };
  }
  const rest = unroomed.replace(duration.match, ' ');
  const window = parseWindow(rest, now, duration.minutes, zone) ?? dayWindow(DateTime.fromJSDate(now).setZone(zone).plus({ days: 1 }), 8, 18);
  const everyone = [...names.required, ...names.optional];
  return clampToNow({
    kind: 'schedule', durationMin: duration.minutes, participants: everyone, optional: names.optional,
    window, title: anyone ? `Meeting with ${everyone.join(', ')}` : `Room booking${room?.name ? ` (${room.name})` : ''}`, ...(room ? { room } : {}),
  }, now, zone);
}

/**
 * A window that has begun starts now (rounded up to the next 5 minutes); one that has ended is an
 * error. Its times are shown in the person's `zone`, as every time they read is (texts.ts when).
 */
function clampToNow(req: ScheduleRequest, now: Date, zone: string): SchedulingIntent {
  const from = DateTime.fromJSDate(now, { zone: 'utc' });
  const rounded = from.plus({ minutes: (5 - (from.minute % 5)) % 5 }).startOf('minute');
  const start = DateTime.fromISO(req.window.start, { zone: 'utc' });
  const end = DateTime.fromISO(req.window.end, { zone: 'utc' });
  if (end <= rounded) return { kind: 'scheduling-error', detail: `That time (${when(req.window, zone)}) is already over.` };
  const s = start < rounded ? rounded : start;
  if (end.diff(s, 'minutes').minutes < req.durationMin) {
    return { kind: 'scheduling-error', detail: `A ${req.durationMin}-minute meeting does not fit in ${when({ start: s.toISO() as string, end: req.window.end }, zone)}.` };
  }
  return { ...req, window: { start: s.toISO() as string, end: end.toISO() as string } };
}

const ISO_RANGE = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2})?Z)\.\.(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2})?Z)$/;

/** `meet 30m bob,carol? 2026-12-10T09:00Z..2026-12-12T18:00Z [room|room:N|<name>]` (or `/meet …`) — for scripts. */
export function parseMeet(text: string, now: Date, zone = DEFAULT_ZONE): SchedulingIntent {
  const usage = 'usage: meet <30m|1h|1h30> <name,name?,…|-> <start>Z..<end>Z [room|room:<seats>|<room name>] (- = nobody else, a room for you)';
  const parts = text.trim().split(/\s+/).slice(1);
  const [dur, who, range, roomArg, ...extra] = parts;
  if (!dur || !who || !range || extra.length > 0) return { kind: 'scheduling-error', detail: usage };
  const d = /^(?:(\d{1,2})h)?(?:(\d{1,3})m?)?$/i.exec(dur);
  const minutes = d ? Number(d[1] ?? 0) * 60 + Number(d[2] ?? 0) : 0;
  if (!d || minutes <= 0 || minutes > 24 * 60) return { kind: 'scheduling-error', detail: `bad duration ${JSON.stringify(dur)}; ${usage}` };
  const names = who === '-' ? [] : who.split(',').filter(Boolean).map((n) => n.toLowerCase());
  const optional = names.filter((n) => n.endsWith('?')).map((n) => n.slice(0, -1));
  const all = names.map((n) => n.replace(/\?$/, ''));
  const bad = all.find((n) => !NAME.test(n));
  if (bad !== undefined || (all.length === 0 && who !== '-')) return { kind: 'scheduling-error', detail: `bad participant ${JSON.stringify(bad ?? who)}; ${usage}` };
  const r = ISO_RANGE.exec(range);
  const start = r ? DateTime.fromISO(r[1] as string, { zone: 'utc' }) : undefined;
  const end = r ? DateTime.fromISO(r[2] as string, { zone: 'utc' }) : undefined;
  if (!start?.isValid || !end?.isValid || end <= start) return { kind: 'scheduling-error', detail: `bad time window ${JSON.stringify(range)}; ${usage}` };
  let room: RoomWish | undefined;
  if (roomArg !== undefined) {
    const rm = /^room(?:[:=](\d{1,3}))?$/i.exec(roomArg);
    if (rm) room = rm[1] ? { capacity: Number(rm[1]) } : {};
    else if (NAME.test(roomArg)) room = { name: roomArg.toLowerCase() };
    else return { kind: 'scheduling-error', detail: `bad room ${JSON.stringify(roomArg)}; ${usage}` };
  }
  if (all.length === 0 && !room) return { kind: 'scheduling-error', detail: `with nobody else ("-") there is only a room to book: add room, room:<seats> or its name; ${usage}` };
  return clampToNow({
    kind: 'schedule', durationMin: minutes, participants: [...new Set(all)], optional,
    title: all.length ? `Meeting with ${all.join(', ')}` : `Room booking${room?.name ? ` (${room.name})` : ''}`,
    window: { start: start.toISO() as string, end: end.toISO() as string }, ...(room ? { room } : {}),
  }, now, zone);
}

/** "by Friday" → Friday 17:00 in the person's zone unless an hour is given; no date → in 7 days. */
function parseDeadline(text: string, now: Date, zone: string): string {
  const r = chrono.parse(text, { instant: now, timezone: offsetAt(zone, now) }, { forwardDate: true })[0];
  const base = DateTime.fromJSDate(r ? r.start.date() : now).setZone(zone);
  const d = r ? (r.start.isCertain('hour') ? base : base.set({ hour: 17, minute: 0, second: 0, millisecond: 0 })) : base.plus({ days: 7 }).set({ hour: 17, minute: 0, second: 0, millisecond: 0 });
  return d.toUTC().toISO({ suppressMilliseconds: true }) as string;
}

const ASSIGN = /^\s*(?:please\s+)?assign\s+(?:["'“‘](.+?)["'”’]|(.+?))\s+to\s+([a-z][a-z0-9._-]*)\b(.*)$/i;
const ASSIGN_STRICT = /^\s*\/?assign\s+([a-z][a-z0-9._-]*)\s+(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2})?Z)\s+(.+)$/i;

const WITH = String.raw`with\s+([a-z][a-z0-9._-]*(?:\s*(?:,|\band\b|&)\s*[a-z][a-z0-9._-]*)*)`;
const namesOf = (m: RegExpExecArray | null): string[] =>
  (m ? (m[1] as string).split(/\s*(?:,|\band\b|&)\s*/i).map((n) => n.toLowerCase()).filter((n) => n && !STOP.has(n)) : []);

/** "… with bob and carol" after "my meeting": the people named, else undefined. */
export function meetingWith(rest: string): string[] | undefined {
  const names = namesOf(new RegExp(String.raw`^\s*${WITH}`, 'i').exec(rest));
  return names.length ? names : undefined;
}

/** The meeting the words around "meeting" describe: "with bob" anywhere in them, a day, a time, words of its title (meeting-ref.ts). */
export function meetingRef(words: string): MeetingRef {
  const m = new RegExp(String.raw`\b${WITH}`, 'i').exec(words);
  const names = namesOf(m);
  const rest = m ? words.replace(m[0], ' ') : words;
  return { ...(names.length ? { with: names } : {}), ...refWords(rest) };
}

const SET_ZONE = /^\s*(?:\/?tz|\/?time\s?zone|(?:please\s+)?(?:set\s+)?my\s+time\s?zone(?:\s+is|\s+to)?|i(?:'m| am)\s+in\s+time\s?zone)\s+(\S+)\s*[.!]?\s*$/i;
const SHOW_ZONE = /^\s*(?:\/?tz|\/?time\s?zone|what(?:'s| is)\s+my\s+time\s?zone\s*\??)\s*$/i;

/** "my time zone is Europe/Berlin" → set-zone; an unknown zone is a usage error naming it. */
export function parseZoneCommand(text: string): SchedulingIntent | undefined {
  if (SHOW_ZONE.test(text)) return { kind: 'show-zone' };
  const m = SET_ZONE.exec(text);
  if (!m) return undefined;
  const zone = canonicalZone(m[1] as string);
  return zone
    ? { kind: 'set-zone', zone }
    : { kind: 'scheduling-error', detail: `I don't know the time zone ${JSON.stringify(m[1])}. Use an IANA name such as Europe/Berlin or America/New_York, or UTC.` };
}

/** A task to assign, or why not: a title of quotes or punctuation only ("assign '' to bob") names no task; a due date must lie ahead. */
function assignment(title: string, assignee: string, deadline: string, now: Date, zone: string): SchedulingIntent {
  if (!/[\p{L}\p{N}]/u.test(title)) return { kind: 'scheduling-error', detail: 'What is the task? Say e.g. "assign \'Q1 report\' to bob by Friday".' };
  if (Date.parse(deadline) <= now.getTime()) {
    return { kind: 'scheduling-error', detail: `That due date (${deadlineText(deadline, zone)}) is already past. Say e.g. "assign 'Q1 report' to bob by Friday".` };
  }
  return { kind: 'assign', title: title.slice(0, 200), assignee: assignee.toLowerCase(), deadline };
}

/** Any scheduling/task command in `text`, or undefined (then it is a question for an expert). `zone`: the person's. */
// "help me schedule a meeting", "I'd like to book a room …", "can you set up a call with bob": the
// request after the lead-in (each got "I can't help with that one").
const LEAD_IN = /^(?:(?:please|can\s+you|could\s+you|would\s+you|help\s+me(?:\s+to)?|i\s+(?:want|need|would\s+like)\s+to|i'd\s+like\s+to|let'?s)\s+)+(?=(?:schedule|book|arrange|set\s+up|plan|meet|reserve)\b)/i;

// "cancel my 3pm meeting", "cancel tomorrow's meeting with bob", "cancel the room booking": the
// words before and after the noun say which (meetingRef).
const CANCEL = /^\s*(?:please\s+|can\s+you\s+|could\s+you\s+)?cancel\s+(?:(?:that|the|my|our|this)\s+)?(.{0,40}?)\s*\b(?:meeting|appointment|event|call|(room)?\s*booking)s?\b(.*)$/i;

export function parseScheduling(text: string, now: Date, zone = DEFAULT_ZONE): SchedulingIntent | undefined {
  const t = text.trim().replace(LEAD_IN, '');
  const z = parseZoneCommand(t);
  if (z) return z;
  const agenda = parseAgenda(t.replace(/^\//, ''), now, zone);
  if (agenda) return agenda;
  // "meet bob on friday", "meet with bob for 30 min tomorrow": plain words, not the strict form
  // (whose second word is a length), so read as "schedule with …" (it got the strict usage line).
  const plain = /^\s*(?:please\s+)?meet\s+(?:with\s+)?([a-z][a-z0-9._-]*\b(?![,?]).*)$/i.exec(t);
  if (plain && !/^\d/.test(plain[1] as string) && !/^-\s/.test(plain[1] as string)) return parseSchedule(`schedule with ${plain[1]}`, now, zone);
  if (/^\/?meet\s/i.test(t) || /^\/meet$/i.test(t)) return parseMeet(t, now, zone);
  if (/^\s*(?:please\s+)?(?:schedule|book|arrange|set\s+up|plan|organi[sz]e)\b/i.test(t) && /\bwith\b/i.test(t)) return parseSchedule(t, now, zone);
  // "book a room for 5 people tomorrow at 10 for an hour", "reserve room atlas …": the asker and a room.
  if (/^\s*(?:please\s+)?(?:book|reserve)\s+(?:a\s+|the\s+)?(?:(?:meeting\s+)?room\b|[a-z][a-z0-9_-]*\s+room\b)/i.test(t)) return parseSchedule(t, now, zone);
  // "schedule a meeting": a meeting without anyone to meet is asked back, not left to the experts.
  if (/^\s*(?:please\s+)?(?:schedule|book|arrange|set\s+up|plan)\s+(?:a\s+|an\s+|the\s+)?(?:new\s+)?(?:meeting|call|appointment)\b/i.test(t)) {
    return { kind: 'scheduling-error', detail: 'With whom, for how long and when? Say e.g. "schedule 30 min with bob tomorrow afternoon".', askBack: { text: 'schedule', missing: 'details' } };
  }
  // "when can we meet?", "find a time": for whom is asked back (free-time.ts reads the forms with names).
  if (/^\s*(?:when\s+(?:can|could|shall|should)\s+we\s+meet(?:\s+up)?|(?:please\s+)?(?:find|suggest)\s+(?:me\s+|us\s+)?(?:a\s+)?(?:good\s+|free\s+)?(?:time|slot))\s*[?.!]*\s*$/i.test(t)) {
    return { kind: 'scheduling-error', detail: 'With whom? Say e.g. "find a time for bob and me next week" or "when can bob and I meet?".' };
  }
  const numbered = /^\s*(?:please\s+)?\/?cancel\s+(?:meeting|appointment)\s+#?(\d{1,3})\s*[.!]?\s*$/i.exec(t);
  if (numbered) return { kind: 'cancel-meeting', index: Number(numbered[1]) };
  const cancel = CANCEL.exec(t);
  if (cancel || /^\/?cancel(?:\s+meeting)?$/i.test(t)) return { kind: 'cancel-meeting', ...meetingRef(cancel ? `${cancel[1]} ${cancel[2] ?? ''} ${cancel[3]}` : '') };
  const strict = ASSIGN_STRICT.exec(t);
  if (strict) return assignment((strict[3] as string).trim(), strict[1] as string, DateTime.fromISO(strict[2] as string, { zone: 'utc' }).toISO({ suppressMilliseconds: true }) as string, now, zone);
  const a = ASSIGN.exec(t);
  if (a) return assignment((a[1] ?? a[2] ?? '').trim(), a[3] as string, parseDeadline(a[4] ?? '', now, zone), now, zone);
  return parseCantMake(t, meetingRef) ?? parseTaskAnswer(t);
}
