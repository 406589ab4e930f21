// Two small exchange machines for the runtime's own tests and the benchmark: an "echo
// specialist" that answers REQUEST ASK_EXPERT (seed contract §2.3), and the Coordinator-side
// requester that asks it. Pure xstate: the answer is an invoked promise actor the caller provides.
import { assign, emit, fromPromise, setup } from 'xstate';
import { type Envelope, makeEnvelope, replyTo, errorContent } from '../acl/index.js';
import type { ExchangeEmitted, ExchangeInput, InboundEvent } from '../runtime/index.js';

export interface ResponderInput extends ExchangeInput {
  /** FIPA SC00026 lets the participant skip AGREE when it answers at once (one reply per request). */
  agree: boolean;
}

const questionOf = (request: Envelope): string =>
  String((request.content as { args?: { question?: unknown } }).args?.question ?? '');

/** Specialist side: [AGREE] → answer (invoked) → INFORM RESULT, or FAILURE INTERNAL_ERROR; CANCEL stops it. */
export const echoResponder = setup({
  types: {} as { input: ResponderInput; context: { request: Envelope; agree: boolean }; events: InboundEvent; emitted: ExchangeEmitted },
  actors: {
    answer: fromPromise<string, { question: string }>(async ({ input }) => input.question),
  },
  guards: { agree: ({ context }) => context.agree },
}).createMachine({
  id: 'echoResponder',
  context: ({ input }) => ({ request: input.request, agree: input.agree }),
  initial: 'accepting',
  states: {
    accepting: {
      always: [
        { guard: 'agree', target: 'working', actions: emit(({ context }) => ({ type: 'send' as const, envelope: replyTo(context.request, { performative: 'AGREE', content: { status: 'accepted' } }) })) },
        { target: 'working' },
      ],
    },
    working: {
      invoke: {
        src: 'answer',
        input: ({ context }) => ({ question: questionOf(context.request) }),
        onDone: {
          target: 'done',
          actions: emit(({ context, event }) => ({
            type: 'send' as const,
            envelope: replyTo(context.request, { performative: 'INFORM', content: { type: 'RESULT', result: { answer: event.output } } }),
          })),
        },
        onError: {
          target: 'done',
          actions: emit(({ context, event }) => ({
            type: 'send' as const,
            envelope: replyTo(context.request, { performative: 'FAILURE', content: errorContent('INTERNAL_ERROR', String((event.error as Error)?.message ?? event.error)) }),
          })),
        },
      },
      on: { inbound: { guard: ({ event }) => event.envelope.performative === 'CANCEL', target: 'done' } },
    },
    done: { type: 'final' },
  },
});

export interface RequesterInput {
  self: string;
  peer: string;
  conversationId: string;
  question: string;
  agreeTimeoutMs: number;
  resultTimeoutMs: number;
}

export type RequesterOutput =
  | { ok: true; answer: string; agreed: boolean; replies: Envelope[] }
  | { ok: false; reason: string; replies: Envelope[] };

interface RequesterContext extends RequesterInput {
  request: Envelope;
  agreed: boolean;
  replies: Envelope[];
  outcome?: RequesterOutput;
}

const isPerf = (p: string) => ({ event }: { event: InboundEvent }) => event.envelope.performative === p;

/** Coordinator side: REQUEST ASK_EXPERT, then AGREE (optional) and INFORM RESULT; named-delay timeouts. */
export const echoRequester = setup({
  types: {} as { input: RequesterInput; context: RequesterContext; events: InboundEvent; emitted: ExchangeEmitted; output: RequesterOutput },
  delays: {
    AGREE_TIMEOUT: ({ context }) => context.agreeTimeoutMs,
    RESULT_TIMEOUT: ({ context }) => context.resultTimeoutMs,
  },
  actions: {
    record: assign({ replies: ({ context, event }) => [...context.replies, event.envelope] }),
  },
}).createMachine({
  id: 'echoRequester',
  context: ({ input }) => ({
    ...input,
    agreed: false,
    replies: [],
    request: makeEnvelope({
      performative: 'REQUEST', sender: input.self, receiver: input.peer, conversation_id: input.conversationId,
      content: { type: 'ASK_EXPERT', args: { question: input.question }, context_ref: { session_id: input.conversationId } },
    }),
  }),
  entry: emit(({ context }) => ({ type: 'send' as const, envelope: context.request })),
  initial: 'awaitingAgree',
  states: {
    awaitingAgree: {
      on: {
        inbound: [
          { guard: isPerf('AGREE'), target: 'awaitingResult', actions: ['record', assign({ agreed: true })] },
          { guard: isPerf('INFORM'), target: 'answered', actions: 'record' },
          { target: 'failed', actions: 'record' },
        ],
      },
      after: { AGREE_TIMEOUT: { target: 'failed', actions: assign({ outcome: ({ context }) => ({ ok: false as const, reason: 'AGREE_TIMEOUT', replies: context.replies }) }) } },
    },
    awaitingResult: {
      on: { inbound: [{ guard: isPerf('INFORM'), target: 'answered', actions: 'record' }, { target: 'failed', actions: 'record' }] },
      after: { RESULT_TIMEOUT: { target: 'failed', actions: assign({ outcome: ({ context }) => ({ ok: false as const, reason: 'RESULT_TIMEOUT', replies: context.replies }) }) } },
    },
    answered: { type: 'final' },
    failed: { type: 'final' },
  },
  output: ({ context }) => {
    if (context.outcome) return context.outcome;
    const last = context.replies[context.replies.length - 1];
    const content = last?.content as { result?: { answer?: string }; reason?: string } | undefined;
    if (last?.performative === 'INFORM') {
      return { ok: true, answer: content?.result?.answer ?? '', agreed: context.agreed, replies: context.replies };
    }
    return { ok: false, reason: `${last?.performative ?? '?'} ${content?.reason ?? ''}`.trim(), replies: context.replies };
  },
});
