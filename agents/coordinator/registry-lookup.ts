// Ask the DF (the Registry), else REGISTRY_TIMEOUT (issue #10 §1): the one sub-protocol every
// Coordinator exchange that needs the directory runs first — the expert flow (QUERY-REF need),
// help and query_agents/broadcast (DESCRIBE), meetings and tasks (DESCRIBE CALENDAR [+ ROOM]).
// It runs as a child actor the parent invokes (`src: 'registryLookup'`, id REGISTRY_LOOKUP):
//   - its QUERY-REFs go to the parent as `child.send` (sendParent); the parent re-emits them as
//     `send`, so the router sends them and correlates their reply_with with the exchange;
//   - the parent forwards every inbound envelope to it while it runs (forwardToLookup); it keeps
//     the answers to its own queries (INFORM, or FAILURE / anything else: the parent decides);
//   - it ends when every query is answered, or at REGISTRY_TIMEOUT, with the answers as output.
// Durable: xstate persists it inside the parent's snapshot, and the router persists and re-arms its
// timer with the exchange's (router.ts, delayed-events.ts); test/unit/registry-lookup.test.ts.
import { type AnyActorRef, assign, emit, enqueueActions, type EventObject, type MachineContext, sendTo, setup } from 'xstate';
import type { Envelope } from '../../shared/acl/index.js';
import type { ChildSendEvent, ExchangeEmitted, InboundEvent } from '../../shared/runtime/index.js';
import { outbound } from './envelopes.js';

/** The invoke id: the parent forwards replies to the child under this id. */
export const REGISTRY_LOOKUP = 'registryLookup';

/** The child's input: `queries` in the conversation of the exchange's request, within its REGISTRY_TIMEOUT. */
export const lookupInput = <C extends { request: Envelope; self: string }>(queries: (context: C) => object[], timeoutMs: (context: C) => number) =>
  ({ context }: { context: C }): RegistryLookupInput => ({ request: context.request, self: context.self, queries: queries(context), timeoutMs: timeoutMs(context) });

export interface RegistryLookupInput {
  /** The exchange's initiating envelope: the queries run in its conversation. */
  request: Envelope;
  self: string;
  /** One QUERY-REF to the Registry per content, all at once (e.g. DESCRIBE CALENDAR and ROOM). */
  queries: object[];
  timeoutMs: number;
}

export interface RegistryLookupOutput {
  /** The Registry's answer to each query, in the order of `queries`; null: none in time. */
  answers: Array<Envelope | null>;
  /** REGISTRY_TIMEOUT passed before every query was answered. */
  timedOut: boolean;
}

interface Ctx {
  queries: Envelope[];
  answers: Array<Envelope | null>;
  timeoutMs: number;
  timedOut: boolean;
}

const indexOf = (context: Ctx, env: Envelope): number => context.queries.findIndex((q) => q.reply_with === env.in_reply_to);

export const registryLookupMachine = setup({
  types: {} as { input: RegistryLookupInput; context: Ctx; events: InboundEvent; output: RegistryLookupOutput; emitted: ExchangeEmitted },
  delays: { REGISTRY_TIMEOUT: ({ context }) => context.timeoutMs },
}).createMachine({
  id: 'registry-lookup',
  context: ({ input }) => ({
    queries: input.queries.map((content) => outbound(input.request, input.self, 'QUERY-REF', 'Registry', content)),
    answers: input.queries.map(() => null), timeoutMs: input.timeoutMs, timedOut: false,
  }),
  initial: 'asking',
  states: {
    asking: {
      entry: enqueueActions(({ context, enqueue }) => {
        for (const envelope of context.queries) enqueue.sendParent({ type: 'child.send', envelope } satisfies ChildSendEvent);
      }),
      on: {
        inbound: {
          guard: ({ context, event }) => indexOf(context, event.envelope) >= 0 && context.answers[indexOf(context, event.envelope)] === null,
          actions: assign(({ context, event }) => ({ answers: context.answers.map((a, i) => (i === indexOf(context, event.envelope) ? event.envelope : a)) })),
        },
      },
      always: { guard: ({ context }) => context.answers.every((a) => a !== null), target: 'answered' },
      after: { REGISTRY_TIMEOUT: { target: 'timedOut', actions: assign({ timedOut: true }) } },
    },
    answered: { type: 'final' },
    timedOut: { type: 'final' },
  },
  output: ({ context }) => ({ answers: context.answers, timedOut: context.timedOut }),
});

// The parent's two halves, generic so that any parent machine's types take them. The machine's
// own event union (TEvent) is left open (`any`): with TEvent = E, whether the action fits a
// machine whose events are a wider union hung on the order tsc happened to check files in
// (xstate's ActorRef variance, measured once and cached): a new file importing the router
// earlier broke every parent.
/** In the state that invokes the lookup, the last `inbound` case: the reply goes to the child. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const forwardToLookup = <C extends MachineContext, E extends EventObject>() => sendTo<C, E, undefined, AnyActorRef, any>(REGISTRY_LOOKUP, ({ event }: { event: E }) => event);

/** The parent's root `on: { 'child.send': { actions: relayChildSend() } }`: the child's envelope goes out as the exchange's own `send`. */
export const relayChildSend = <C extends MachineContext, E extends EventObject>() =>
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  emit<C, E, undefined, any, ExchangeEmitted>(({ event }) => ({ type: 'send' as const, envelope: (event as unknown as ChildSendEvent).envelope }));
