// "move that meeting to 3pm", "push meeting 2 back by an hour", "delay the meeting by 30 minutes",
// "bring it forward by an hour", "reschedule my meeting to tomorrow afternoon": what the person asks, the new time read against the meeting itself, and
// what they read afterwards. The exchange is move-machine.ts (a new OACoP revision of the same
// thread, §3.4). Pure.
import { DateTime } from 'luxon';
import type { MeetingRef } from './meeting-ref.js';
import { meetingRef, parseWindow } from './parse.js';
import { displayName } from './oacop.js';
import { minutesOf, type Window } from './slots.js';
import type { MeetingRecord } from './store.js';
import { type Miss, nearestTimesLines, when } from './texts.js';

export interface MoveQuestion extends MeetingRef {
  kind: 'move-meeting';
  /** The new time as the person wrote it ("3pm", "tomorrow at 10", "an hour later"), '' when none. */
  to: string;
  /** "move meeting 2 …": the second of "my meetings"; absent = the asker's last booked meeting. */
  index?: number;
  /** The strict form a choice says ("move urn:uuid:… to 2026-11-30T09:00Z"): that meeting, that start. */
  thread?: string;
}

// The line behind a numbered choice of nearest times (moveChoices): exact, whatever was listed since.
const STRICT = /^\s*move\s+(urn:uuid:[0-9a-f-]{36})\s+to\s+(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}Z)\s*$/i;
const STRICT_START = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}Z$/;

/** The chat line that moves meeting `threadId` to start at `start` (UTC): what a choice says. */
export const strictMove = (threadId: string, start: string): string => `move ${threadId} to ${new Date(start).toISOString().slice(0, 16)}Z`;

const NAMES = String.raw`(\s+with\s+[a-z][a-z0-9._-]*(?:\s*(?:,|\band\b)\s*[a-z][a-z0-9._-]*)*)?`;
// "move it to 4pm" right after a booking is the last booked meeting too; "move my 3pm meeting",
// "move tomorrow's meeting": the words before the noun describe it (meeting-ref.ts).
const WHICH = String.raw`(?:(?:my\s+|the\s+)?meeting\s+(?:number\s+|no\.?\s*|#)?(\d{1,2})|(?:(?:that|the|my|our|this)\s+)?(?:last\s+)?(?:(\S.{0,30}?)\s+)?(?:meeting|appointment|call)|it(?=\s+(?:to|back|forward|by|\d|an?\s|half|one|two|three|later|earlier)))`;
const MOVE = new RegExp(String.raw`^\s*(?:please\s+|can\s+you\s+|could\s+you\s+)?(?:move|reschedule|postpone|shift|push|delay|bring)\s+${WHICH}\b${NAMES}\s*(to\s+)?(.*?)\s*[?.!]*\s*$`, 'i');
// "move the meeting at 3pm to 4pm", "delay the meeting on friday by an hour": what comes before
// "to"/"by" describes the meeting when it starts like a day or time.
const REF_THEN_TARGET = /^((?:at|on|tomorrow|today|tonight|this|next|mon|tue|wed|thu|fri|sat|sun|\d)\S*(?:\s+\S+)*?)\s+(?:to\s+(.+)|((?:by|back|forward)\b.*))$/i;

export function parseMove(text: string): MoveQuestion | undefined {
  const strict = STRICT.exec(text);
  if (strict) return { kind: 'move-meeting', to: strict[2] as string, thread: (strict[1] as string).toLowerCase() };
  const m = MOVE.exec(text);
  if (!m) return undefined;
  let to = (m[5] ?? '').trim();
  let described = `${m[2] ?? ''} ${m[3] ?? ''}`;
  // After "to" it is all the new time ("to friday by noon").
  const split = m[4] ? null : REF_THEN_TARGET.exec(to);
  if (split) {
    described += ` ${split[1]}`;
    to = (split[2] ?? split[3] ?? '').trim();
  }
  return { kind: 'move-meeting', to, ...(m[1] ? { index: Number(m[1]) } : {}), ...meetingRef(described) };
}

const NAMES_A_DAY = /\b(?:today|tomorrow|yesterday|tonight|next|mon|tue|wed|thu|fri|sat|sun|\d{4}-\d{2}-\d{2}|\d{1,2}(?:st|nd|rd|th)?\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\s+\d{1,2})/i;
// "an hour later", "back by 30 minutes", "by 15 min", "forward by half an hour" (earlier).
const SHIFT = /^(back|forward|later|earlier)?\s*(?:by\s+)?(an?|one|two|three|half\s+an|\d{1,4})\s*(hours?|hrs?|h|minutes?|mins?|m)\s*(later|earlier|back|forward)?$/i;
const COUNT: Record<string, number> = { a: 1, an: 1, one: 1, two: 2, three: 3 };

function shiftMinutes(to: string): number | undefined {
  const m = SHIFT.exec(to.trim());
  if (!m) return undefined;
  const amount = /^half/i.test(m[2] as string) ? 0.5 : (COUNT[(m[2] as string).toLowerCase()] ?? Number(m[2]));
  const minutes = Math.round(/^h/i.test(m[3] as string) ? amount * 60 : amount);
  const earlier = /^(?:earlier|forward)$/i.test(m[1] ?? m[4] ?? '');
  return earlier ? -minutes : minutes;
}

export type MoveTarget = { ok: true; window: Window } | { ok: false; detail: string };

