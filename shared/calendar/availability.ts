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

/**
 * Why a calendar declines a window in which it has no working time at all (ProposalResponse
 * `comment`, oacop-rfc §3.2): its hours, which a person reads anyway in their own calendar's
 * invitations; never what its busy time is (§1.1). The Coordinator quotes it only in this form.
 */
export const OUTSIDE_WORKING_HOURS = 'outside working hours';
export const OUTSIDE_WORKING_HOURS_RE = /^outside working hours \((?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[A-Za-z ,–]{0,40} \d\d:\d\d–\d\d:\d\d [A-Za-z0-9_/+-]{1,40}\)$/;

const DAY_NAMES = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

/** Working hours as a person reads them: "Mon–Fri 09:00–17:00 Europe/Berlin", "Mon, Wed 08:00–12:00 UTC". */
export function describeHours(h: WorkingHours): string {
  const days = [...new Set(h.days)].sort((a, b) => a - b);
  const contiguous = days.length > 2 && days.every((d, i) => i === 0 || d === (days[i - 1] as number) + 1);
  const names = contiguous ? `${DAY_NAMES[(days[0] as number) - 1]}–${DAY_NAMES[(days.at(-1) as number) - 1]}` : days.map((d) => DAY_NAMES[d - 1]).join(', ');
  return `${names} ${h.start}–${h.end} ${h.timezone}`;
}

/** The comment for a window with no working time in it, else undefined. */
export function outsideHoursComment(hours: WorkingHours, window: Interval): string | undefined {
  return workingIntervals(hours, window).length === 0 ? `${OUTSIDE_WORKING_HOURS} (${describeHours(hours)})` : undefined;
}

