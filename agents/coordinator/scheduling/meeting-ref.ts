// Which of a person's meetings a line names by what it is rather than by number or "that": a day
// and/or a time ("cancel my 3pm meeting", "the meeting at 15:30", "tomorrow's meeting"), words
// of its title, a person or room in it ("the budget meeting", "the atlas meeting"), a room
// booking. Such a line never falls back to the last booked meeting: "cancel the meeting at 15:30"
// once cancelled the last booked one, at 14:00, whatever it said (found by hand on npm start).
// Read from the words around the noun (refWords: pure text), matched against the meetings with
// the person's zone and the time now (refMatcher).
import * as chrono from 'chrono-node/en';
import { DateTime } from 'luxon';
import { displayName } from './oacop.js';
import type { MeetingRecord } from './store.js';
import { list } from './texts.js';
import { offsetAt } from './zones.js';

export interface MeetingRef {
  /** "with bob": every one of them in it (a participant or its room). */
  with?: string[];
  /** The day and/or time as written ("3pm", "tomorrow", "monday at 10"), read when matched. */
  when?: string;
  /** "my next meeting": the soonest of those that fit. */
  next?: true;
  /** "the room booking": one with a room. */
  room?: true;
  /** Other words, each in its title or the name of someone or a room in it ("budget", "atlas"). */
  words?: string[];
}

// Words that point without naming: "the last meeting I booked", "that one on friday".
const FILLER = new Set(['the', 'that', 'this', 'my', 'our', 'last', 'one', 'on', 'at', 'for', 'of', 'in', 'from', 'scheduled', 'booked',
  'planned', 'please', 'i', 'we', 'have', 'had', 'made', 'set', 'up', 'a', 'an', 'upcoming']);

/** What the words beside "meeting" say about it (the with-clause already taken out); {} for none. */
export function refWords(text: string): Omit<MeetingRef, 'with'> {
  // "tomorrow's", "friday's": the day; "3 o'clock": the hour (chrono reads "3").
  const t = text.toLowerCase().replace(/'s\b/g, '').replace(/\b(\d{1,2})\s*o'?clock\b/g, '$1:00').replace(/[?!.,;:"]+(?=\s|$)/g, ' ').trim();
  if (!t) return {};
  const found = chrono.parse(t, new Date(0), { forwardDate: true });
  let rest = t;
  for (const r of found) rest = rest.replace(r.text, ' ');
  const words = rest.split(/\s+/).filter((w) => w && !FILLER.has(w));
  const room = words.includes('room') || undefined;
  const next = words.some((w) => w === 'next' || w === 'first') || undefined;
  const named = words.filter((w) => !['room', 'booking', 'next', 'first'].includes(w));
  return {
    ...(found.length ? { when: found.map((r) => r.text).join(' ') } : {}),
    ...(next ? { next } : {}),
    ...(room ? { room } : {}),
    ...(named.length ? { words: named } : {}),
  };
}

/** Whether `ref` says anything at all (otherwise the line means the last booked meeting). */
export const hasRef = (ref: MeetingRef): boolean => Boolean(ref.with?.length || ref.when || ref.room || ref.next || ref.words?.length);

interface When { day?: string; minute?: number; meridiem: boolean }

function readWhen(text: string, now: Date, zone: string): When | undefined {
  const r = chrono.parse(text, { instant: now, timezone: offsetAt(zone, now) }, { forwardDate: true })[0];
  if (!r) return undefined;
  const start = DateTime.fromJSDate(r.start.date()).setZone(zone);
  const dayKnown = r.start.isCertain('day') || r.start.isCertain('weekday');
  return {
    ...(dayKnown ? { day: start.toISODate() as string } : {}),
    ...(r.start.isCertain('hour') ? { minute: start.hour * 60 + start.minute } : {}),
    meridiem: r.start.isCertain('meridiem'),
  };
}

const named = (m: MeetingRecord): string[] => [...m.participants, ...(m.room ? [m.room] : [])].map((p) => displayName(p).toLowerCase());

/** Which meetings `ref` describes, their day and time read in `zone` (the words parsed once, not per meeting). */
export function refMatcher(ref: MeetingRef, now: Date, zone: string): (m: MeetingRecord) => boolean {
  const w = ref.when ? readWhen(ref.when, now, zone) : undefined;
  return (m) => {
    const people = named(m);
    if (ref.with?.some((n) => !people.includes(n.toLowerCase()))) return false;
    if (ref.room && !m.room) return false;
    const titleWords = m.title.toLowerCase().split(/[^a-z0-9]+/);
    if (ref.words?.some((x) => !titleWords.includes(x) && !people.includes(x))) return false;
    if (!ref.when) return true;
    if (!w) return false;
    const start = DateTime.fromISO(m.slot.start).setZone(zone);
    if (w.day !== undefined && start.toISODate() !== w.day) return false;
    if (w.minute === undefined) return true;
    const minute = start.hour * 60 + start.minute;
    // "my 3 o'clock meeting" is 15:00 as often as 03:00: without am/pm either will do.
    return minute === w.minute || (!w.meridiem && w.minute < 12 * 60 && minute === w.minute + 12 * 60);
  };
}

/** The description in a reply: "with bob", "tomorrow at 3pm", "called "budget"", "with a room". */
export function refText(ref: MeetingRef): string {
  const parts = [
    ...(ref.with?.length ? [`with ${list(ref.with)}`] : []),
    ...(ref.when ? [/^\d/.test(ref.when) ? `at ${ref.when}` : ref.when] : []),
    ...(ref.words?.length ? [`called "${ref.words.join(' ')}"`] : []),
    ...(ref.room ? ['with a room'] : []),
  ];
  if (ref.next && parts.length === 0) return '';
  return parts.join(' ');
}
