// The requesting side of a one-reply exchange (bench): sends one envelope, ends with the first reply.
import { assign, emit, setup } from 'xstate';
import type { Envelope } from '../acl/index.js';
import type { ExchangeEmitted, InboundEvent } from '../runtime/index.js';

export const oneShotQuery = setup({
  types: {} as { input: { envelope: Envelope }; context: { envelope: Envelope; reply?: Envelope }; events: InboundEvent; emitted: ExchangeEmitted; output: Envelope },
}).createMachine({
  context: ({ input }) => ({ envelope: input.envelope }),
  entry: emit(({ context }) => ({ type: 'send' as const, envelope: context.envelope })),
  initial: 'waiting',
  states: { waiting: { on: { inbound: { target: 'done', actions: assign({ reply: ({ event }) => event.envelope }) } } }, done: { type: 'final' } },
  output: ({ context }) => context.reply as Envelope,
});
