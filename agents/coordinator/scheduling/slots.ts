// Slot arithmetic for the initiator (OACoP §3.2–§3.3): intersect the participants' available
// slots, honour requiredParticipants, pick the earliest slot all can make (else the earliest the
// required ones can make), and one room free then. Pure; times are UTC ISO strings.
import { DateTime } from 'luxon';

export interface Window {
  start: string;
  end: string;
}

interface Ms {
  s: number;
  e: number;
}

const ms = (iso: string) => Date.parse(iso);
const iso = (t: number) => new Date(t).toISOString().replace('.000Z', 'Z');

/** hour0..hour1 on the day of `day`, in its zone. */
export function dayWindow(day: DateTime, hour0: number, hour1: number): Window {
  // Working hours of that day in `day`'s own zone (the person's), written in UTC.
  const d = day.startOf('day');
  return { start: d.set({ hour: hour0 }).toUTC().toISO() as string, end: d.set({ hour: hour1 }).toUTC().toISO() as string };
}

/** Sorted, merged, clipped to `within`; malformed slots are dropped (never trusted). */
export function normalise(slots: readonly Window[], within: Window): Ms[] {
  const lo = ms(within.start);
  const hi = ms(within.end);
  const out: Ms[] = [];
  const list = slots
    .map((w) => ({ s: Math.max(lo, ms(w.start)), e: Math.min(hi, ms(w.end)) }))
    .filter((w) => Number.isFinite(w.s) && Number.isFinite(w.e) && w.e > w.s)
    .sort((a, b) => a.s - b.s);
  for (const w of list) {
    const last = out[out.length - 1];
    if (last && w.s <= last.e) last.e = Math.max(last.e, w.e);
    else out.push({ ...w });
  }
  return out;
}

function intersectTwo(a: Ms[], b: Ms[]): Ms[] {
  const out: Ms[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] as Ms;
    const y = b[j] as Ms;
    const s = Math.max(x.s, y.s);
    const e = Math.min(x.e, y.e);
    if (e > s) out.push({ s, e });
    if (x.e < y.e) i += 1;
    else j += 1;
  }
  return out;
}

/** The time every list has free (an empty list of lists → the whole window). */
export function intersect(lists: ReadonlyArray<readonly Window[]>, within: Window): Window[] {
  let acc: Ms[] = [{ s: ms(within.start), e: ms(within.end) }];
  for (const l of lists) acc = intersectTwo(acc, normalise(l, within));
  return acc.map((w) => ({ start: iso(w.s), end: iso(w.e) }));
}

/** `slots` without the `held` times (the Coordinator's own in-flight bookings, holds.ts). */
export function minus(slots: readonly Window[], held: readonly Window[], within: Window): Window[] {
  const h = normalise(held, within);
  const out: Window[] = [];
  for (const w of normalise(slots, within)) {
    let cursor = w.s;
    for (const x of h) {
      if (x.e <= cursor || x.s >= w.e) continue;
      if (x.s > cursor) out.push({ start: iso(cursor), end: iso(x.s) });
      cursor = Math.max(cursor, x.e);
    }
    if (cursor < w.e) out.push({ start: iso(cursor), end: iso(w.e) });
  }
  return out;
}

/** Earliest start in `free` that fits `minutes`, on a `stepMin` grid from the window start. */
export function earliest(free: readonly Window[], minutes: number, stepMin = 5): Window | undefined {
  const len = minutes * 60000;
  const step = stepMin * 60000;
  for (const w of free) {
    const s0 = ms(w.start);
    const s = Math.ceil(s0 / step) * step;
    if (s + len <= ms(w.end)) return { start: iso(s), end: iso(s + len) };
  }
  return undefined;
}

export interface Offer {
  /** Participant (calendar agent name) or room (room-<name>). */
  who: string;
  slots: Window[];
}

export interface Choice {
  slot: Window;
  /** Participants who can make it (all required ones, plus the optional ones free then). */
  attendees: string[];
  /** Optional participants left out. */
  absent: string[];
  room?: string;
}

const covers = (slots: readonly Window[], slot: Window, within: Window) =>
  normalise(slots, within).some((w) => w.s <= ms(slot.start) && w.e >= ms(slot.end));

/**
 * §3.3 "the initiator chooses the best slot": the earliest slot everybody can make, else the
 * earliest the required participants can make (optional ones free then still come). With rooms
 * in play, the slot must also be free in at least one room: the first room (in `rooms` order,
 * i.e. smallest fitting first) that has it. Participants who declined or did not answer are
 * absent from `people`.
 */
export function choose(
  o: { people: readonly Offer[]; required: readonly string[]; rooms?: readonly Offer[]; window: Window; minutes: number },
): Choice | undefined {
  const roomSets = o.rooms === undefined ? [undefined] : o.rooms.map((r) => r);
  if (o.rooms !== undefined && o.rooms.length === 0) return undefined;
  if (o.required.some((r) => !o.people.some((p) => p.who === r))) return undefined;
  const required = o.people.filter((p) => o.required.includes(p.who));
  const candidates: Array<{ slot: Window; everyone: boolean; room?: string }> = [];
  for (const room of roomSets) {
    const extra = room ? [room.slots] : [];
    const all = earliest(intersect([...o.people.map((p) => p.slots), ...extra], o.window), o.minutes);
    if (all) candidates.push({ slot: all, everyone: true, ...(room ? { room: room.who } : {}) });
    const req = earliest(intersect([...required.map((p) => p.slots), ...extra], o.window), o.minutes);
    if (req) candidates.push({ slot: req, everyone: false, ...(room ? { room: room.who } : {}) });
  }
  // Everybody beats required-only; then earliest; then room order (stable sort keeps it).
  candidates.sort((a, b) => Number(b.everyone) - Number(a.everyone) || ms(a.slot.start) - ms(b.slot.start));
  const best = candidates[0];
  if (!best) return undefined;
  const attendees = o.people.filter((p) => o.required.includes(p.who) || covers(p.slots, best.slot, o.window)).map((p) => p.who);
  const absent = o.people.map((p) => p.who).filter((w) => !attendees.includes(w));
  return { slot: best.slot, attendees, absent, ...(best.room ? { room: best.room } : {}) };
}

/** A slot's length in whole minutes. */
export const minutesOf = (w: Window): number => Math.round((Date.parse(w.end) - Date.parse(w.start)) / 60_000);

/** ISO 8601 duration for §2.2 object.duration: 30 → PT30M, 90 → PT1H30M. */
export function isoDuration(minutes: number): string {
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return `PT${h ? `${h}H` : ''}${m || !h ? `${m}M` : ''}`;
}
