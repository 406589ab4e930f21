// One ASK_EXPERT exchange, Specialist side (seed contract §2.3; FIPA SC00026 request protocol):
// REFUSE at once when busy; otherwise recognise (which skill takes the question; none →
// REFUSE OUT_OF_SCOPE), AGREE and then exactly one of INFORM RESULT, FAILURE INVALID_ARGS |
// INTERNAL_ERROR | TIMEOUT. The AGREE waits `agreeAfterMs` (PARLEY_SPECIALIST_AGREE_AFTER_MS, 250 ms) for the skill:
// an answer ready by then goes out alone (SC00026 §2: "the agree message may be optional … if the
// requested action is very quick"; the Coordinator takes a RESULT without one), which saves two
// signed envelopes per question, this AGREE and the Coordinator's AGREE {by} to the Presenter. A CANCEL from the Coordinator (in_reply_to = the request) ends the
// exchange silently (SC00026 §2: the cancel meta-protocol). `busy` is decided by the factory in
// exchange.ts; recognition and the computation are invoked promise actors (they run in the
// skills' worker threads) and the slot release an action, all provided there.
import { assign, emit, enqueueActions, fromPromise, setup } from 'xstate';
import { replyTo, errorContent, performativeFor, toParleyError } from '../../shared/acl/index.js';
import type { ExchangeEmitted, ExchangeInput, InboundEvent } from '../../shared/runtime/index.js';

/**
 * What the recognise actor gets: the question and, in an ASK_EXPERT exchange, its job, so a skill
 * that claims the question can start it in the same worker round trip (issue 15; the AGREE still
 * goes out first). `key` names the exchange; compute passes it back to take that run.
 */
export interface RecogniseInput {
  question: string;
  job?: { key: string; args: Record<string, unknown>; session_id: string };
}

export interface ComputeInput {
  expert: string;
  question: string;
  /** ASK_EXPERT args (validated against the skill's inputSchema) and the session for delegations. */
  args: Record<string, unknown>;
  session_id: string;
  /** The agent whose exchange runs it (a host's shared machines find that agent's runner by it). */
  self?: string;
  /** The exchange's key when its recognition may have started the run (RecogniseInput.job). */
  key?: string;
}
export interface ComputeOutput {
  answer: string;
  meta: Record<string, unknown>;
}

export interface AskInput extends ExchangeInput {
  /** The specialist is at its concurrency limit (seed contract §2.3 {"reason":"busy"}). */
  busy: boolean;
  /** The skill that takes the question when already known (null = out of scope); undefined = recognise. */
  expert?: string | null;
  /** What this specialist does, for the OUT_OF_SCOPE detail. */
  scope: string;
  computeMs: number;
  /** How long the AGREE waits for the answer (0: AGREE at once); below the Coordinator's AGREE timeout (3 s). */
  agreeAfterMs?: number;
}

interface AskContext extends AskInput {
  question: string;
  args: Record<string, unknown>;
  session_id: string;
}

const argsOf = (input: AskInput): Record<string, unknown> => (input.request.content as { args?: Record<string, unknown> }).args ?? {};
const questionOf = (input: AskInput): string => {
  const q = argsOf(input).question;
  return typeof q === 'string' ? q : '';
};
const sessionOf = (input: AskInput): string =>
  (input.request.content as { context_ref?: { session_id?: string } }).context_ref?.session_id ?? input.request.conversation_id;

/** Unique while the exchange lasts: the receiving agent and the request's message id. */
const exchangeKey = (context: AskContext): string => `${context.self ?? ''}|${context.request.reply_with}`;

export const askExpertMachine = setup({
  types: {} as { input: AskInput; context: AskContext; events: InboundEvent; emitted: ExchangeEmitted },
  delays: { COMPUTE_TIMEOUT: ({ context }) => context.computeMs, AGREE_AFTER: ({ context }) => context.agreeAfterMs ?? 0 },
  actors: {
    recognise: fromPromise<string | null, RecogniseInput>(async () => {
      throw new Error('recognise is provided by exchange.ts');
    }),
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
    known: ({ context }) => typeof context.expert === 'string',
    isCancel: ({ event }) => event.envelope.performative === 'CANCEL',
  },
}).createMachine({
  id: 'askExpert',
  context: ({ input }) => ({ ...input, question: questionOf(input), args: argsOf(input), session_id: sessionOf(input) }),
  initial: 'deciding',
  states: {
    deciding: {
      always: [
        { guard: 'busy', target: 'refused' },
        { guard: 'outOfScope', target: 'outOfScope' },
        { guard: 'known', target: 'serving.working' },
        { target: 'serving.recognising' },
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
        envelope: replyTo(context.request, { performative: 'REFUSE', content: errorContent('OUT_OF_SCOPE', `no skill of ${context.self} recognises the question; it answers ${context.scope}`) }),
      })),
    },
    // Holds the concurrency slot the factory took, however the exchange ends.
    serving: {
      exit: 'releaseSlot',
      initial: 'recognising',
      states: {
        recognising: {
          invoke: {
            src: 'recognise',
            input: ({ context }) => ({ question: context.question, job: { key: exchangeKey(context), args: context.args, session_id: context.session_id } }),
            onDone: [
              { guard: ({ event }) => event.output === null, target: '#askExpert.outOfScope' },
              { target: 'working', actions: assign({ expert: ({ event }) => event.output }) },
            ],
            onError: { target: '#askExpert.outOfScope' },
          },
          on: { inbound: { guard: 'isCancel', target: '#askExpert.cancelled' } },
        },
        working: {
          entry: enqueueActions(({ context, enqueue }) => {
            if (!context.agreeAfterMs) enqueue('agree');
          }),
          invoke: {
            src: 'compute',
            input: ({ context }) => ({ expert: context.expert ?? '', question: context.question, args: context.args, session_id: context.session_id, self: context.self, key: exchangeKey(context) }),
            onDone: {
              target: '#askExpert.answered',
              actions: emit(({ context, event }) => ({
                type: 'send' as const,
                envelope: replyTo(context.request, { performative: 'INFORM', content: { type: 'RESULT', result: { answer: event.output.answer, meta: event.output.meta } } }),
              })),
            },
            onError: {
              target: '#askExpert.failed',
              actions: emit(({ context, event }) => {
                const e = toParleyError(event.error);
                // Only FAILURE reasons may answer an agreed request; anything else is our fault.
                const code = performativeFor(e.code) === 'FAILURE' ? e.code : 'INTERNAL_ERROR';
                return { type: 'send' as const, envelope: replyTo(context.request, { performative: 'FAILURE', content: errorContent(code, e.detail) }) };
              }),
            },
          },
          after: {
            // Still working: the Coordinator is told (no target: the skill goes on running).
            AGREE_AFTER: { guard: ({ context }) => Boolean(context.agreeAfterMs), actions: 'agree' },
            COMPUTE_TIMEOUT: {
              target: '#askExpert.timedOut',
              actions: emit(({ context }) => ({
                type: 'send' as const,
                envelope: replyTo(context.request, { performative: 'FAILURE', content: errorContent('TIMEOUT', `the ${context.expert} skill took longer than ${context.computeMs} ms`) }),
              })),
            },
          },
          on: {
            inbound: {
              guard: 'isCancel',
              target: '#askExpert.cancelled',
              actions: emit(({ event }) => ({ type: 'note' as const, decision: 'cancelled', detail: { reason: (event.envelope.content as { reason?: string }).reason ?? null } })),
            },
          },
        },
      },
    },
    answered: { type: 'final' },
    failed: { type: 'final' },
    timedOut: { type: 'final' },
    cancelled: { type: 'final' },
  },
});
