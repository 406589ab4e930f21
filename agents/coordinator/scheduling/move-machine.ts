// Moving a booked meeting in one step (OACoP §3.4: a new revision of the same thread; the
// initiator decides). PROPOSING (CFP rev n+1 with the new window to every participant and the
// room; each answers with its free time, leaving the meeting's own event out) → CONFIRMING
// (ACCEPT-PROPOSAL rev n+2 with the new slot) → moved: saved, everyone told with the updated .ics.
// Nobody free then: nothing changed anywhere (the record takes the last revision sent, so later
// revisions stay newer than what the calendars saw); when they were only busy, a CFP rev n+2 asks
// for the 3 days after, and the nearest times that work come back as numbered choices whose line
// ("move urn:uuid:… to 2026-11-30T09:00Z") moves this meeting there. A confirm that fails
// (OACOP_CONFLICT, silence): every party gets ACCEPT-PROPOSAL rev n+3 with the OLD slot, so no
// calendar keeps the new time.
// Never REJECT-PROPOSAL or CANCEL here: either would cancel the meeting itself at a calendar.
import { assign, emit, enqueueActions, fromPromise, setup } from 'xstate';
import type { Envelope } from '../../../shared/acl/index.js';
import type { ExchangeEmitted, InboundEvent } from '../../../shared/runtime/index.js';
import { type CoordinatorInput, presenterReply } from '../envelopes.js';
import { afterConfirms, afterProposals, curableByTime, MAX_ALTERNATIVES, nearestChoices, widened } from './decide.js';
import { invitationIcs } from './ics.js';
import { type HoldsInput, MAX_RESERVE_ATTEMPTS, round } from './meeting.js';
import { moveChoicesText, movedNotice, movedText, notMovedText, strictMove } from './move.js';
import { confirm, displayName, errorCode, isAck, type Meeting, notifyUser, oacop, personOfCalendar, propose } from './oacop.js';
import { minutesOf, type Window } from './slots.js';
import type { MeetingRecord } from './store.js';
import { type Miss, when } from './texts.js';
import { type Zones, zoneOf } from './zones.js';

export interface MoveInput extends CoordinatorInput {
  meeting: MeetingRecord;
  /** Where to: an exact slot or a window to find the earliest common time in (move.ts moveTarget). */
  window: Window;
  now: string;
  oacopTimeoutMs: number;
  zones?: Zones;
}

interface Ctx {
  input: MoveInput;
  parties: string[];
  /** The window the proposal round asks about: the one asked, then the days after it (suggestions only). */
  window: Window;
  /** Nobody could make the time asked: the days after it were asked, and `choices` are the nearest times found. */
  widened: boolean;
  choices: Window[];
  revision: number;
  sent: Record<string, string>;
  replies: Record<string, Envelope>;
  held: Record<string, Window[]>;
  attempts: number;
  slot?: Window;
  /** The proposal round's outcome, once the holds are known. */
  decision?: ReturnType<typeof afterProposals>;
  /** The new slot was sent out (so the old one had to be given back). */
  confirmed: boolean;
  misses: Miss[];
  unrestored: Miss[];
}

const meetingOf = (i: MoveInput, window: Window): Meeting => ({
  threadId: i.meeting.threadId, title: i.meeting.title, window, requester: i.meeting.organizer, durationMin: minutesOf(i.meeting.slot),
});

type Content = (context: Ctx, revision: number, who: string) => object;
type RoundSpec = { performative: 'CFP' | 'ACCEPT-PROPOSAL'; decision: string; content: Content; extra?: Partial<Ctx> };

/**
 * The next round at revision + 1: one envelope per party (`content` gets the revision), `sent`
 * mapping each reply_with to its party (meeting.ts `round`), answers reset, a note, and the
 * envelopes out. `extra` joins the context with it.
 */
