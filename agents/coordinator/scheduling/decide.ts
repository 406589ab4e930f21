// The initiator's decisions between rounds (OACoP §3), pure: who is invited (names → calendars,
// rooms by seats), what the proposal round yielded, and how the confirm round ended.
import type { Envelope } from '../../../shared/acl/index.js';
import { OUTSIDE_WORKING_HOURS_RE } from '../../../shared/calendar/index.js';
import type { AgentProfile } from '../../../shared/contracts/index.js';
import { calendarOf, errorCode, isAck, offeredSlots } from './oacop.js';
import type { RoomWish, ScheduleRequest } from './parse.js';
import { type Choice, choose, minus, type Offer, type Window } from './slots.js';
import type { Miss } from './texts.js';

export interface Party {
  /** Logical agent name: calendar-bob, room-atlas. */
  name: string;
  required: boolean;
}

export type Invitees =
  | { ok: true; people: Party[]; rooms: string[]; seats: number }
  | { ok: false; unknown: string[] }
  | { ok: false; noRoom: { seats: number; name?: string; rooms: RoomSeats[] } };

/** A room and its seats, as the person reads it in "the rooms there are". */
export interface RoomSeats {
  name: string;
  capacity: number;
}

/** Room profile fields (contracts/register.json RoomProfile). */
const capacityOf = (p: AgentProfile) => p.room?.capacity ?? 0;

/** Rooms asked per meeting: the smallest fitting ones (asking every room multiplies the rooms' work). */
export const MAX_ROOMS_ASKED = 3;

export function roomsFor(wish: RoomWish, seats: number, rooms: readonly AgentProfile[]): string[] {
  return rooms
    .filter((r) => (wish.name ? r.name === `room-${wish.name}` : true) && capacityOf(r) >= seats)
    .sort((a, b) => capacityOf(a) - capacityOf(b) || a.name.localeCompare(b.name))
    .map((r) => r.name)
    .slice(0, MAX_ROOMS_ASKED);
}

/** Names → calendar agents (the asker's own calendar joins, required, when it exists). */
export function invitees(wish: ScheduleRequest, asker: string, calendars: readonly AgentProfile[], rooms: readonly AgentProfile[] | undefined): Invitees {
  const unknown = wish.participants.filter((n) => !calendarOf(calendars, n));
  if (unknown.length) return { ok: false, unknown };
  const people: Party[] = [];
  const own = calendarOf(calendars, asker.split('@')[0] ?? asker);
  if (own) people.push({ name: own.name, required: true });
  for (const n of wish.participants) {
    const cal = calendarOf(calendars, n) as AgentProfile;
    if (!people.some((p) => p.name === cal.name)) people.push({ name: cal.name, required: !wish.optional.includes(n) });
  }
  // Seats: as asked, else everyone invited plus the asker when they have no calendar here.
  const seats = wish.room?.capacity ?? people.length + (own ? 0 : 1);
  if (!wish.room) return { ok: true, people, rooms: [], seats };
  const fitting = roomsFor(wish.room, seats, rooms ?? []);
  if (fitting.length === 0) {
    const all = (rooms ?? []).map((r) => ({ name: r.name.replace(/^room-/, ''), capacity: capacityOf(r) })).sort((a, b) => a.capacity - b.capacity || a.name.localeCompare(b.name));
    return { ok: false, noRoom: { seats, ...(wish.room.name ? { name: wish.room.name } : {}), rooms: all } };
  }
  return { ok: true, people, rooms: fitting, seats };
}

/**
 * Why a party offers nothing, truthfully (issue 16): a calendar answers DECLINED exactly when it
 * has no free slot in the window (shared/oacop/scheduling.ts), so that is "busy then", not a
 * refusal; else an OACoP error, or silence.
 */
function missOf(name: string, env: Envelope | undefined): Miss {
  if (!env) return { who: name, why: 'did not answer in time' };
  if (env.content.type === 'ProposalResponse') {
    // A calendar with no working time in the window says so (shared/calendar outsideHoursComment);
    // quoted only in exactly that form, so a calendar cannot put other words in the person's chat.
    const comment = (env.content as { comment?: unknown }).comment;
    if (typeof comment === 'string' && OUTSIDE_WORKING_HOURS_RE.test(comment)) return { who: name, why: `is ${comment}` };
    return { who: name, why: name.startsWith('room-') ? 'is booked then' : 'is busy then' };
  }
  return { who: name, why: `could not take part (${errorCode(env)})` };
}

