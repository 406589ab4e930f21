// "when is bob free on monday?" (free-time.ts): LOOKUP (DESCRIBE CALENDAR) → ASKING (CFP rev 1
// to each named person's calendar, collected until all answered or OACOP_TIMEOUT) → ANSWERING
// (REJECT-PROPOSAL rev 2 to every calendar asked, so none keeps the proposal; the person reads
// the free time). Nothing is booked or held. Pure: envelopes are emitted, the timeout is a delay.
import { assign, emit, enqueueActions, setup } from 'xstate';
import type { Envelope } from '../../../shared/acl/index.js';
import { OUTSIDE_WORKING_HOURS_RE } from '../../../shared/calendar/index.js';
import type { AgentProfile } from '../../../shared/contracts/index.js';
import type { ChildSendEvent, ExchangeEmitted, InboundEvent } from '../../../shared/runtime/index.js';
import { type CoordinatorInput, isCancelOf, presenterReply } from '../envelopes.js';
import { forwardToLookup, lookupInput, REGISTRY_LOOKUP, registryLookupMachine, relayChildSend } from '../registry-lookup.js';
import { type Answer, type FreeTimeQuestion, freeTimeChoices, freeTimeText } from './free-time.js';
import { calendarOf, cancel, directoryProfiles, errorCode, type Meeting, oacop, offeredSlots, propose } from './oacop.js';
import { minutesOf } from './slots.js';
import { directoryDownText } from './texts.js';
import { type Zones, zoneOf } from './zones.js';

export interface FreeTimeInput extends CoordinatorInput {
  question: FreeTimeQuestion;
  /** urn:uuid:… for the CFP (OACoP §2.1), chosen by the factory. */
  threadId: string;
  oacopTimeoutMs: number;
  zones?: Zones;
}

interface Ctx {
  request: Envelope;
  self: string;
  asker: string;
  question: FreeTimeQuestion;
  meeting: Meeting;
  registryTimeoutMs: number;
  oacopTimeoutMs: number;
  zone: string;
  /** Each person as asked ('me' for the asker) and their calendar agent. */
  targets: Array<[string, string]>;
  /** reply_with of each CFP → calendar; each calendar's answer. */
  sent: Record<string, string>;
  replies: Record<string, Envelope>;
  text?: string;
  /** One person's or room's first free half-hours, as choices (free-time.ts freeTimeChoices). */
  choices?: Array<{ label: string; say: string }>;
}

/** What a calendar's answer says about its person's free time. */
function answerOf(env: Envelope | undefined): Answer {
  if (!env) return { none: 'did not answer in time' };
  const slots = offeredSlots(env);
  if (slots?.length) return { free: slots };
  const comment = (env.content as { comment?: unknown }).comment;
  // Quoted only in exactly that form (decide.ts missOf): a calendar cannot put other words in the chat.
  if (typeof comment === 'string' && OUTSIDE_WORKING_HOURS_RE.test(comment)) return { none: comment };
  if (slots !== undefined || env.content.type === 'ProposalResponse') return { none: 'busy then' };
  return { none: `could not answer (${errorCode(env)})` };
}

/** People's calendars, or a room's ("is atlas free at 10?": a room is a calendar too, room-atlas). */
function resolve(c: Ctx, answers: readonly unknown[]): { targets: Array<[string, string]> } | { text: string } {
  const [calendars = [], rooms = []] = answers.map((a) => directoryProfiles(a as Envelope) ?? []);
  const own = c.asker.split('@')[0] ?? c.asker;
  const found = c.question.people.map((p): [string, AgentProfile | undefined] =>
    [p, calendarOf(calendars, p === 'me' ? own : p) ?? rooms.find((r) => r.name === `room-${p}`)]);
  if (found.some(([p, cal]) => p === 'me' && !cal)) return { text: 'You have no calendar here, so I cannot tell when you are free.' };
  const unknown = found.filter(([, cal]) => !cal).map(([p]) => p);
  if (unknown.length) return { text: `I don't know a calendar or room for ${unknown.join(' or ')}. Only people with a calendar agent, and rooms, can be asked.` };
  return { targets: found.map(([p, cal]) => [p, (cal as AgentProfile).name]) };
}

