// "cancel that meeting" (OACoP §3.5): CANCEL CancelCollaboration at revision + 1 to every
// participant and the room of the asker's last booked meeting (the factory reads it from the
// store), acks collected until all answered or OACOP_TIMEOUT, the meeting marked cancelled, the
// other participants told (NOTIFY_USER), and the asker answered with a METHOD:CANCEL .ics.
import { assign, emit, enqueueActions, fromPromise, setup } from 'xstate';
import type { Envelope } from '../../../shared/acl/index.js';
import type { ExchangeEmitted, InboundEvent } from '../../../shared/runtime/index.js';
import { type CoordinatorInput, isCancelOf, presenterReply } from '../envelopes.js';
import { invitationIcs } from './ics.js';
import { cancel, displayName, errorCode, isAck, notifyUser, oacop, personOfCalendar } from './oacop.js';
import type { MeetingRecord } from './store.js';
import { when } from './texts.js';
import { type Zones, zoneOf } from './zones.js';

export interface CancelInput extends CoordinatorInput {
  meeting?: MeetingRecord;
  now: string;
  oacopTimeoutMs: number;
  zones?: Zones;
}

interface Ctx {
  input: CancelInput;
  user: string;
  sent: Record<string, string>;
  replies: Record<string, Envelope>;
}

export const cancelMachine = setup({
  types: {} as { input: CancelInput; context: Ctx; events: InboundEvent; emitted: ExchangeEmitted },
  actors: { save: fromPromise<void, MeetingRecord>(async () => { throw new Error('provided by main.ts'); }) },
  delays: { OACOP_TIMEOUT: ({ context }) => context.input.oacopTimeoutMs },
  // The route's claim on the meeting (meeting-locks.ts), let go at the end; provided by main.ts.
  actions: { unclaim: () => undefined },
}).createMachine({
  id: 'coordinator-cancel-meeting',
  context: ({ input }) => ({ input, user: String(input.request.content.user ?? ''), sent: {}, replies: {} }),
  initial: 'checking',
  states: {
    checking: {
      always: [
        {
          guard: ({ context }) => context.input.meeting === undefined,
          target: 'done',
          actions: emit(({ context }) => ({
            type: 'send' as const,
            envelope: presenterReply(context.input.request, 'You have no booked meeting to cancel.', { kind: 'meeting', status: 'nothing-to-cancel' }),
          })),
        },
        {
          // Said twice: the last meeting is already off (never an older one instead), or already over.
          guard: ({ context }) => context.input.meeting?.status === 'CANCELLED' || Date.parse(context.input.meeting?.slot.end ?? '') <= Date.parse(context.input.now),
          target: 'done',
          actions: emit(({ context }) => {
            const m = context.input.meeting as MeetingRecord;
            const what = `${m.title}, ${when(m.slot, zoneOf(context.input.zones, m.organizer))}`;
            const [text, status] = m.status === 'CANCELLED'
              ? [`Your last meeting (${what}) is already cancelled. "my meetings" shows the others, and "cancel meeting <n>" cancels one.`, 'already-cancelled']
              : [`Your last meeting (${what}) is already over: nothing was cancelled.`, 'already-over'];
            return { type: 'send' as const, envelope: presenterReply(context.input.request, text, { kind: 'meeting', status, threadId: m.threadId }) };
          }),
        },
        { target: 'cancelling' },
      ],
    },
    cancelling: {
      entry: enqueueActions(({ context, enqueue }) => {
        const m = context.input.meeting as MeetingRecord;
        const sent: Record<string, string> = {};
        for (const who of [...m.participants, ...(m.room ? [m.room] : [])]) {
          const env = oacop({
            performative: 'CANCEL', self: context.input.self, to: who, conversationId: context.input.request.conversation_id,
            content: cancel(m.threadId, m.revision + 1, 'cancelled by the organizer', context.user || m.organizer),
          });
          sent[env.reply_with] = who;
          enqueue.emit({ type: 'send', envelope: env });
        }
        enqueue.assign({ sent });
      }),
      on: {
        inbound: [
          { guard: ({ context, event }) => isCancelOf(event, context.input.request), target: 'done' },
          {
            guard: ({ context, event }) => (event.envelope.in_reply_to ?? '') in context.sent,
            actions: assign(({ context, event }) => ({ replies: { ...context.replies, [context.sent[event.envelope.in_reply_to as string] as string]: event.envelope } })),
          },
        ],
      },
      always: { guard: ({ context }) => Object.keys(context.replies).length >= Object.keys(context.sent).length, target: 'saving' },
      after: { OACOP_TIMEOUT: 'saving' },
    },
    saving: {
      invoke: {
        src: 'save',
        input: ({ context }) => ({ ...(context.input.meeting as MeetingRecord), revision: (context.input.meeting as MeetingRecord).revision + 1, status: 'CANCELLED' as const }),
        onDone: 'told',
        onError: { target: 'told', actions: emit(({ event }) => ({ type: 'note' as const, decision: 'meeting-not-saved', detail: { err: String(event.error) } })) },
      },
    },
    told: {
      entry: enqueueActions(({ context, enqueue }) => {
        const m = context.input.meeting as MeetingRecord;
        const { domain, self, request } = context.input;
        const people = m.participants.map((p) => personOfCalendar(p, domain));
        const ics = invitationIcs({
          threadId: m.threadId, revision: m.revision + 1, title: m.title, slot: m.slot, organizer: m.organizer, attendees: people,
          ...(m.room ? { location: displayName(m.room) } : {}), stamp: context.input.now, method: 'CANCEL',
        });
        const problems = Object.values(context.sent).filter((who) => !(context.replies[who] && isAck(context.replies[who] as Envelope, 'CANCELLED')))
          .map((who) => `${displayName(who)} (${context.replies[who] ? errorCode(context.replies[who] as Envelope) : 'no answer'})`);
        const lines = [
          `Cancelled: ${m.title}, ${when(m.slot, zoneOf(context.input.zones, m.organizer))}.`,
          `Told: ${m.participants.map(displayName).join(', ')}${m.room ? `; room ${displayName(m.room)} released` : ''}.`,
          ...(problems.length ? [`Not confirmed by: ${problems.join(', ')}.`] : []),
        ];
        enqueue.emit({ type: 'send', envelope: presenterReply(request, lines.join('\n'), { kind: 'meeting', status: 'cancelled', threadId: m.threadId, revision: m.revision + 1, ics }) });
        for (const person of people.filter((p) => p !== m.organizer)) {
          enqueue.emit({ type: 'send', envelope: notifyUser(self, m.threadId, person, `${m.organizer.split('@')[0]} cancelled "${m.title}" (${when(m.slot, zoneOf(context.input.zones, person))}).`, { kind: 'meeting', status: 'cancelled', threadId: m.threadId, ics }) });
        }
      }),
      always: 'done',
    },
    done: { type: 'final', entry: 'unclaim' },
  },
});
