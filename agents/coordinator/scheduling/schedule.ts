// The Coordinator as OACoP initiator for one "schedule …" / "/meet …" (OACoP §3, docs/oacop.md):
// LOOKUP (DESCRIBE CALENDAR [+ ROOM]) → PROPOSING (CFP rev n to everyone, collected until all
// answered or OACOP_TIMEOUT) → CONFIRMING (ACCEPT-PROPOSAL rev n+1 to the chosen, REJECT-PROPOSAL
// to the rest) → booked → SAVING → PRESENTER_REPLY with time, participants, room and rich.ics.
// One OACOP_CONFLICT re-negotiates once (CFP rev n+2); otherwise those who confirmed get
// CANCEL rev n+2. Pure: envelopes are emitted, timeouts are named delays, storage is invoked.
import { assign, emit, enqueueActions, fromPromise, setup } from 'xstate';
import type { Envelope } from '../../../shared/acl/index.js';
import type { ChildSendEvent, ExchangeEmitted, InboundEvent } from '../../../shared/runtime/index.js';
import { isCancelOf, presenterReply } from '../envelopes.js';
import { forwardToLookup, lookupInput, REGISTRY_LOOKUP, registryLookupMachine, relayChildSend } from '../registry-lookup.js';
import { suggest } from './alternatives.js';
import { afterConfirms, curableByTime, invitees, widened } from './decide.js';
import { invitationIcs } from './ics.js';
import { type Ctx, gapMinutes, type HoldsInput, MAX_RESERVE_ATTEMPTS, misses, noSlot, out, outcome, round, type ScheduleInput } from './meeting.js';
import { cancel, confirm, directoryProfiles, displayName, notifyUser, personOfCalendar, propose } from './oacop.js';
import type { Choice, Window } from './slots.js';
import type { MeetingRecord } from './store.js';
import { bookedText, directoryDownText, type Miss, noRoomText, unknownPeopleText, when } from './texts.js';
import { zoneOf } from './zones.js';

export { type HoldsInput, MAX_RESERVE_ATTEMPTS, type ScheduleInput } from './meeting.js';