export const freeTimeMachine = setup({
  types: {} as { input: FreeTimeInput; context: Ctx; events: InboundEvent | ChildSendEvent; emitted: ExchangeEmitted },
  actors: { registryLookup: registryLookupMachine },
  delays: { OACOP_TIMEOUT: ({ context }) => context.oacopTimeoutMs },
  guards: {
    cancelled: ({ context, event }) => event.type === 'inbound' && isCancelOf(event, context.request),
    inRound: ({ context, event }) => event.type === 'inbound' && event.envelope.in_reply_to !== undefined && event.envelope.in_reply_to in context.sent,
    allAnswered: ({ context }) => Object.keys(context.replies).length >= Object.keys(context.sent).length,
  },
  actions: {
    // Every calendar that proposed lets the proposal go (REJECT-PROPOSAL needs no answer), as schedule.ts does for the ones not chosen.
    withdraw: enqueueActions(({ context, enqueue }) => {
      for (const [cal, answer] of Object.entries(context.replies)) {
        if (answer.performative !== 'PROPOSE') continue;
        enqueue.emit({ type: 'send', envelope: oacop({
          performative: 'REJECT-PROPOSAL', self: context.self, to: cal, conversationId: context.request.conversation_id,
          content: cancel(context.meeting.threadId, 2, 'only free time was asked', context.meeting.requester), inReplyTo: answer.reply_with,
        }) });
      }
    }),
    reply: emit(({ context }) => ({
      type: 'send' as const,
      envelope: presenterReply(context.request, context.text ?? '', {
        kind: 'free-time', people: context.question.people, window: context.question.window, ...(context.choices?.length ? { choices: context.choices } : {}),
      }),
    })),
  },
}).createMachine({
  id: 'coordinator-free-time',
  context: ({ input }) => {
    const asker = String(input.request.content.user ?? '');
    const q = input.question;
    const minutes = q.slot ? Math.max(5, minutesOf(q.slot)) : 15;
    return {
      request: input.request, self: input.self, asker, question: q, registryTimeoutMs: input.timeouts.registryTimeoutMs, oacopTimeoutMs: input.oacopTimeoutMs,
      meeting: { threadId: input.threadId, title: 'Free time', durationMin: minutes, window: q.window, requester: asker || input.request.sender },
      zone: zoneOf(input.zones, asker), targets: [], sent: {}, replies: {},
    };
  },
  on: { 'child.send': { actions: relayChildSend() } },
  initial: 'lookup',
  states: {
    lookup: {
      invoke: {
        id: REGISTRY_LOOKUP, src: 'registryLookup',
        input: lookupInput(() => [{ type: 'DESCRIBE', capability: 'CALENDAR' }, { type: 'DESCRIBE', capability: 'ROOM' }], (c: Ctx) => c.registryTimeoutMs),
        onDone: [
          { guard: ({ event }) => event.output.timedOut, target: 'done', actions: [assign({ text: directoryDownText }), 'reply'] },
          // Resolved once: either who to ask, or the sentence that says why nobody can be.
          { target: 'resolved', actions: assign(({ context, event }) => resolve(context, event.output.answers)) },
        ],
      },
      on: { inbound: [{ guard: 'cancelled', target: 'done' }, { actions: forwardToLookup() }] },
    },
    resolved: {
      always: [{ guard: ({ context }) => context.text !== undefined, target: 'done', actions: 'reply' }, { target: 'asking' }],
    },
    asking: {
      entry: enqueueActions(({ context, enqueue }) => {
        const calendars = [...new Set(context.targets.map(([, cal]) => cal))];
        const sent: Record<string, string> = {};
        for (const cal of calendars) {
          const env = oacop({ performative: 'CFP', self: context.self, to: cal, conversationId: context.request.conversation_id, content: propose(context.meeting, 1, { participants: [cal], required: [cal] }) });
          sent[env.reply_with as string] = cal;
          enqueue.emit({ type: 'send', envelope: env });
        }
        enqueue.assign({ sent });
      }),
      on: {
        inbound: [
          { guard: 'cancelled', target: 'done', actions: 'withdraw' },
          { guard: 'inRound', actions: assign({ replies: ({ context, event }) => ({ ...context.replies, [context.sent[(event as InboundEvent).envelope.in_reply_to as string] as string]: (event as InboundEvent).envelope }) }) },
        ],
      },
      always: { guard: 'allAnswered', target: 'answering' },
      after: { OACOP_TIMEOUT: 'answering' },
    },
    answering: {
      entry: [
        'withdraw',
        assign(({ context }) => {
          const answers = context.targets.map(([p, cal]): [string, Answer] => [p, answerOf(context.replies[cal])]);
          const rooms = new Set(context.targets.filter(([, cal]) => cal.startsWith('room-')).map(([p]) => p));
          const choices = freeTimeChoices(context.question, answers, context.zone, rooms);
          return { text: freeTimeText(context.question, answers, context.zone, rooms, choices), choices };
        }),
        'reply',
      ],
      always: 'done',
    },
    done: { type: 'final' },
  },
});
