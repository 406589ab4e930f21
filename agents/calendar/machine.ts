// One OACoP exchange at a calendar (docs/oacop.md): the request is handled by an invoked promise
// actor (store, ledger: provided by main.ts) and answered exactly once — its outcome, FAILURE
// INTERNAL_ERROR when the handler throws, or FAILURE TIMEOUT when it takes too long. A
// REJECT-PROPOSAL gets no answer (FIPA SC00029).
import { assign, emit, fromPromise, setup } from 'xstate';
import { replyTo } from '../../shared/acl/envelope.js';
import { errorContent } from '../../shared/acl/errors.js';
import type { ExchangeEmitted, ExchangeInput, InboundEvent } from '../../shared/runtime/exchange.js';
import type { Outcome } from './outcome.js';
import type { CalendarKind } from './service.js';

export interface CalendarExchangeInput extends ExchangeInput {
  kind: CalendarKind;
  handleMs: number;
}

export interface HandleInput {
  kind: CalendarKind;
  request: ExchangeInput['request'];
  from: ExchangeInput['from'];
}

interface Ctx extends CalendarExchangeInput {
  outcome: Outcome | null;
}

export const calendarExchangeMachine = setup({
  types: {} as { input: CalendarExchangeInput; context: Ctx; events: InboundEvent; emitted: ExchangeEmitted },
  delays: { HANDLE_TIMEOUT: ({ context }) => context.handleMs },
  actors: {
    handle: fromPromise<Outcome | null, HandleInput>(async () => {
      throw new Error('handle is provided by main.ts');
    }),
  },
  guards: {
    hasAnswer: ({ context }) => context.outcome !== null,
  },
}).createMachine({
  id: 'calendarExchange',
  context: ({ input }) => ({ ...input, outcome: null }),
  initial: 'handling',
  states: {
    handling: {
      invoke: {
        src: 'handle',
        input: ({ context }) => ({ kind: context.kind, request: context.request, from: context.from }),
        onDone: { target: 'answering', actions: assign({ outcome: ({ event }) => event.output }) },
        onError: {
          target: 'done',
          actions: emit(({ context, event }) => ({
            type: 'send' as const,
            envelope: replyTo(context.request, { performative: 'FAILURE', content: errorContent('INTERNAL_ERROR', String((event.error as Error)?.message ?? event.error).slice(0, 500)) }),
          })),
        },
      },
      after: {
        HANDLE_TIMEOUT: {
          target: 'done',
          actions: emit(({ context }) => ({
            type: 'send' as const,
            envelope: replyTo(context.request, { performative: 'FAILURE', content: errorContent('TIMEOUT', `${context.kind} took longer than ${context.handleMs} ms`) }),
          })),
        },
      },
    },
    answering: {
      always: [
        {
          guard: 'hasAnswer',
          target: 'done',
          actions: [
            emit(({ context }) => ({ type: 'note' as const, decision: context.outcome?.note?.decision ?? context.kind, detail: context.outcome?.note?.detail })),
            emit(({ context }) => ({
              type: 'send' as const,
              envelope: replyTo(context.request, { performative: (context.outcome as Outcome).performative, content: (context.outcome as Outcome).content }),
            })),
          ],
        },
        { target: 'done', actions: emit(({ context }) => ({ type: 'note' as const, decision: `${context.kind}: no answer due` })) },
      ],
    },
    done: { type: 'final' },
  },
});
