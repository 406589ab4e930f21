// Busy time from stored events inside a window: recurring series expanded with ical.js
// (RRULE incl. several rules, RDATE incl. PERIOD, EXDATE, RECURRENCE-ID overrides), DURATION
// or DTEND, all-day dates and floating times read in the person's zone, VTIMEZONE offsets from
// the stored definitions (unknown TZIDs fall back to the IANA database via luxon).
// TRANSP:TRANSPARENT and STATUS:CANCELLED do not block time (RFC 5545 §3.8.2.7, §3.8.1.11).
import ICAL from 'ical.js';
import { DateTime, IANAZone } from 'luxon';
import type { Component } from './ical.js';

export interface Interval {
  start: number;
  end: number;
}

/** One instance of an event overlapping the window (zero-length instances included). */
export interface Occurrence extends Interval {
  uid: string;
  /** False for TRANSP:TRANSPARENT or STATUS:CANCELLED instances. */
  blocks: boolean;
}

/** Upper bound on instances visited per series (a FREQ=MINUTELY rule must not hang the agent). */
export const MAX_INSTANCES = 200_000;

type Time = InstanceType<typeof ICAL.Time>;

/** Milliseconds since the epoch for an iCalendar time; dates and floating times are local to `zone`. */
export function toMs(t: Time, tzid: string | undefined, zone: string): number {
  if (t.isDate) return DateTime.fromObject({ year: t.year, month: t.month, day: t.day }, { zone }).toMillis();
  if (t.zone && t.zone.tzid !== 'floating') return t.toUnixTime() * 1000;
  const z = tzid !== undefined && IANAZone.isValidZone(tzid) ? tzid : zone;
  return DateTime.fromObject({ year: t.year, month: t.month, day: t.day, hour: t.hour, minute: t.minute, second: t.second }, { zone: z }).toMillis();
}

function tzidOf(comp: Component, prop: string): string | undefined {
  const p = comp.getFirstProperty(prop);
  const tz = p?.getParameter('tzid');
  return typeof tz === 'string' ? tz : undefined;
}

function blocks(comp: Component): boolean {
  const transp = String(comp.getFirstPropertyValue('transp') ?? '').toUpperCase();
  const status = String(comp.getFirstPropertyValue('status') ?? '').toUpperCase();
  return transp !== 'TRANSPARENT' && status !== 'CANCELLED';
}

function intervalOf(event: InstanceType<typeof ICAL.Event>, start: Time, end: Time, zone: string): Interval {
  const tz = tzidOf(event.component, 'dtstart');
  const s = toMs(start, tz, zone);
  const e = toMs(end, tzidOf(event.component, 'dtend') ?? tz, zone);
  return { start: s, end: Math.max(s, e) };
}


// Zero-length instances (DTSTART only, RFC 5545 §3.6.1) count when they fall inside the window.
const overlaps = (i: Interval, w: Interval): boolean => i.start < w.end && (i.end > w.start || (i.end === i.start && i.start >= w.start));

/** Instances of one UID group (a master and its overrides, or overrides alone). */
function occurrencesOfGroup(uid: string, master: Component | undefined, overrides: Component[], window: Interval, zone: string): Occurrence[] {
  const out: Occurrence[] = [];
  const add = (i: Interval, comp: Component) => {
    if (overlaps(i, window)) out.push({ uid, start: i.start, end: i.end, blocks: blocks(comp) });
  };
  if (!master) {
    for (const o of overrides) {
      const ev = new ICAL.Event(o);
      add(intervalOf(ev, ev.startDate, ev.endDate, zone), o);
    }
    return out;
  }
  const event = new ICAL.Event(master, { exceptions: overrides });
  if (!event.isRecurring()) {
    add(intervalOf(event, event.startDate, event.endDate, zone), master);
    return out;
  }
  const seen = new Set<string>();
  const it = event.iterator();
  for (let n = 0, step = it.next(); step && n < MAX_INSTANCES; n += 1, step = it.next()) {
    // RDATE;VALUE=PERIOD instances come as a Period and last their own period, not the master's duration.
    const period = (step as unknown) instanceof ICAL.Period ? (step as unknown as InstanceType<typeof ICAL.Period>) : undefined;
    const next = period ? period.start : step;
    const details = event.getOccurrenceDetails(next);
    const item = details.item ?? event;
    seen.add(details.recurrenceId.toString());
    const end = period && item === event ? period.getEnd() : details.endDate;
    add(intervalOf(item, details.startDate, end, zone), item.component);
    // Instances come in order of their original start; an override may move one later, hence the margin.
    if (toMs(next, tzidOf(master, 'dtstart'), zone) > window.end + 7 * 86_400_000) break;
  }
  // Overrides of instances beyond the stop point may have been moved into the window.
  for (const o of overrides) {
    const rid = o.getFirstPropertyValue('recurrence-id');
    if (rid && seen.has(String(rid))) continue;
    const ev = new ICAL.Event(o);
    add(intervalOf(ev, ev.startDate, ev.endDate, zone), o);
  }
  return out.sort((a, b) => a.start - b.start);
}

/**
 * Every instance overlapping the window, sorted by start. `events` are VEVENT components (any mix
 * of masters and overrides, typically all children of one VCALENDAR so TZIDs resolve).
 */
export function occurrences(events: readonly Component[], window: Interval, zone: string): Occurrence[] {
  const groups = new Map<string, { master?: Component; overrides: Component[] }>();
  for (const comp of events) {
    const uid = String(comp.getFirstPropertyValue('uid') ?? '');
    const g = groups.get(uid) ?? { overrides: [] };
    if (comp.hasProperty('recurrence-id')) g.overrides.push(comp);
    else g.master = comp;
    groups.set(uid, g);
  }
  const all: Occurrence[] = [];
  for (const [uid, g] of groups) all.push(...occurrencesOfGroup(uid, g.master, g.overrides, window, zone));
  return all.sort((a, b) => a.start - b.start);
}

/** Busy time: the blocking instances, clipped to the window, sorted and merged. */
export function busyIntervals(events: readonly Component[], window: Interval, zone: string): Interval[] {
  const busy = occurrences(events, window, zone).filter((o) => o.blocks);
  return merge(busy.map((i) => ({ start: Math.max(i.start, window.start), end: Math.min(i.end, window.end) })));
}

/** Sorts and merges overlapping or touching intervals. */
export function merge(intervals: readonly Interval[]): Interval[] {
  const sorted = intervals.filter((i) => i.end > i.start).sort((a, b) => a.start - b.start);
  const out: Interval[] = [];
  for (const i of sorted) {
    const last = out[out.length - 1];
    if (last && i.start <= last.end) last.end = Math.max(last.end, i.end);
    else out.push({ ...i });
  }
  return out;
}
