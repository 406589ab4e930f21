// One ASK_EXPERT exchange, Specialist side (seed contract §2.3; FIPA SC00026 request protocol):
// REFUSE at once (busy, OUT_OF_SCOPE), or AGREE and then exactly one of INFORM RESULT,
// FAILURE INVALID_ARGS | INTERNAL_ERROR | TIMEOUT. A CANCEL from the Coordinator (in_reply_to =
// the request) ends the exchange silently (SC00026 §2: the cancel meta-protocol). The decision
// inputs (busy, which expert) are made by the factory in exchange.ts; the computation is an
// invoked promise actor and the slot release an action, both provided there.
import { emit, fromPromise, setup } from 'xstate';
import { replyTo } from '../../shared/acl/envelope.js';
import { errorContent, performativeFor, toParleyError } from '../../shared/acl/errors.js';
import type { ExchangeEmitted, ExchangeInput, InboundEvent } from '../../shared/runtime/exchange.js';

export interface ComputeInput {
  expert: string;
  question: string;
}
export interface ComputeOutput {
  answer: string;
  meta: Record<string, unknown>;
}

export interface AskInput extends ExchangeInput {
  /** The specialist is at its concurrency limit (seed contract §2.3 {"reason":"busy"}). */
  busy: boolean;
  /** The expert that recognised the question; null = out of scope. */
  expert: string | null;
  /** What this specialist does, for the OUT_OF_SCOPE detail. */
  scope: string;
  computeMs: number;
}

interface AskContext extends AskInput {
  question: string;
}

const questionOf = (input: AskInput): string => {
  const args = (input.request.content as { args?: { question?: unknown } }).args;
  return typeof args?.question === 'string' ? args.question : '';
};

export const askExpertMachine = setup({
  types: {} as { input: AskInput; context: AskContext; events: InboundEvent; emitted: ExchangeEmitted },
  delays: { COMPUTE_TIMEOUT: ({ context }) => context.computeMs },
  actors: {
    compute: fromPromise<ComputeOutput, ComputeInput>(async () => {
      throw new Error('compute is provided by exchange.ts');
    }),
  },
  actions: {
    /** Frees the concurrency slot taken by the factory; provided by exchange.ts. */
    releaseSlot: () => undefined,
    agree: emit(({ context }) => ({ type: 'send' as const, envelope: replyTo(context.request, { performative: 'AGREE', content: { status: 'accepted' } }) })),
  },
  guards: {
    busy: ({ context }) => context.busy,
    outOfScope: ({ context }) => context.expert === null,
    isCancel: ({ event }) => event.envelope.performative === 'CANCEL',
  },
}).createMachine({
  id: 'askExpert',
  context: ({ input }) => ({ ...input, question: questionOf(input) }),
  initial: 'deciding',
  states: {
    deciding: {
      always: [
        { guard: 'busy', target: 'refused' },
        { guard: 'outOfScope', target: 'outOfScope' },
        { target: 'working' },
      ],
    },
    refused: {
      type: 'final',
      entry: emit(({ context }) => ({
        type: 'send' as const,
        envelope: replyTo(context.request, { performative: 'REFUSE', content: { reason: 'busy', detail: `${context.self} is at its concurrency limit; try another candidate` } }),
      })),
    },
    outOfScope: {
      type: 'final',
      entry: emit(({ context }) => ({
        type: 'send' as const,
        envelope: replyTo(context.request, { performative: 'REFUSE', content: errorContent('OUT_OF_SCOPE', `no expert of ${context.self} recognises the question; it answers ${context.scope}`) }),
      })),
    },
    working: {
      entry: 'agree',
      exit: 'releaseSlot',
      invoke: {
        src: 'compute',
        input: ({ context }) => ({ expert: context.expert ?? '', question: context.question }),
        onDone: {
          target: 'answered',
          actions: emit(({ context, event }) => ({
            type: 'send' as const,
            envelope: replyTo(context.request, { performative: 'INFORM', content: { type: 'RESULT', result: { answer: event.output.answer, meta: event.output.meta } } }),
          })),
        },
        onError: {
          target: 'failed',
          actions: emit(({ context, event }) => {
            const e = toParleyError(event.error);
            // Only FAILURE reasons may answer an agreed request; anything else is our fault.
            const code = performativeFor(e.code) === 'FAILURE' ? e.code : 'INTERNAL_ERROR';
            return { type: 'send' as const, envelope: replyTo(context.request, { performative: 'FAILURE', content: errorContent(code, e.detail) }) };
          }),
        },
      },
      after: {
        COMPUTE_TIMEOUT: {
          target: 'timedOut',
          actions: emit(({ context }) => ({
            type: 'send' as const,
            envelope: replyTo(context.request, { performative: 'FAILURE', content: errorContent('TIMEOUT', `the ${context.expert} expert took longer than ${context.computeMs} ms`) }),
          })),
        },
      },
      on: {
        inbound: {
          guard: 'isCancel',
          target: 'cancelled',
          actions: emit(({ event }) => ({ type: 'note' as const, decision: 'cancelled', detail: { reason: (event.envelope.content as { reason?: string }).reason ?? null } })),
        },
      },
    },
    answered: { type: 'final' },
    failed: { type: 'final' },
    timedOut: { type: 'final' },
    cancelled: { type: 'final' },
  },
});
