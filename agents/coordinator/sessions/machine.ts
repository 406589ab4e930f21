// One session request at the Coordinator: the store work runs in an invoked promise actor
// (provided by main.ts) and the request is answered exactly once, with the envelope it returns
// or FAILURE INTERNAL_ERROR when it throws. Used for the SESSION_* kinds and for the chat commands.
import { emit, fromPromise, setup } from 'xstate';
import { type Envelope, replyTo } from '../../../shared/acl/envelope.js';
import { errorContent } from '../../../shared/acl/errors.js';
import type { ExchangeEmitted, ExchangeInput, InboundEvent } from '../../../shared/runtime/exchange.js';

export const sessionMachine = setup({
  types: {} as { input: ExchangeInput; context: ExchangeInput; events: InboundEvent; emitted: ExchangeEmitted },
  actors: {
    handle: fromPromise<Envelope, ExchangeInput>(async () => {
      throw new Error('handle is provided by main.ts');
    }),
  },
}).createMachine({
  id: 'coordinator-session',
  context: ({ input }) => input,
  initial: 'handling',
  states: {
    handling: {
      invoke: {
        src: 'handle',
        input: ({ context }) => context,
        onDone: { target: 'done', actions: emit(({ event }) => ({ type: 'send' as const, envelope: event.output })) },
        onError: {
          target: 'done',
          actions: emit(({ context, event }) => ({
            type: 'send' as const,
            envelope: replyTo(context.request, { performative: 'FAILURE', content: errorContent('INTERNAL_ERROR', String((event.error as Error)?.message ?? event.error).slice(0, 500)) }),
          })),
        },
      },
    },
    done: { type: 'final' },
  },
});
