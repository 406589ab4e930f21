// What people read about meetings and tasks (pure; the Presenter shows these as they are).
import { DateTime } from 'luxon';
import { displayName } from './oacop.js';
import type { Window } from './slots.js';

const at = (iso: string, zone: string) => DateTime.fromISO(iso, { zone: 'utc' }).setZone(zone).setLocale('en-GB');

/** "Thu 10 Dec 2026, 12:00–12:30 UTC", or in the reader's zone: "…, 13:00–13:30 Europe/Berlin". */
export function when(slot: Window, zone = 'UTC'): string {
  const s = at(slot.start, zone);
  const e = at(slot.end, zone);
  const end = s.hasSame(e, 'day') ? e.toFormat('HH:mm') : e.toFormat('ccc d LLL HH:mm');
  return `${s.toFormat('ccc d LLL yyyy, HH:mm')}–${end} ${zone}`;
}

export const deadlineText = (iso: string, zone = 'UTC') => `${at(iso, zone).toFormat('ccc d LLL yyyy, HH:mm')} ${zone}`;

/** The name people read for a bare JID: "alice" for alice@localhost. */
export const nameOf = (jid: string): string => jid.split('@')[0] ?? jid;

/** "a", "a and b", "a, b and c". */
export const list = (names: readonly string[]) =>
  names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;

export function bookedText(o: { title: string; slot: Window; attendees: string[]; absent: string[]; room?: string; renegotiated: boolean; zone?: string; unchecked?: boolean }): string {
  const lines = [
    `Booked: ${o.title}`,
    `When: ${when(o.slot, o.zone)}`,
    `Participants: ${list(o.attendees.map(displayName))}`,
    ...(o.room ? [`Room: ${displayName(o.room)}`] : []),
    ...(o.absent.length ? [`Not coming (optional, not free then): ${list(o.absent.map(displayName))}`] : []),
    ...(o.renegotiated ? ['(The first choice was taken in the meantime, so I negotiated a new time.)'] : []),
    ...(o.unchecked ? ['You have no calendar here, so your own time was not checked.'] : []),
    'The invitation (.ics) follows.',
  ];
  return lines.join('\n');
}

export interface Miss {
  who: string;
  why: string;
}

export function noSlotText(o: { misses: Miss[]; roomWanted: boolean; minutes: number; window: Window; zone?: string }): string {
  const why = o.misses.map((m) => `${displayName(m.who)} ${m.why}`);
  const head = `I could not find ${o.minutes} minutes ${o.roomWanted ? 'with a free room ' : ''}that everyone required can make between ${when(o.window, o.zone)}.`;
  return why.length ? `${head}\n${why.map((w) => `• ${w}`).join('\n')}` : head;
}

/**
 * The strict chat command that books exactly `slot` (UTC, parse.ts parseMeet): with the room that
 * was free then (`room`, room-atlas) by name, so the command books what the line offered; "-"
 * when nobody else comes (a room for the asker).
 */
export function bookCommand(slot: Window, o: { minutes: number; names: string[]; roomWanted: boolean; room?: string }): string {
  const hhmm = (iso: string) => `${new Date(iso).toISOString().slice(0, 16)}Z`;
  const room = o.room ? ` ${o.room.replace(/^room-/, '')}` : o.roomWanted ? ' room' : '';
  return `meet ${o.minutes}m ${o.names.length ? o.names.join(',') : '-'} ${hhmm(slot.start)}..${hhmm(slot.end)}${room}`;
}

// Choices are numbered in the text: the Presenter takes "2" or "book the second" for that choice
// (rich.choices; agents/presenter/shown-choices.ts remembers only lists whose text numbers them).
export const numbered = (labels: readonly string[]): string[] => labels.map((l, i) => `${i + 1}. ${l}`);
/** How a numbered list of `count` is answered. */
export const replyPick = (count: number): string => (count === 1 ? 'reply 1' : `reply its number (1–${count})`);

/** The nearest times that work after the asked ones failed (schedule, move): numbered, with how to pick one (`todo`: "book one"). */
export function nearestTimesLines(labels: readonly string[], todo: string, tail = ''): string[] {
  if (labels.length === 0) return ['There is no time everyone can make in the 3 days after that either.'];
  return ['The nearest times that work for everyone:', ...numbered(labels), `To ${todo}, ${replyPick(labels.length)}.${tail && ` ${tail}`}`];
}

/** After the asked window failed: the nearest times that work, each a choice, and the command that books the first. */
export function alternativesText(o: { head: string; slots: Array<{ slot: Window; room?: string }>; minutes: number; names: string[]; roomWanted: boolean; zone?: string }): string {
  const first = o.slots[0];
  const cmd = first ? bookCommand(first.slot, { ...o, ...(first.room ? { room: first.room } : {}) }) : '';
  const labels = o.slots.map((s) => `${when(s.slot, o.zone)}${s.room ? ` (room ${displayName(s.room)})` : ''}`);
  return [o.head, ...nearestTimesLines(labels, 'book one', `The first in full: ${cmd}`)].join('\n');
}

export const unknownPeopleText = (names: string[]) =>
  `I don't know a calendar for ${list(names)}. Only people with a calendar agent can be invited.`;

/**
 * Why no room was asked, with the rooms there are, so the next line can name one: a name no room
 * has (often a word after "in" that was no room: parse.ts roomWish), a named room too small, or
 * none large enough.
 */
export function noRoomText(seats: number, name: string | undefined, rooms: ReadonlyArray<{ name: string; capacity: number }>): string {
  const seatsText = (n: number) => `${n} ${n === 1 ? 'seat' : 'seats'}`;
  const listed = (rs: ReadonlyArray<{ name: string; capacity: number }>) => rs.map((r) => `${r.name} (${seatsText(r.capacity)})`).join(', ');
  if (rooms.length === 0) return 'There are no rooms here to book.';
  const fitting = rooms.filter((r) => r.capacity >= seats);
  const named = name ? rooms.find((r) => r.name === name) : undefined;
  if (named) {
    return `${named.name} has ${seatsText(named.capacity)}, not ${seats}.${fitting.length ? ` Rooms for ${seats}: ${listed(fitting)}.` : ''}`;
  }
  if (name) return `There is no room called "${name}". The rooms: ${listed(rooms)}.`;
  const largest = rooms[rooms.length - 1] as { name: string; capacity: number };
  return `No room can seat ${seats} people; the largest is ${largest.name} (${seatsText(largest.capacity)}).`;
}

export const directoryDownText = 'I could not reach the directory, so I cannot find calendars right now. Please try again shortly.';

const TASK_VERBS: Record<string, [string, string]> = {
  ACCEPTED: ['accepted', 'accepted'], DECLINED: ['declined', 'declined'], IN_PROGRESS: ['is working on', 'are working on'],
  COMPLETED: ['completed', 'completed'], BLOCKED: ['is blocked on', 'are blocked on'],
};

/** "bob is working on "Q1 report" (50%): draft started." — `you` for the assignee's own confirmation. */
export function taskUpdateText(o: { subject: string; title: string; status: string; progress?: number; comment?: string }): string {
  const [they, you] = TASK_VERBS[o.status] ?? [o.status.toLowerCase(), o.status.toLowerCase()];
  const pct = o.progress !== undefined && o.status !== 'COMPLETED' ? ` (${o.progress}%)` : '';
  return `${o.subject} ${o.subject === 'you' ? you : they} "${o.title}"${pct}${o.comment ? `: ${o.comment}` : ''}.`;
}
