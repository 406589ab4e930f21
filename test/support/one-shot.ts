// The requesting side of a one-reply exchange, for integration tests that drive a real agent:
// it sends one envelope and ends with the first reply correlated to it (its output).
import { assign, emit, setup } from 'xstate';
import type { Envelope } from '../../shared/acl/envelope.js';
import type { ExchangeEmitted, InboundEvent } from '../../shared/runtime/exchange.js';

export const oneShot = setup({
  types: {} as { input: { envelope: Envelope }; context: { envelope: Envelope; reply?: Envelope }; events: InboundEvent; emitted: ExchangeEmitted; output: Envelope },
}).createMachine({
  context: ({ input }) => ({ envelope: input.envelope }),
  entry: emit(({ context }) => ({ type: 'send' as const, envelope: context.envelope })),
  initial: 'waiting',
  states: { waiting: { on: { inbound: { target: 'done', actions: assign({ reply: ({ event }) => event.envelope }) } } }, done: { type: 'final' } },
  output: ({ context }) => context.reply as Envelope,
});
