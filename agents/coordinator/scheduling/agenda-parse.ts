// The ways a person asks what lies ahead of them (agenda.ts answers): "my tasks", "what are my
// meetings?", "show my agenda", "agenda", "what's on my calendar tomorrow?", and as people say it
// in a chat: "when is my next meeting?", "do I have any meetings this week?", "what meetings do I
// have on friday?", "what tasks do I have?", "what's on tomorrow?". Pure: `now` comes in.
import { DateTime } from 'luxon';
import type { Window } from './slots.js';

export interface AgendaQuestion {
  kind: 'agenda';
  part: 'meetings' | 'tasks' | 'both';
  /** "tomorrow", "this week", "Friday"…: that span's meetings, the tasks due by its end. */
  within?: { label: string; window: Window };
  /** "when is my next meeting?": only the first meeting ahead. */
  next?: true;
}

const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
const SPAN = `(today|tomorrow|this\\s+week|next\\s+week|(?:on\\s+)?(?:${WEEKDAYS.join('|')}))`;
const END = '\\s*[?.!]?\\s*$';

// "my tasks", "what are my meetings?", "show my agenda", "agenda", "what's on my calendar tomorrow?".
const MINE = new RegExp(`^\\s*(?:please\\s+)?(?:(?:show|list|what(?:'s|\\s+is|\\s+are))\\s+)?(?:me\\s+)?(?:(?:on\\s+)?my\\s+)?(meetings|tasks|agenda|schedule|calendar)(?:\\s+(?:for\\s+)?${SPAN})?${END}`, 'i');
// "do I have any meetings today?", "have I got any tasks?", "any meetings on friday?".
const DO_I_HAVE = new RegExp(`^\\s*(?:(?:do|will)\\s+i\\s+have\\s+(?:any\\s+)?|have\\s+i\\s+got\\s+(?:any\\s+)?|any\\s+)(meetings?|tasks?)(?:\\s+(?:for\\s+)?${SPAN})?${END}`, 'i');
// "what meetings do I have tomorrow?", "which tasks have I got?".
const WHICH = new RegExp(`^\\s*(?:what|which)\\s+(meetings|tasks)\\s+(?:do\\s+i\\s+have|have\\s+i\\s+got)(?:\\s+(?:for\\s+)?${SPAN})?${END}`, 'i');
// "what's on today?", "what do I have on friday?" (a span is required: "what is today?" is a date question).
const WHATS_ON = new RegExp(`^\\s*what(?:(?:'s|\\s+is)\\s+on|\\s+do\\s+i\\s+have)\\s+(?:for\\s+)?${SPAN}${END}`, 'i');
// "when is my next meeting?", "what's my next meeting", "next meeting?".
const NEXT = /^\s*(?:(?:when|what|where)(?:'s|\s+is)\s+)?(?:my\s+)?next\s+meeting\s*[?.!]?\s*$/i;

// "who is in my meeting on monday?", "who's coming to my next meeting?": the agenda lists who is in each.
const WHO_IS_IN = new RegExp(`^\\s*who(?:'s|\\s+is|\\s+are)\\s+(?:coming\\s+to|in|attending|invited\\s+to|at)\\s+(?:my|the|our)\\s+(next\\s+)?meetings?(?:\\s+(?:for\\s+)?${SPAN})?${END}`, 'i');

/** The days a "today" … "next week" or a weekday names, in the person's zone, written in UTC. */
export function agendaWindow(word: string, now: Date, zone: string): { label: string; window: Window } {
  const words = word.toLowerCase().replace(/\s+/g, ' ').replace(/^on /, '');
  const day = DateTime.fromJSDate(now).setZone(zone).startOf('day');
  const week = day.startOf('week');
  const weekday = WEEKDAYS.indexOf(words);
  if (weekday >= 0) {
    // The next such day, today included (Luxon's weekday: 1 = Monday).
    const from = day.plus({ days: (weekday + 1 - day.weekday + 7) % 7 });
    return { label: from.toFormat('cccc'), window: { start: from.toUTC().toISO() as string, end: from.plus({ days: 1 }).toUTC().toISO() as string } };
  }
  const [from, to] = {
    today: [day, day.plus({ days: 1 })],
    tomorrow: [day.plus({ days: 1 }), day.plus({ days: 2 })],
    'this week': [day, week.plus({ weeks: 1 })],
    'next week': [week.plus({ weeks: 1 }), week.plus({ weeks: 2 })],
  }[words] as [DateTime, DateTime];
  return { label: words, window: { start: from.toUTC().toISO() as string, end: to.toUTC().toISO() as string } };
}

const partOf = (word: string): AgendaQuestion['part'] => {
  const w = word.toLowerCase().replace(/s$/, '');
  return w === 'meeting' ? 'meetings' : w === 'task' ? 'tasks' : 'both';
};

/** An agenda question in `text` (a leading "/" already cut), or undefined. */
export function parseAgenda(text: string, now: Date, zone: string): AgendaQuestion | undefined {
  if (NEXT.test(text)) return { kind: 'agenda', part: 'meetings', next: true };
  const who = WHO_IS_IN.exec(text);
  if (who) return { kind: 'agenda', part: 'meetings', ...(who[1] ? { next: true as const } : {}), ...(who[2] ? { within: agendaWindow(who[2], now, zone) } : {}) };
  const span = (w: string | undefined) => (w ? { within: agendaWindow(w, now, zone) } : {});
  const mine = MINE.exec(text);
  // A bare "schedule" or "calendar" is not a question about one's own agenda.
  if (mine && (/\bmy\b/i.test(text) || /^\s*\/?agenda\b/i.test(text))) return { kind: 'agenda', part: partOf(mine[1] as string), ...span(mine[2]) };
  const asked = DO_I_HAVE.exec(text) ?? WHICH.exec(text);
  if (asked) return { kind: 'agenda', part: partOf(asked[1] as string), ...span(asked[2]) };
  const on = WHATS_ON.exec(text);
  return on ? { kind: 'agenda', part: 'both', ...span(on[1]) } : undefined;
}
