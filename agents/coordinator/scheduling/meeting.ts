// The state of one meeting being scheduled (schedule.ts, OACoP §3) and the small functions of it
// its states share: the envelopes of a round, the proposals' outcome, the "no slot" text.
import type { Envelope } from '../../../shared/acl/index.js';
import type { CoordinatorInput } from '../envelopes.js';
import { afterProposals, type Party } from './decide.js';
import { directoryProfiles, type Meeting, oacop } from './oacop.js';
import type { ScheduleRequest } from './parse.js';
import type { Choice, Window } from './slots.js';
import { type Miss, noSlotText } from './texts.js';
import { type Zones, zoneOf } from './zones.js';

export interface ScheduleInput extends CoordinatorInput {
  wish: ScheduleRequest;
  /** urn:uuid:… (OACoP §2.1), chosen by the factory. */
  threadId: string;
  /** ISO time of the request (the invitation's DTSTAMP). */
  now: string;
  oacopTimeoutMs: number;
  /** People's time zones, for what each reads (zones.ts). */
  zones?: Zones;
}

export interface Ctx {
  request: Envelope;
  self: string;
  domain: string;
  asker: string;
  wish: ScheduleRequest;
  meeting: Meeting;
  roomWanted: boolean;
  now: string;
  registryTimeoutMs: number;
  oacopTimeoutMs: number;
  found: { CALENDAR?: ReturnType<typeof directoryProfiles>; ROOM?: ReturnType<typeof directoryProfiles> };
  people: Party[];
  rooms: string[];
  revision: number;
  /** This round: reply_with → party, and each party's answer. */
  sent: Record<string, string>;
  replies: Record<string, Envelope>;
  outbox: Envelope[];
  choice?: Choice;
  /** Everyone ever sent a Confirm (released on failure, even if silent: a late CONFIRMED must not stay). */
  holding: string[];
  renegotiated: boolean;
  /** Other in-flight meetings' holds on our parties, and how often our reservation lost a race. */
  held: Record<string, Window[]>;
  attempts: number;
  /** Rooms' cleaning gaps in minutes (profile.room.constraints), for the holds. */
  padMin: Record<string, number>;
  zones: Zones;
  text?: string;
  /** The asked window found nothing: the proposal round now looks at the days after it, to suggest, not to book. */
  widening?: { asked: Window; head: string };
  /** The nearest times as choices the person can pick (rich.choices; agents/presenter/choices.ts). */
  choices?: Array<{ label: string; say: string }>;
}

export const MAX_RESERVE_ATTEMPTS = 10;

export interface HoldsInput {
  threadId: string;
  parties: string[];
  padMin: Record<string, number>;
}

export const out = (ctx: Ctx, performative: Envelope['performative'], to: string, content: object, inReplyTo?: string) =>
  oacop({ performative, self: ctx.self, to, conversationId: ctx.request.conversation_id, content, ...(inReplyTo ? { inReplyTo } : {}) });

export const round = (envs: Array<[string, Envelope]>) => ({
  sent: Object.fromEntries(envs.map(([who, e]) => [e.reply_with, who])), replies: {}, outbox: envs.map(([, e]) => e),
});

export const outcome = (context: Ctx) => afterProposals({ ...context, window: context.meeting.window, minutes: context.meeting.durationMin });
export const misses = (context: Ctx) => (outcome(context) as { misses: Miss[] }).misses;
export const noSlot = (context: Ctx) =>
  noSlotText({ misses: misses(context), roomWanted: context.roomWanted, minutes: context.meeting.durationMin, window: context.meeting.window, zone: zoneOf(context.zones, context.asker) });

export function gapMinutes(iso: string | undefined): number {
  const m = iso ? /^PT(?:(\d+)H)?(?:(\d+)M)?$/.exec(iso) : null;
  return m ? Number(m[1] ?? 0) * 60 + Number(m[2] ?? 0) : 0;
}