const EXAMPLE = 'Say e.g. "move that meeting to 3pm", "… to tomorrow at 10" or "… an hour later".';

/**
 * Where the meeting should go: a stated time is exactly that slot (on the meeting's own day when no
 * day is named, "to 3pm"); a part of a day or a day is a window to find the earliest common time
 * in; a shift moves it by that much. Times are read in the person's zone, never in the past.
 */
export function moveTarget(m: MeetingRecord, to: string, now: Date, zone: string): MoveTarget {
  if (to === '') return { ok: false, detail: `To when should "${m.title}" move? ${EXAMPLE}` };
  const minutes = minutesOf(m.slot);
  const shift = shiftMinutes(to);
  let window: Window | undefined;
  if (shift !== undefined || STRICT_START.test(to)) {
    const start = new Date(shift !== undefined ? Date.parse(m.slot.start) + shift * 60_000 : Date.parse(to)).toISOString();
    window = { start, end: new Date(Date.parse(start) + minutes * 60_000).toISOString() };
  } else {
    const day = DateTime.fromISO(m.slot.start, { zone: 'utc' }).setZone(zone).startOf('day');
    const from = NAMES_A_DAY.test(to) || day.toMillis() < now.getTime() ? now : day.toJSDate();
    // "to 11", "to 14:30": a bare clock time, which chrono reads only after "at".
    window = parseWindow(/^\d{1,2}(?::\d{2})?$/.test(to.trim()) ? `at ${to}` : to, from, minutes, zone);
  }
  if (!window) return { ok: false, detail: `I could not read "${to}" as a time. ${EXAMPLE}` };
  const t = Date.parse(window.start);
  const end = Date.parse(window.end);
  const earliest = Math.ceil(now.getTime() / 300_000) * 300_000;
  if (end - Math.max(t, earliest) < minutes * 60_000) return { ok: false, detail: `"${m.title}" (${minutes} min) cannot move to ${when(window, zone)}: that time is already over.` };
  const start = t < earliest ? new Date(earliest).toISOString() : new Date(t).toISOString();
  const fitted = { start, end: new Date(end).toISOString() };
  if (end - Date.parse(start) === minutes * 60_000 && Date.parse(start) === Date.parse(m.slot.start)) {
    return { ok: false, detail: `"${m.title}" is already at ${when(m.slot, zone)}.` };
  }
  return { ok: true, window: fitted };
}

/** A meeting that cannot be moved (none, cancelled, over), or undefined when it can. */
export function unmovable(m: MeetingRecord | undefined, now: string, zone: string): string | undefined {
  if (!m) return 'You have no booked meeting to move.';
  if (m.status === 'CANCELLED') return `Your last booked meeting ("${m.title}", ${when(m.slot, zone)}) is cancelled. "my meetings" lists the ones ahead.`;
  if (Date.parse(m.slot.end) <= Date.parse(now)) return `"${m.title}" (${when(m.slot, zone)}) is already over: nothing was moved.`;
  return undefined;
}

const list = (names: readonly string[]) => names.map(displayName).join(', ');

export function movedText(m: MeetingRecord, slot: Window, told: readonly string[], zone: string): string {
  return [
    `Moved: ${m.title}`,
    `Now: ${when(slot, zone)}`,
    `Was: ${when(m.slot, zone)}`,
    ...(told.length ? [`Told: ${list(told)}.`] : []),
    ...(m.room ? [`Room: ${displayName(m.room)} (kept)`] : []),
    'The updated invitation (.ics) follows.',
  ].join('\n');
}

export function movedNotice(organizer: string, m: MeetingRecord, slot: Window, zone: string): string {
  return `${organizer.split('@')[0]} moved "${m.title}" to ${when(slot, zone)} (was ${when(m.slot, zone)}). The updated invitation (.ics) follows.`;
}

/**
 * Why it could not move, that it stays where it was, and any calendar that may not have taken the
 * old time back; when people were only busy, the free-time question (free-time.ts) that shows
 * when everyone can make it that day.
 */
export function notMovedText(m: MeetingRecord, window: Window, misses: readonly Miss[], unrestored: readonly Miss[], zone: string, busyOnly = false): string {
  const others = [...m.participants, ...(m.room ? [m.room] : [])].map(displayName).filter((n) => n !== m.organizer.split('@')[0]);
  const day = DateTime.fromISO(window.start, { zone: 'utc' }).setZone(zone).setLocale('en-GB').toFormat('d LLLL');
  const ask = others.length === 1 ? `are ${others[0]} and I free on ${day}?` : `are ${others.join(', ')} and I free on ${day}?`;
  return [
    `I could not move "${m.title}" to ${when(window, zone)}:`,
    ...misses.map((x) => `• ${displayName(x.who)} ${x.why}`),
    `It stays at ${when(m.slot, zone)}.`,
    ...(unrestored.length ? [`These calendars did not confirm the old time again: ${unrestored.map((x) => `${displayName(x.who)} (${x.why})`).join(', ')}.`] : []),
    ...(busyOnly && others.length ? [`To see when everyone is free that day, ask: "${ask}"`] : []),
  ].join('\n');
}

/** After a move nobody could make: the nearest times that work, numbered (texts.ts nearestTimesLines). */
export const moveChoicesText = (slots: readonly Window[], zone: string): string => nearestTimesLines(slots.map((w) => when(w, zone)), 'move it to one').join('\n');