export const scheduleMachine = setup({
  types: {} as { input: ScheduleInput; context: Ctx; events: InboundEvent | ChildSendEvent; emitted: ExchangeEmitted },
  actors: {
    registryLookup: registryLookupMachine,
    save: fromPromise<void, MeetingRecord>(async () => {
      throw new Error('provided by main.ts');
    }),
    // The Coordinator's holds (holds.ts, provided by main.ts); without them nothing is held.
    holds: fromPromise<Record<string, Window[]>, HoldsInput>(async () => ({})),
    reserve: fromPromise<boolean, HoldsInput & { slot: Window }>(async () => true),
    release: fromPromise<void, { threadId: string }>(async () => undefined),
  },
  delays: {
    OACOP_TIMEOUT: ({ context }) => context.oacopTimeoutMs,
  },
  guards: {
    cancelled: ({ context, event }) => event.type === 'inbound' && isCancelOf(event, context.request),
    inRound: ({ context, event }) => event.envelope.in_reply_to !== undefined && event.envelope.in_reply_to in context.sent,
    allAnswered: ({ context }) => Object.keys(context.replies).length >= Object.keys(context.sent).length,
  },
  actions: {
    flush: enqueueActions(({ context, enqueue }) => {
      for (const envelope of context.outbox) enqueue.emit({ type: 'send', envelope });
    }),
    record: assign(({ context, event }) => ({ replies: { ...context.replies, [context.sent[event.envelope.in_reply_to as string] as string]: event.envelope } })),
    reply: emit(({ context }, p: { rich: object }) => ({ type: 'send' as const, envelope: presenterReply(context.request, context.text ?? '', p.rich) })),
  },
}).createMachine({
  id: 'coordinator-schedule',
  context: ({ input }) => ({
    request: input.request, self: input.self, domain: input.domain, asker: String(input.request.content.user ?? ''),
    meeting: { threadId: input.threadId, title: input.wish.title, durationMin: input.wish.durationMin, window: input.wish.window, requester: String(input.request.content.user ?? input.request.sender) },
    roomWanted: input.wish.room !== undefined, now: input.now, registryTimeoutMs: input.timeouts.registryTimeoutMs, oacopTimeoutMs: input.oacopTimeoutMs,
    found: {}, people: [], rooms: [], revision: 0, sent: {}, replies: {}, outbox: [], holding: [], renegotiated: false,
    held: {}, attempts: 0, padMin: {}, zones: input.zones ?? {},
    wish: input.wish,
  }),
  on: { 'child.send': { actions: relayChildSend() } },
  initial: 'lookup',
  states: {
    // DESCRIBE CALENDAR [+ ROOM] at once through the shared DF-lookup child (registry-lookup.ts);
    // any answer counts (an error one finds nobody), but both must come within REGISTRY_TIMEOUT.
    lookup: {
      invoke: {
        id: REGISTRY_LOOKUP, src: 'registryLookup',
        input: lookupInput((c: Ctx) => (c.roomWanted ? ['CALENDAR', 'ROOM'] : ['CALENDAR']).map((capability) => ({ type: 'DESCRIBE', capability })), (c) => c.registryTimeoutMs),
        onDone: [
          {
            guard: ({ event }) => event.output.timedOut,
            target: 'done',
            actions: [assign({ text: directoryDownText }), { type: 'reply', params: { rich: { kind: 'meeting', status: 'directory-unavailable' } } }],
          },
          {
            target: 'resolving',
            actions: assign(({ context, event }) => {
              const [calendars, rooms] = event.output.answers.map((a) => directoryProfiles(a as Envelope) ?? []);
              return { found: { CALENDAR: calendars ?? [], ...(context.roomWanted ? { ROOM: rooms ?? [] } : {}) } };
            }),
          },
        ],
      },
      on: { inbound: [{ guard: 'cancelled', target: 'done' }, { actions: forwardToLookup() }] },
    },
    resolving: {
      always: [
        {
          guard: ({ context }) => !invitees(context.wish, context.asker, context.found.CALENDAR ?? [], context.found.ROOM).ok,
          target: 'done',
          actions: enqueueActions(({ context, enqueue }) => {
            const r = invitees(context.wish, context.asker, context.found.CALENDAR ?? [], context.found.ROOM);
            if (r.ok) return;
            const text = 'unknown' in r ? unknownPeopleText(r.unknown) : noRoomText(r.noRoom.seats, r.noRoom.name, r.noRoom.rooms);
            enqueue.assign({ text });
            enqueue({ type: 'reply', params: { rich: { kind: 'meeting', status: 'unknown' in r ? 'unknown-participants' : 'no-room', ...r } } });
          }),
        },
        {
          target: 'proposing',
          actions: assign(({ context }) => {
            const r = invitees(context.wish, context.asker, context.found.CALENDAR ?? [], context.found.ROOM);
            const padMin = Object.fromEntries((context.found.ROOM ?? []).map((p) => [p.name, gapMinutes(p.room?.constraints?.requiresCleaningGap)]));
            return r.ok ? { people: r.people, rooms: r.rooms, padMin } : {};
          }),
        },
      ],
    },
    proposing: {
      entry: [
        assign(({ context }) => {
          const revision = context.revision + 1;
          const names = context.people.map((p) => p.name);
          const required = context.people.filter((p) => p.required).map((p) => p.name);
          const envs = [...names, ...context.rooms].map((who): [string, Envelope] =>
            [who, out(context, 'CFP', who, propose(context.meeting, revision, { participants: names, required, ...(who.startsWith('room-') ? { room: who } : {}) }))]);
          return { revision, attempts: 0, ...round(envs) };
        }),
        emit(({ context }) => ({ type: 'note' as const, decision: 'propose', detail: { revision: context.revision, to: Object.values(context.sent) } })),
        'flush',
      ],
      on: { inbound: [{ guard: 'cancelled', target: 'done' }, { guard: 'inRound', actions: 'record' }] },
      always: { guard: 'allAnswered', target: 'choosing' },
      after: { OACOP_TIMEOUT: 'choosing' },
    },
    // Other meetings the Coordinator is confirming right now hold their slots (holds.ts).
    choosing: {
      invoke: {
        src: 'holds',
        input: ({ context }) => ({ threadId: context.meeting.threadId, parties: [...context.people.map((p) => p.name), ...context.rooms], padMin: context.padMin }),
        onDone: { target: 'deciding', actions: assign({ held: ({ event }) => event.output }) },
        onError: 'deciding',
      },
    },
    deciding: {
      always: [
        // The widened round only suggests (issue 16): the person asked for another window.
        {
          guard: ({ context }) => context.widening !== undefined,
          target: 'releasing',
          actions: [
            assign(({ context }) => {
              const w = context.widening as NonNullable<Ctx['widening']>;
              const s = suggest({ ...context, window: context.meeting.window, minutes: context.meeting.durationMin, head: w.head, zone: zoneOf(context.zones, context.asker) });
              return { meeting: { ...context.meeting, window: w.asked }, ...s };
            }),
            emit(({ context }) => ({ type: 'note' as const, decision: 'alternatives', detail: { text: context.text } })),
          ],
        },
        {
          guard: ({ context }) => outcome(context).ok,
          target: 'reserving',
          actions: assign(({ context }) => {
            const r = outcome(context);
            return r.ok ? { choice: r.choice } : {};
          }),
        },
        {
          // Busy (not silent, not an error): look at the days after the window for the nearest times that work.
          guard: ({ context }) => !context.renegotiated && curableByTime(misses(context)),
          target: 'proposing',
          actions: [
            assign(({ context }) => ({ widening: { asked: context.meeting.window, head: noSlot(context) }, meeting: { ...context.meeting, window: widened(context.meeting.window) } })),
            emit(({ context }) => ({ type: 'note' as const, decision: 'widen', detail: { window: context.meeting.window } })),
          ],
        },
        { target: 'releasing', actions: assign(({ context }) => ({ text: noSlot(context) })) },
      ],
    },
    reserving: {
      invoke: {
        src: 'reserve',
        input: ({ context }) => {
          const c = context.choice as Choice;
          return { threadId: context.meeting.threadId, parties: [...c.attendees, ...(c.room ? [c.room] : [])], padMin: context.padMin, slot: c.slot };
        },
        onDone: [
          { guard: ({ event }) => event.output, target: 'confirming' },
          {
            guard: ({ context }) => context.attempts < MAX_RESERVE_ATTEMPTS,
            target: 'choosing',
            actions: [assign({ attempts: ({ context }) => context.attempts + 1 }), emit({ type: 'note', decision: 'slot held by another meeting: choose again' })],
          },
          { target: 'confirming' },
        ],
        onError: 'confirming',
      },
    },
    confirming: {
      entry: [
        assign(({ context }) => {
          const c = context.choice as Choice;
          const revision = context.revision + 1;
          const chosen = [...c.attendees, ...(c.room ? [c.room] : [])];
          const envs = chosen.map((who): [string, Envelope] => [who, out(context, 'ACCEPT-PROPOSAL', who, confirm(context.meeting, revision, c.slot, c.room ? displayName(c.room) : undefined))]);
          // Proposals not taken (other rooms, optional people not free): REJECT-PROPOSAL, no answer expected.
          const rejects = Object.entries(context.replies).filter(([who, e]) => !chosen.includes(who) && e.performative === 'PROPOSE')
            .map(([who, e]) => out(context, 'REJECT-PROPOSAL', who, cancel(context.meeting.threadId, revision, 'not chosen', context.meeting.requester), e.reply_with));
          const r = round(envs);
          return { revision, ...r, outbox: [...r.outbox, ...rejects], holding: [...new Set([...context.holding, ...chosen])] };
        }),
        emit(({ context }) => ({ type: 'note' as const, decision: 'confirm', detail: { revision: context.revision, slot: context.choice?.slot, to: Object.values(context.sent) } })),
        'flush',
      ],
      on: { inbound: [{ guard: 'cancelled', target: 'releasing' }, { guard: 'inRound', actions: 'record' }] },
      always: { guard: 'allAnswered', target: 'judging' },
      after: { OACOP_TIMEOUT: 'judging' },
    },
    judging: {
      always: [
        { guard: ({ context }) => afterConfirms(Object.values(context.sent), context.replies).kind === 'booked', target: 'saving' },
        {
          guard: ({ context }) => afterConfirms(Object.values(context.sent), context.replies).kind === 'conflict' && !context.renegotiated,
          target: 'proposing',
          actions: [assign({ renegotiated: true }), emit({ type: 'note', decision: 're-negotiate: OACOP_CONFLICT' })],
        },
        {
          target: 'releasing',
          actions: assign(({ context }) => {
            const r = afterConfirms(Object.values(context.sent), context.replies);
            const misses: Miss[] = r.kind === 'failed' ? r.misses : [{ who: 'the slot', why: 'was taken again while I re-negotiated (OACOP_CONFLICT)' }];
            return { text: `I could not book the meeting:\n${misses.map((m) => `• ${displayName(m.who)} ${m.why}`).join('\n')}` };
          }),
        },
      ],
    },
    // Failure: everyone asked to confirm lets the slot go (CANCEL rev+1; the CANCEL follows the
    // Confirm on the same stream, so a confirm that arrives late is cancelled too), then the person is told.
    releasing: {
      entry: [
        enqueueActions(({ context, enqueue }) => {
          for (const who of context.holding) {
            enqueue.emit({ type: 'send', envelope: out(context, 'CANCEL', who, cancel(context.meeting.threadId, context.revision + 1, 'the meeting could not be booked', context.meeting.requester)) });
          }
        }),
        { type: 'reply', params: ({ context }) => ({ rich: { kind: 'meeting', status: 'not-booked', threadId: context.meeting.threadId, ...(context.choices?.length ? { choices: context.choices } : {}) } }) },
      ],
      invoke: { src: 'release', input: ({ context }) => ({ threadId: context.meeting.threadId }), onDone: 'done', onError: 'done' },
    },
    saving: {
      invoke: {
        src: 'save',
        input: ({ context }) => ({
          threadId: context.meeting.threadId, organizer: context.asker, title: context.meeting.title, slot: (context.choice as Choice).slot,
          revision: context.revision, participants: (context.choice as Choice).attendees, ...(context.choice?.room ? { room: context.choice.room } : {}), status: 'CONFIRMED' as const,
        }),
        onDone: 'booked',
        onError: { target: 'booked', actions: emit(({ event }) => ({ type: 'note' as const, decision: 'meeting-not-saved', detail: { err: String(event.error) } })) },
      },
    },
    booked: {
      entry: [
        // After a re-negotiation, parties of the first choice that are not in the final one (another room) let it go.
        enqueueActions(({ context, enqueue }) => {
          const c = context.choice as Choice;
          const final = [...c.attendees, ...(c.room ? [c.room] : [])];
          for (const who of context.holding.filter((h) => !final.includes(h))) {
            enqueue.emit({ type: 'send', envelope: out(context, 'CANCEL', who, cancel(context.meeting.threadId, context.revision + 1, 'not part of the final choice', context.meeting.requester)) });
          }
        }),
        assign(({ context }) => {
          const c = context.choice as Choice;
          // An asker with no calendar here (decide.ts invitees) is not among the attendees: said, not hidden.
          const unchecked = !c.attendees.some((a) => personOfCalendar(a, context.domain) === context.asker);
          return { text: bookedText({ title: context.meeting.title, slot: c.slot, attendees: c.attendees, absent: c.absent, ...(c.room ? { room: c.room } : {}), renegotiated: context.renegotiated, zone: zoneOf(context.zones, context.asker), unchecked }) };
        }),
        // Every invitee hears of the booking through the Presenter, with the same .ics the
        // organizer gets (RFC 5546 §3.2.2 REQUEST goes to each attendee); before the
        // organizer's answer, which stays the exchange's last envelope.
        enqueueActions(({ context, enqueue }) => {
          const c = context.choice as Choice;
          const organizer = context.asker || context.request.sender;
          const attendees = c.attendees.map((a) => personOfCalendar(a, context.domain));
          const ics = invitationIcs({
            threadId: context.meeting.threadId, revision: context.revision, title: context.meeting.title, slot: c.slot, organizer,
            attendees, ...(c.room ? { location: displayName(c.room) } : {}), stamp: context.now,
          });
          const room = c.room ? ` in ${displayName(c.room)}` : '';
          for (const person of attendees.filter((p) => p !== organizer)) {
            const text = `${organizer.split('@')[0]} invited you to "${context.meeting.title}", ${when(c.slot, zoneOf(context.zones, person))}${room}. The invitation (.ics) follows.`;
            enqueue.emit({ type: 'send', envelope: notifyUser(context.self, context.meeting.threadId, person, text, { kind: 'meeting', status: 'invited', threadId: context.meeting.threadId, revision: context.revision, slot: c.slot, ics }) });
          }
        }),
        {
          type: 'reply',
          params: ({ context }) => {
            const c = context.choice as Choice;
            const attendees = c.attendees.map((a) => personOfCalendar(a, context.domain));
            const ics = invitationIcs({
              threadId: context.meeting.threadId, revision: context.revision, title: context.meeting.title, slot: c.slot, organizer: context.asker || context.request.sender,
              attendees, ...(c.room ? { location: displayName(c.room) } : {}), stamp: context.now,
            });
            return { rich: { kind: 'meeting', status: 'booked', threadId: context.meeting.threadId, revision: context.revision, slot: c.slot, participants: c.attendees.map(displayName), absent: c.absent.map(displayName), ...(c.room ? { room: displayName(c.room) } : {}), ics } };
          },
        },
      ],
      always: 'done',
    },
    done: { type: 'final' },
  },
});