function startRound(
  context: Ctx, enqueue: { assign(p: Partial<Ctx>): void; emit(e: ExchangeEmitted): void },
  o: RoundSpec,
): void {
  const revision = context.revision + 1;
  const envs = context.parties.map((who): [string, Envelope] =>
    [who, oacop({ performative: o.performative, self: context.input.self, to: who, conversationId: context.input.request.conversation_id, content: o.content(context, revision, who) })]);
  const { sent, replies, outbox } = round(envs);
  enqueue.assign({ revision, sent, replies, ...o.extra });
  enqueue.emit({ type: 'note', decision: o.decision, detail: { revision } });
  for (const envelope of outbox) enqueue.emit({ type: 'send', envelope });
}

/** CFP content: the new window, every participant required (a meeting moves whole). */
const proposeAt: Content = (context, revision, who) => {
  const people = context.input.meeting.participants;
  return propose(meetingOf(context.input, context.window), revision, { participants: people, required: people, ...(who.startsWith('room-') ? { room: who } : {}) });
};

/** ACCEPT-PROPOSAL content for `slot` (the new one, or the old one given back). */
const confirmAt = (context: Ctx, revision: number, slot: Window) =>
  confirm(meetingOf(context.input, slot), revision, slot, context.input.meeting.room ? displayName(context.input.meeting.room) : undefined);

const moveSetup = setup({
  types: {} as { input: MoveInput; context: Ctx; events: InboundEvent; emitted: ExchangeEmitted },
  actors: {
    save: fromPromise<void, MeetingRecord>(async () => {
      throw new Error('provided by main.ts');
    }),
    holds: fromPromise<Record<string, Window[]>, HoldsInput>(async () => ({})),
    reserve: fromPromise<boolean, HoldsInput & { slot: Window }>(async () => true),
    release: fromPromise<void, { threadId: string }>(async () => undefined),
  },
  delays: { OACOP_TIMEOUT: ({ context }) => context.input.oacopTimeoutMs },
  guards: {
    inRound: ({ context, event }) => (event.envelope.in_reply_to ?? '') in context.sent,
    allAnswered: ({ context }) => Object.keys(context.replies).length >= Object.keys(context.sent).length,
  },
  actions: {
    // The route's claim on the meeting (meeting-locks.ts), let go at the end; provided by main.ts.
    unclaim: () => undefined,
    record: assign(({ context, event }) => ({ replies: { ...context.replies, [context.sent[event.envelope.in_reply_to as string] as string]: event.envelope } })),
    reply: emit(({ context }, p: { text: string; rich: object }) => ({ type: 'send' as const, envelope: presenterReply(context.input.request, p.text, p.rich) })),
  },
});

/** A round's state: its envelopes out on entry, each party's answer recorded, then `next` once all answered or at OACOP_TIMEOUT. */
const roundState = (o: RoundSpec, next: string) => moveSetup.createStateConfig({
  entry: enqueueActions(({ context, enqueue }) => startRound(context, enqueue, o)),
  on: { inbound: { guard: 'inRound', actions: 'record' } },
  always: { guard: 'allAnswered', target: next },
  after: { OACOP_TIMEOUT: next },
});

