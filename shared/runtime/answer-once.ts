// One request answered exactly once by an invoked handler (docs/runtime.md "Answer once"): the
// handler's answer, FAILURE INTERNAL_ERROR when it throws, FAILURE TIMEOUT when it takes longer
// than `handleMs`, or nothing when it says none is due (a REJECT-PROPOSAL, FIPA SC00029). The
// handler is provided by the role's main.ts and reaches the role's store; with durable roles a
// restore re-runs it, so a handler with an effect goes through `once` (shared/store/answered.ts).
// Used by calendars, rooms and the Coordinator's Coordination Sessions.
import { assign, emit, fromPromise, setup } from 'xstate';
import { replyTo } from '../acl/envelope.js';
import { errorContent } from '../acl/errors.js';
import type { Performative } from '../contracts/types.gen.js';
import type { ExchangeEmitted, ExchangeInput, InboundEvent } from './exchange.js';

/** What a handler answers: a performative and content the pipeline will accept, and a telemetry note. */
export interface Answer {
  performative: Performative;
  content: object;
  note?: { decision: string; detail?: object };
}

export interface AnswerOnceInput extends ExchangeInput {
  /** The content kind handled, named in the telemetry note. */
  kind?: string;
  /** Longest the handler may take before FAILURE TIMEOUT (default 60 s). */
  handleMs?: number;
}

/** What the handler is given: the request, its verified sender and kind. */
export interface HandlerInput {
  kind: string;
  request: ExchangeInput['request'];
  from: ExchangeInput['from'];
}

interface Ctx extends AnswerOnceInput {
  answer: Answer | null;
}

const DEFAULT_HANDLE_MS = 60_000;

export const answerOnceMachine = setup({
  types: {} as { input: AnswerOnceInput; context: Ctx; events: InboundEvent; emitted: ExchangeEmitted },
  delays: { HANDLE_TIMEOUT: ({ context }) => context.handleMs ?? DEFAULT_HANDLE_MS },
  actors: {
    handle: fromPromise<Answer | null, HandlerInput>(async () => {
      throw new Error('handle is provided by main.ts');
    }),
  },
  guards: {
    hasAnswer: ({ context }) => context.answer !== null,
  },
}).createMachine({
  id: 'answer-once',
  context: ({ input }) => ({ ...input, answer: null }),
  initial: 'handling',
  states: {
    handling: {
      invoke: {
        src: 'handle',
        input: ({ context }) => ({ kind: context.kind ?? String(context.request.content.type), request: context.request, from: context.from }),
        onDone: { target: 'answering', actions: assign({ answer: ({ event }) => event.output }) },
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
            envelope: replyTo(context.request, { performative: 'FAILURE', content: errorContent('TIMEOUT', `${context.kind ?? 'the request'} took longer than ${context.handleMs ?? DEFAULT_HANDLE_MS} ms`) }),
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
            emit(({ context }) => ({ type: 'note' as const, decision: context.answer?.note?.decision ?? context.kind ?? 'answered', detail: context.answer?.note?.detail })),
            emit(({ context }) => ({
              type: 'send' as const,
              envelope: replyTo(context.request, { performative: (context.answer as Answer).performative, content: (context.answer as Answer).content }),
            })),
          ],
        },
        { target: 'done', actions: emit(({ context }) => ({ type: 'note' as const, decision: `${context.kind ?? 'request'}: no answer due` })) },
      ],
    },
    done: { type: 'final' },
  },
});
