// One request answered exactly once by an invoked handler (docs/runtime.md "Answer once"): the
// handler's answer, FAILURE INTERNAL_ERROR when it throws, FAILURE TIMEOUT when it takes longer
// than `handleMs`, or nothing when it says none is due (a REJECT-PROPOSAL, FIPA SC00029). The
// handler is provided by the role's main.ts and reaches the role's store; with durable roles a
// restore re-runs it, so a handler with an effect goes through `once` (shared/store/answered.ts).
// Used by calendars, rooms, the sessions agent (Coordination Sessions), the KB and the Registry.
import { emit, enqueueActions, fromPromise, setup } from 'xstate';
import { replyTo, errorContent } from '../acl/index.js';
import type { Performative } from '../contracts/index.js';
import type { ExchangeEmitted, ExchangeInput, InboundEvent } from './exchange.js';

/** A telemetry note: a decision the handler took, with what it was based on. */
export interface Note {
  decision: string;
  detail?: object;
}

/** What a handler answers: a performative and content the pipeline will accept, and telemetry notes. */
export interface Answer {
  performative: Performative;
  content: object;
  note?: Note;
  /** Decisions taken on the way to the answer, recorded before `note` (the Registry's DID binding). */
  steps?: readonly Note[];
}

export interface AnswerOnceInput extends ExchangeInput {
  /** The content kind handled, named in the telemetry note (default: the content's `type`). */
  kind?: string;
  /** Longest the handler may take before FAILURE TIMEOUT (default 60 s). */
  handleMs?: number;
  /** Epoch ms at arrival, for a handler whose answer depends on it (the Registry's leases; tests pass fixed values). */
  now?: number;
}

/** What the handler is given: the request, its verified sender and kind (and the arrival time when the input has one). */
export interface HandlerInput {
  kind: string;
  request: ExchangeInput['request'];
  from: ExchangeInput['from'];
  now?: number;
}

const DEFAULT_HANDLE_MS = 60_000;

const handlerInput = ({ context }: { context: AnswerOnceInput }): HandlerInput => ({
  kind: context.kind ?? String(context.request.content.type), request: context.request, from: context.from, ...(context.now !== undefined ? { now: context.now } : {}),
});

/** The invoked handler and where its end leads; `hot`: no telemetry note beyond the handler's own. */
const invokeHandler = (hot: boolean) => ({
  src: 'handle',
  input: handlerInput,
  onDone: { target: 'done', actions: { type: 'answer', params: ({ event }: { event: { output: Answer | null } }) => ({ answer: event.output, hot }) } },
  onError: { target: 'done', actions: { type: 'failInternal', params: ({ event }: { event: { error: unknown } }) => ({ error: event.error }) } },
} as const);

const answerOnce = setup({
  types: {} as { input: AnswerOnceInput; context: AnswerOnceInput; events: InboundEvent; emitted: ExchangeEmitted },
  delays: { HANDLE_TIMEOUT: ({ context }) => context.handleMs ?? DEFAULT_HANDLE_MS },
  actors: {
    handle: fromPromise<Answer | null, HandlerInput>(async () => {
      throw new Error('handle is provided by main.ts');
    }),
  },
  actions: {
    failInternal: emit(({ context }, params: { error: unknown }) => ({
      type: 'send' as const,
      envelope: replyTo(context.request, { performative: 'FAILURE', content: errorContent('INTERNAL_ERROR', String((params.error as Error)?.message ?? params.error).slice(0, 500)) }),
    })),
    /**
     * The handler's answer after its notes. Without a note of its own the kind is noted, and a
     * request needing no answer is noted as such, except on the hot path.
     */
    answer: enqueueActions(({ context, enqueue }, { answer, hot }: { answer: Answer | null; hot: boolean }) => {
      if (answer === null) {
        if (!hot) enqueue.emit({ type: 'note', decision: `${context.kind ?? 'request'}: no answer due` });
        return;
      }
      for (const step of answer.steps ?? []) enqueue.emit({ type: 'note', ...step });
      if (answer.note) enqueue.emit({ type: 'note', ...answer.note });
      else if (!hot) enqueue.emit({ type: 'note', decision: context.kind ?? 'answered' });
      enqueue.emit({ type: 'send', envelope: replyTo(context.request, { performative: answer.performative, content: answer.content }) });
    }),
  },
});

/** The machine, with a timeout beside the handler (`handling`) or, on the hot path, without one (`handlingUntimed`). */
const build = (hot: boolean) => answerOnce.createMachine({
  id: 'answer-once',
  context: ({ input }) => input,
  initial: hot ? 'handlingUntimed' : 'handling',
  states: {
    handling: {
      invoke: invokeHandler(false),
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
    handlingUntimed: { invoke: invokeHandler(true) },
    done: { type: 'final' },
  },
});

/** Calendars, rooms, sessions: FAILURE TIMEOUT after `handleMs`, and a telemetry note for every request. */
export const answerOnceMachine = build(false);

/**
 * For roles whose every request is a hot path answered from a local store within the same turn
 * (the KB's facts, the Registry's heartbeats: thousands a second): no timeout timer beside the
 * handler (an xstate delayed event costs about as much as the rest of such an exchange) and no
 * telemetry note beyond the handler's own decisions.
 */
export const hotPathAnswerOnceMachine = build(true);
