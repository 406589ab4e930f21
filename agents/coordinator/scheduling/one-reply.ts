// An exchange that is one PRESENTER_REPLY and done: what the Coordinator can answer from its own
// store or the line alone (usage.ts, agenda.ts). The reply is made from the machine's input.
import { type AnyStateMachine, emit, setup } from 'xstate';
import type { ExchangeEmitted } from '../../../shared/runtime/index.js';
import { type CoordinatorInput, presenterReply } from '../envelopes.js';

export function oneReplyMachine<I extends CoordinatorInput>(id: string, reply: (input: I) => { text: string; rich: Record<string, unknown> }): AnyStateMachine {
  return setup({
    types: {} as { input: I; context: I; emitted: ExchangeEmitted },
  }).createMachine({
    id,
    context: ({ input }) => input,
    initial: 'done',
    states: {
      done: {
        type: 'final',
        entry: emit(({ context }) => {
          const r = reply(context as I);
          return { type: 'send' as const, envelope: presenterReply(context.request, r.text, r.rich) };
        }),
      },
    },
  });
}