export type ProposalOutcome = { ok: true; choice: Choice } | { ok: false; misses: Miss[] };

/** After the proposal round: the §3.3 choice, or why there is none. */
export function afterProposals(o: {
  people: readonly Party[]; rooms: readonly string[]; roomWanted: boolean; replies: Readonly<Record<string, Envelope>>;
  window: { start: string; end: string }; minutes: number;
  /** Times the Coordinator holds for other meetings in flight (holds.ts), per party. */
  held?: Readonly<Record<string, Window[]>>;
}): ProposalOutcome {
  const offers = (names: readonly string[]): Offer[] =>
    names.flatMap((n) => {
      const env = o.replies[n];
      const slots = env ? offeredSlots(env) : undefined;
      const held = o.held?.[n];
      return slots ? [{ who: n, slots: held ? minus(slots, held, o.window) : slots }] : [];
    });
  const people = offers(o.people.map((p) => p.name));
  const rooms = offers(o.rooms);
  const choice = choose({
    people, required: o.people.filter((p) => p.required).map((p) => p.name), window: o.window, minutes: o.minutes,
    ...(o.roomWanted ? { rooms } : {}),
  });
  if (choice) return { ok: true, choice };
  const silent = [...o.people.map((p) => p.name), ...o.rooms].filter((n) => !people.some((x) => x.who === n) && !rooms.some((x) => x.who === n));
  const misses = silent.filter((n) => o.people.some((p) => p.name === n && p.required) || (o.roomWanted && rooms.length === 0 && o.rooms.includes(n)))
    .map((n) => missOf(n, o.replies[n]));
  if (misses.length === 0) misses.push({ who: 'everyone', why: 'has no common free time in that window' });
  return { ok: false, misses };
}

/** How far past the asked window the Coordinator looks for other times (issue 16: offer the nearest slots that work). */
export const WIDEN_MS = 3 * 24 * 3600 * 1000;
export const MAX_ALTERNATIVES = 3;

/** Misses that a later time can cure (busy, booked, no common time), as opposed to silence or errors. */
export const curableByTime = (misses: readonly Miss[]): boolean =>
  misses.length > 0 && misses.every((m) => /^(?:is busy then|is booked then|is outside working hours|has no common free time)/.test(m.why));

/** The window after `w`: where to look for the nearest times that work. */
export const widened = (w: Window): Window => ({ start: w.end, end: new Date(Date.parse(w.end) + WIDEN_MS).toISOString() });

/** Up to `n` earliest non-overlapping choices the widened round offers (afterProposals, window by window). */
export function nearestChoices(o: Parameters<typeof afterProposals>[0], n = MAX_ALTERNATIVES): Choice[] {
  const found: Choice[] = [];
  let cursor = o.window.start;
  while (found.length < n && Date.parse(cursor) < Date.parse(o.window.end)) {
    const r = afterProposals({ ...o, window: { start: cursor, end: o.window.end } });
    if (!r.ok) break;
    found.push(r.choice);
    cursor = r.choice.slot.end;
  }
  return found;
}

export type ConfirmOutcome = { kind: 'booked' } | { kind: 'conflict'; confirmed: string[] } | { kind: 'failed'; confirmed: string[]; misses: Miss[] };

/** After the confirm round: all confirmed, a §5 OACOP_CONFLICT (re-negotiate), or a failure. */
export function afterConfirms(names: readonly string[], replies: Readonly<Record<string, Envelope>>): ConfirmOutcome {
  const confirmed = names.filter((n) => replies[n] && isAck(replies[n] as Envelope, 'CONFIRMED'));
  if (confirmed.length === names.length) return { kind: 'booked' };
  if (names.some((n) => replies[n] && errorCode(replies[n] as Envelope) === 'OACOP_CONFLICT')) return { kind: 'conflict', confirmed };
  const misses = names.filter((n) => !confirmed.includes(n)).map((n) => {
    const env = replies[n];
    return env ? { who: n, why: `could not confirm (${errorCode(env)})` } : { who: n, why: 'did not confirm in time' };
  });
  return { kind: 'failed', confirmed, misses };
}
