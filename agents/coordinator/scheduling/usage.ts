// A scheduling command the Coordinator recognised but cannot use ("schedule with bob" without a
// duration, a malformed /meet): one PRESENTER_REPLY saying what is missing, at once.
import { emit, setup } from 'xstate';
import type { ExchangeEmitted } from '../../../shared/runtime/index.js';
import { type CoordinatorInput, presenterReply } from '../envelopes.js';

export interface UsageInput extends CoordinatorInput {
  detail: string;
}

export const usageMachine = setup({
  types: {} as { input: UsageInput; context: UsageInput; emitted: ExchangeEmitted },
}).createMachine({
  id: 'coordinator-scheduling-usage',
  context: ({ input }) => input,
  initial: 'done',
  states: {
    done: {
      type: 'final',
      entry: emit(({ context }) => ({
        type: 'send' as const,
        envelope: presenterReply(context.request, context.detail, { kind: 'scheduling', status: 'invalid', detail: context.detail }),
      })),
    },
  },
});