export const moveMachine = moveSetup.createMachine({
  id: 'coordinator-move-meeting',
  context: ({ input }) => ({
    input, parties: [...input.meeting.participants, ...(input.meeting.room ? [input.meeting.room] : [])], window: input.window, widened: false, choices: [],
    revision: input.meeting.revision, sent: {}, replies: {}, held: {}, attempts: 0, confirmed: false, misses: [], unrestored: [],
  }),
  initial: 'proposing',
  states: {
    proposing: roundState({ performative: 'CFP', decision: 'move: propose', content: proposeAt }, 'choosing'),
    // Other meetings the Coordinator is confirming right now hold their slots (holds.ts).
    choosing: {
      invoke: {
        src: 'holds',
        input: ({ context }) => ({ threadId: context.input.meeting.threadId, parties: context.parties, padMin: {} }),
        onDone: { target: 'deciding', actions: assign(({ context, event }) => ({ held: event.output, decision: decide({ ...context, held: event.output }) })) },
        onError: { target: 'deciding', actions: assign(({ context }) => ({ decision: decide(context) })) },
      },
    },
    deciding: {
      always: [
        {
          target: 'reserving',
          guard: ({ context }) => context.decision?.ok === true,
          actions: assign(({ context }) => (context.decision?.ok ? { slot: context.decision.choice.slot } : {})),
        },
        // Only busy (or outside working hours): the days after are asked, to suggest the nearest times (as schedule.ts does).
        {
          target: 'widening',
          guard: ({ context }) => context.decision?.ok === false && curableByTime(context.decision.misses),
          actions: assign(({ context }) => ({ misses: context.decision?.ok === false ? context.decision.misses : [], widened: true, window: widened(context.input.window) })),
        },
        // Nobody changed anything: the meeting keeps its slot, the record the proposal's revision.
        { target: 'unchanged', actions: assign(({ context }) => (context.decision?.ok === false ? { misses: context.decision.misses } : {})) },
      ],
    },
    // CFP rev n+2 for the 3 days after: each calendar answers with its free time; nothing is held or booked.
    widening: roundState({ performative: 'CFP', decision: 'move: widen', content: proposeAt }, 'suggesting'),
    suggesting: {
      // Its own slot is free to it (each calendar leaves the meeting out): never offered as a time to move to.
      always: { target: 'unchanged', actions: assign({ choices: ({ context }) => nearestChoices(proposals(context), MAX_ALTERNATIVES + 1).map((c) => c.slot).filter((w) => !sameSlot(w, context.input.meeting.slot)).slice(0, MAX_ALTERNATIVES) }) },
    },
    reserving: {
      invoke: {
        src: 'reserve',
        input: ({ context }) => ({ threadId: context.input.meeting.threadId, parties: context.parties, padMin: {}, slot: context.slot as Window }),
        onDone: [
          { guard: ({ event }) => event.output, target: 'confirming' },
          { guard: ({ context }) => context.attempts < MAX_RESERVE_ATTEMPTS, target: 'choosing', actions: assign({ attempts: ({ context }) => context.attempts + 1 }) },
          { target: 'confirming' },
        ],
        onError: 'confirming',
      },
    },
    confirming: roundState({
      performative: 'ACCEPT-PROPOSAL', decision: 'move: confirm', content: (c, rev) => confirmAt(c, rev, c.slot as Window), extra: { confirmed: true },
    }, 'judging'),
    judging: {
      always: [
        { guard: ({ context }) => afterConfirms(context.parties, context.replies).kind === 'booked', target: 'saving' },
        {
          target: 'restoring',
          actions: assign({ misses: ({ context }) => notConfirmed(context, (code) => `could not take the new time (${code})`, 'did not confirm in time') }),
        },
      ],
    },
    // Everyone, the silent too (a late confirm must not stay), gets the old slot back at rev n+3.
    restoring: roundState({ performative: 'ACCEPT-PROPOSAL', decision: 'move: restore the old slot', content: (c, rev) => confirmAt(c, rev, c.input.meeting.slot) }, 'unchanged'),
    unchanged: {
      entry: assign({ unrestored: ({ context }) => (context.confirmed ? notConfirmed(context, (code) => code, 'no answer') : []) }),
      invoke: {
        src: 'save',
        input: ({ context }) => ({ ...context.input.meeting, revision: context.revision }),
        onDone: 'notMoved',
        onError: { target: 'notMoved', actions: emit(({ event }) => ({ type: 'note' as const, decision: 'meeting-not-saved', detail: { err: String(event.error) } })) },
      },
    },
    notMoved: {
      entry: {
        type: 'reply',
        params: ({ context }) => {
          const { meeting, window, zones } = context.input;
          const zone = zoneOf(zones, meeting.organizer);
          const why = notMovedText(meeting, window, context.misses, context.unrestored, zone, !context.confirmed && !context.widened && curableByTime(context.misses));
          // Each nearest time as a choice: a client with forms shows them, any other takes its number.
          const choices = context.choices.map((slot) => ({ label: when(slot, zone), say: strictMove(meeting.threadId, slot.start) }));
          return {
            text: context.widened ? `${why}\n${moveChoicesText(context.choices, zone)}` : why,
            rich: { kind: 'meeting', status: 'not-moved', threadId: meeting.threadId, revision: context.revision, slot: meeting.slot, ...(choices.length ? { choices } : {}) },
          };
        },
      },
      invoke: { src: 'release', input: ({ context }) => ({ threadId: context.input.meeting.threadId }), onDone: 'done', onError: 'done' },
    },
    saving: {
      invoke: {
        src: 'save',
        input: ({ context }) => ({ ...context.input.meeting, slot: context.slot as Window, revision: context.revision }),
        onDone: 'moved',
        onError: { target: 'moved', actions: emit(({ event }) => ({ type: 'note' as const, decision: 'meeting-not-saved', detail: { err: String(event.error) } })) },
      },
    },
    // Each participant hears of it with the updated invitation (RFC 5546 §3.2.2: a REQUEST with a
    // higher SEQUENCE replaces the event), before the organizer's answer, the exchange's last envelope.
    moved: {
      entry: enqueueActions(({ context, enqueue }) => {
        const { meeting: m, domain, self, now, zones } = context.input;
        const slot = context.slot as Window;
        const people = m.participants.map((p) => personOfCalendar(p, domain));
        const ics = invitationIcs({
          threadId: m.threadId, revision: context.revision, title: m.title, slot, organizer: m.organizer, attendees: people,
          ...(m.room ? { location: displayName(m.room) } : {}), stamp: now,
        });
        const rich = { kind: 'meeting', status: 'moved', threadId: m.threadId, revision: context.revision, slot, was: m.slot, ics };
        const others = people.filter((p) => p !== m.organizer);
        for (const person of others) {
          enqueue.emit({ type: 'send', envelope: notifyUser(self, m.threadId, person, movedNotice(m.organizer, m, slot, zoneOf(zones, person)), rich) });
        }
        enqueue.emit({ type: 'send', envelope: presenterReply(context.input.request, movedText(m, slot, others.map((p) => p.split('@')[0] as string), zoneOf(zones, m.organizer)), rich) });
      }),
      always: 'done',
    },
    done: { type: 'final', entry: 'unclaim' },
  },
});

/** The parties whose answer to this round is not a CONFIRMED ack, and why. */
function notConfirmed(context: Ctx, failed: (code: string) => string, silent: string): Miss[] {
  return context.parties.flatMap((who) => {
    const r = context.replies[who];
    if (r && isAck(r, 'CONFIRMED')) return [];
    return [{ who, why: r ? failed(errorCode(r)) : silent }];
  });
}

/** Every participant and the room are required: a meeting moves whole or not at all. */
function proposals(context: Pick<Ctx, 'input' | 'replies' | 'held' | 'window'>): Parameters<typeof afterProposals>[0] {
  const { meeting } = context.input;
  return {
    people: meeting.participants.map((name) => ({ name, required: true })), rooms: meeting.room ? [meeting.room] : [], roomWanted: meeting.room !== undefined,
    replies: context.replies, window: context.window, minutes: minutesOf(meeting.slot), held: context.held,
  };
}

const sameSlot = (a: Window, b: Window) => Date.parse(a.start) === Date.parse(b.start) && Date.parse(a.end) === Date.parse(b.end);

const decide = (context: Pick<Ctx, 'input' | 'replies' | 'held' | 'window'>) => afterProposals(proposals(context));
