// "move that meeting to 3pm", "reschedule my meeting": moving a meeting in one step (a new OACoP
// revision of its thread, and the old slot given back to every calendar when the new one fails)
// is not built. Until it is, the person is not told "I can't help with that one" but how to do
// it in two steps, with the booking command written out from the meeting itself. Pure.
import { DateTime } from 'luxon';
import { displayName } from './oacop.js';
import type { MeetingRecord } from './store.js';
import { when } from './texts.js';

export interface MoveQuestion {
  kind: 'move-meeting';
  /** The new time as the person wrote it ("3pm", "tomorrow at 10"), '' when none. */
  to: string;
}

const MOVE = /^\s*(?:please\s+|can\s+you\s+|could\s+you\s+)?(?:move|reschedule|postpone|shift|push)\s+(?:that|the|my|our|this)\s+(?:last\s+)?(?:meeting|appointment)\b(?:\s+(?:with\s+[a-z][a-z0-9._-]*(?:\s*(?:,|and)\s*[a-z][a-z0-9._-]*)*))?\s*(?:to\s+)?(.*?)\s*[?.!]*\s*$/i;

export function parseMove(text: string): MoveQuestion | undefined {
  const m = MOVE.exec(text);
  return m ? { kind: 'move-meeting', to: (m[1] ?? '').trim() } : undefined;
}

const NAMES_A_DAY = /\b(?:today|tomorrow|tonight|next|mon|tue|wed|thu|fri|sat|sun|\d{4}-\d{2}-\d{2}|\d{1,2}(?:st|nd|rd|th)?\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\s+\d{1,2})/i;

/** The two steps, with the command that books `to` (on the meeting's own day when `to` names no day). */
export function moveText(m: MeetingRecord | undefined, q: MoveQuestion, asker: string, zone: string): string {
  if (!m) return 'You have no booked meeting to move.';
  if (m.status === 'CANCELLED') return `Your last booked meeting ("${m.title}", ${when(m.slot, zone)}) is cancelled. "my meetings" lists the ones ahead.`;
  const minutes = Math.round((Date.parse(m.slot.end) - Date.parse(m.slot.start)) / 60_000);
  const own = asker.split('@')[0];
  const others = m.participants.map(displayName).filter((p) => p !== own);
  const day = DateTime.fromISO(m.slot.start, { zone: 'utc' }).setZone(zone).setLocale('en-GB').toFormat('d LLLL');
  const time = q.to === '' ? `on ${day} at <new time>` : NAMES_A_DAY.test(q.to) ? q.to : `on ${day} ${/^(?:at|from)\s/i.test(q.to) ? q.to : `at ${q.to}`}`;
  const room = m.room ? ` in ${displayName(m.room)}` : '';
  const book = others.length
    ? `schedule ${minutes} min with ${others.join(' and ')} ${time}${room}`
    : `book ${m.room ? `room ${displayName(m.room)}` : 'a room'} ${time} for ${minutes} min`;
  return [
    `I can't move a meeting in one step yet. To move "${m.title}" (${when(m.slot, zone)}):`,
    '1. say "cancel that meeting" (everyone is told), then',
    `2. book the new time: "${book}".`,
  ].join('\n');
}
