// "What did you tell me about X?": QUERY-REF GET_FACTS to the KB, scoped to the person who asks
// (USER_MSG.user; without it, to this conversation), answered as a summary of past answers.
// The KB is the only memory: when it is silent the person gets FAILURE KB_UNAVAILABLE (seed §4).
import { assign, emit, setup } from 'xstate';
import type { Envelope } from '../../shared/acl/index.js';
import type { StoredFact } from '../../shared/contracts/index.js';
import type { ExchangeEmitted, InboundEvent } from '../../shared/runtime/index.js';
import { answers, type CoordinatorInput, isCancelOf, outbound, presenterFailure, presenterReply, reasonOf, userMsg } from './envelopes.js';
import { recallText } from './replies.js';

export interface RecallInput extends CoordinatorInput {
  topic: string;
}

interface Ctx {
  request: Envelope;
  self: string;
  topic: string;
  zone?: string;
  user?: string;
  kbTimeoutMs: number;
  query?: Envelope;
}

export const RECALL_LIMIT = 5;

export const recallMachine = setup({
  types: {} as { input: RecallInput; context: Ctx; events: InboundEvent; emitted: ExchangeEmitted },
  actions: {
    unavailable: emit(({ context }, p: { why: string }) => ({
      type: 'send' as const,
      envelope: presenterFailure(context.request, 'KB_UNAVAILABLE', `I cannot look up what I told you${context.topic ? ` about ${context.topic}` : ''}: ${p.why}.`),
    })),
  },
  delays: { KB_TIMEOUT: ({ context }) => context.kbTimeoutMs },
}).createMachine({
  id: 'coordinator-recall',
  context: ({ input }) => {
    const { user } = userMsg(input.request);
    return { request: input.request, self: input.self, topic: input.topic, kbTimeoutMs: input.timeouts.kbTimeoutMs, ...(user ? { user } : {}), ...(input.zone ? { zone: input.zone } : {}) };
  },
  initial: 'querying',
  states: {
    querying: {
      entry: [
        assign(({ context }) => ({
          query: outbound(context.request, context.self, 'QUERY-REF', 'KB', {
            type: 'GET_FACTS',
            filter: {
              ...(context.user ? { subject: context.user } : { session_id: context.request.conversation_id }),
              ...(context.topic ? { text: context.topic } : {}), limit: RECALL_LIMIT,
            },
          }),
        })),
        emit(({ context }) => ({ type: 'send' as const, envelope: context.query as Envelope })),
      ],
      on: {
        inbound: [
          { guard: ({ context, event }) => isCancelOf(event, context.request), target: 'done' },
          {
            guard: ({ context, event }) => answers(event, context.query) && Array.isArray(event.envelope.content.facts),
            target: 'done',
            actions: emit(({ context, event }) => {
              const facts = event.envelope.content.facts as StoredFact[];
              return {
                type: 'send' as const,
                envelope: presenterReply(context.request, recallText(context.topic, facts, context.zone), { kind: 'recall', topic: context.topic, count: facts.length }),
              };
            }),
          },
          {
            guard: ({ context, event }) => answers(event, context.query),
            target: 'done',
            actions: {
              type: 'unavailable',
              params: ({ event }) => ({ why: `the knowledge base answered ${event.envelope.performative} ${reasonOf(event.envelope).reason}` }),
            },
          },
        ],
      },
      after: {
        KB_TIMEOUT: {
          target: 'done',
          actions: [emit({ type: 'note', decision: 'kb-unavailable' }), { type: 'unavailable', params: { why: 'the knowledge base did not respond' } }],
        },
      },
    },
    done: { type: 'final' },
  },
});
