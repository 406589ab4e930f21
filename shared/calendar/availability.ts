// Free time = (requested window ∩ working hours) − busy. Only this ever leaves a calendar
// (oacop-rfc §1.1 "Privacy of Availability": explicit free slots inside the requested timeWindow,
// never what the busy time is).
import { DateTime } from 'luxon';
import { minutesOf, type WorkingHours } from './config.js';
import { merge, type Interval } from './expand.js';

/** Working-hour intervals overlapping the window, in the hours' own zone (DST-correct per day). */
export function workingIntervals(hours: WorkingHours, window: Interval): Interval[] {
  const out: Interval[] = [];
  const startMin = minutesOf(hours.start);
  const endMin = minutesOf(hours.end);
  let day = DateTime.fromMillis(window.start, { zone: hours.timezone }).startOf('day').minus({ days: 1 });
  const last = DateTime.fromMillis(window.end, { zone: hours.timezone }).endOf('day');
  for (; day <= last; day = day.plus({ days: 1 })) {
    if (!hours.days.includes(day.weekday)) continue;
    const s = day.plus({ minutes: startMin }).toMillis();
    const e = day.plus({ minutes: endMin }).toMillis();
    const clipped = { start: Math.max(s, window.start), end: Math.min(e, window.end) };
    if (clipped.end > clipped.start) out.push(clipped);
  }
  return merge(out);
}

/** `base` minus the (merged, sorted) `busy` intervals. */
export function subtract(base: readonly Interval[], busy: readonly Interval[]): Interval[] {
  const out: Interval[] = [];
  for (const b of base) {
    let cursor = b.start;
    for (const x of busy) {
      if (x.end <= cursor || x.start >= b.end) continue;
      if (x.start > cursor) out.push({ start: cursor, end: x.start });
      cursor = Math.max(cursor, x.end);
      if (cursor >= b.end) break;
    }
    if (cursor < b.end) out.push({ start: cursor, end: b.end });
  }
  return out;
}

/** Free intervals of at least `durationMs` inside the window and the working hours. */
export function freeIntervals(hours: WorkingHours, window: Interval, busy: readonly Interval[], durationMs: number): Interval[] {
  return subtract(workingIntervals(hours, window), merge(busy)).filter((i) => i.end - i.start >= durationMs);
}

/** True when [slot.start, slot.end) lies inside one free interval. */
export function isFree(slot: Interval, free: readonly Interval[]): boolean {
  return free.some((f) => f.start <= slot.start && f.end >= slot.end);
}

export interface IsoSlot {
  start: string;
  end: string;
}

/** UTC ISO strings without milliseconds, e.g. 2025-12-10T09:00:00Z (oacop-rfc §3.2). */
export function isoSlot(i: Interval): IsoSlot {
  const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
  return { start: iso(i.start), end: iso(i.end) };
}

/** Time free in every list (the meeting a group can make), e.g. several participants' free intervals. */
export function intersectAll(lists: readonly (readonly Interval[])[]): Interval[] {
  if (lists.length === 0) return [];
  let acc: Interval[] = [...(lists[0] ?? [])];
  for (const next of lists.slice(1)) {
    const out: Interval[] = [];
    for (const a of acc) {
      for (const b of next) {
        const start = Math.max(a.start, b.start);
        const end = Math.min(a.end, b.end);
        if (end > start) out.push({ start, end });
      }
    }
    acc = out.sort((x, y) => x.start - y.start);
  }
  return acc;
}
