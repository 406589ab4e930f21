// One actor per question a person asks (seed contract §2.1 → §2.5): REQUEST USER_MSG to the
// Coordinator, "composing" while it works, then the answer, a FAILURE in words, or — after
// PRESENTER_TIMEOUT — an apology and a CANCEL (FIPA SC00026 cancel meta-protocol).
// Pure: the chat line goes out as an emitted `chat` event that main.ts hands to the transport.
import { assign, emit, setup } from 'xstate';
import { type Envelope, makeEnvelope } from '../../shared/acl/index.js';
import type { ExchangeEmitted, InboundEvent } from '../../shared/runtime/index.js';
import { type Choice, choicesOf } from './choices.js';
import { icsOf, renderAnswer, TEXT } from './render.js';

export const COORDINATOR = 'Coordinator';

/** A line to a person (XEP-0085 chat state, XEP-0201 thread). */
export interface ChatEmitted {
  type: 'chat';
  to: string;
  text?: string;
  thread: string;
  chatState: 'composing' | 'active';
  /** An .ics invitation (rich.ics) sent right after `text` as its own message. */
  ics?: string;
  /** A choice the person is asked for (rich.choices): a form in the same message (choices.ts). */
  choices?: Choice[];
}

export type PresenterEmitted = ExchangeEmitted | ChatEmitted;

export interface QuestionInput {
  /** The USER_MSG this actor sends (built with userMsg(); its reply_with keys the actor). */
  request: Envelope;
  /** Full JID the question came from: answers go back there, and only there. */
  replyTo: string;
  /** <thread> the person's client sees (its own, or our conversation_id). */
  thread: string;
  timeoutMs: number;
  /** After this long without an answer the person is told the work is under way (issue 16). */
  progressMs?: number;
  /** The documented RESULT timeout (PARLEY_RESULT_TIMEOUT_MS): how long a specialist may take, said in that line. */
  resultTimeoutMs?: number;
}

export type QuestionEvent = InboundEvent | { type: 'START' };

export interface UserMsgInit {
  text: string;
  /** Bare JID of the person (authenticated by ejabberd, not claimed). */
  user: string;
  conversationId: string;
  self?: string;
}

/** REQUEST {type: USER_MSG, text, attachments: [], user} (seed contract §2.1). */
export function userMsg(init: UserMsgInit): Envelope {
  return makeEnvelope({
    performative: 'REQUEST',
    sender: init.self ?? 'Presenter',
    receiver: COORDINATOR,
    conversation_id: init.conversationId,
    content: { type: 'USER_MSG', text: init.text, attachments: [], user: init.user },
  });
}

/** The actor key the router uses: conversation_id/reply_with of the USER_MSG. */
export const questionKey = (request: Envelope) => `${request.conversation_id}/${request.reply_with}`;

export const questionMachine = setup({
  types: {} as {
    input: QuestionInput;
    /** by: the specialist the Coordinator said has the question (AGREE {by}). */
    context: QuestionInput & { answer?: string; by?: string };
    events: QuestionEvent;
    emitted: PresenterEmitted;
  },
  delays: {
    PRESENTER_TIMEOUT: ({ context }) => context.timeoutMs,
    PRESENTER_PROGRESS: ({ context }) => context.progressMs ?? context.timeoutMs,
  },
  guards: {
    wantsProgress: ({ context }) => context.progressMs !== undefined && context.progressMs < context.timeoutMs,
    namesWorker: ({ event }) => event.type === 'inbound' && event.envelope.performative === 'AGREE' && typeof event.envelope.content.by === 'string',
    isAnswer: ({ event }) => event.type === 'inbound' && renderAnswer(event.envelope) !== undefined,
  },
  actions: {
    sendRequest: emit(({ context }) => ({ type: 'send' as const, envelope: context.request })),
    composing: emit(({ context }) => ({ type: 'chat' as const, to: context.replyTo, thread: context.thread, chatState: 'composing' as const })),
    answer: emit(({ context, event }) => ({
      type: 'chat' as const,
      to: context.replyTo,
      thread: context.thread,
      chatState: 'active' as const,
      text: event.type === 'inbound' ? (renderAnswer(event.envelope) as string) : TEXT.timeout,
      ...(event.type === 'inbound' && event.envelope.performative === 'INFORM' && icsOf(event.envelope.content.rich)
        ? { ics: icsOf(event.envelope.content.rich) as string }
        : {}),
      ...(event.type === 'inbound' && event.envelope.performative === 'INFORM' && choicesOf(event.envelope.content.rich)
        ? { choices: choicesOf(event.envelope.content.rich) as Choice[] }
        : {}),
    })),
    noteAnswer: emit(({ event }) => ({
      type: 'note' as const,
      decision: event.type === 'inbound' ? `answered: ${event.envelope.performative}` : 'answered',
      detail: event.type === 'inbound' ? { reason: (event.envelope.content as { reason?: unknown }).reason } : {},
    })),
    noteIgnored: emit(({ event }) => ({
      type: 'note' as const,
      decision: 'ignored: not an answer',
      detail: event.type === 'inbound' ? { performative: event.envelope.performative } : {},
    })),
    timedOut: emit(({ context }) => ({
      type: 'chat' as const, to: context.replyTo, thread: context.thread, chatState: 'active' as const, text: TEXT.timeout,
    })),
    cancel: emit(({ context }) => ({
      type: 'send' as const,
      envelope: makeEnvelope({
        performative: 'CANCEL',
        sender: context.request.sender,
        receiver: context.request.receiver,
        conversation_id: context.request.conversation_id,
        protocol: context.request.protocol,
        in_reply_to: context.request.reply_with,
        content: { type: 'CANCEL', reason: `no answer within ${context.timeoutMs} ms` },
      }),
    })),
    progress: emit(({ context }) => ({
      type: 'chat' as const, to: context.replyTo, thread: context.thread, chatState: 'composing' as const, text: TEXT.working(context.resultTimeoutMs, context.by),
    })),
    noteTimeout: emit(({ context }) => ({ type: 'note' as const, decision: 'timeout: CANCEL sent', detail: { timeoutMs: context.timeoutMs } })),
  },
}).createMachine({
  id: 'presenter-question',
  context: ({ input }) => ({ ...input }),
  // Waits for START so main.ts can subscribe to `chat` before the first line is emitted.
  initial: 'ready',
  states: {
    ready: { on: { START: 'waiting' } },
    waiting: {
      entry: ['sendRequest', 'composing'],
      on: {
        inbound: [
          { guard: 'isAnswer', target: 'done', actions: ['answer', 'noteAnswer'] },
          // The Coordinator's AGREE names the specialist working on it (for the progress line).
          {
            guard: 'namesWorker',
            actions: [
              assign(({ event }) => ({ by: event.type === 'inbound' ? String(event.envelope.content.by).slice(0, 100) : undefined })),
              emit(({ event }) => ({ type: 'note' as const, decision: 'taken', detail: { by: event.type === 'inbound' ? event.envelope.content.by : undefined } })),
            ],
          },
          // e.g. an AGREE (FIPA request allows one before the result): keep waiting.
          { actions: 'noteIgnored' },
        ],
      },
      after: {
        PRESENTER_PROGRESS: { guard: 'wantsProgress', actions: ['progress', emit({ type: 'note' as const, decision: 'progress-told' })] },
        PRESENTER_TIMEOUT: { target: 'done', actions: ['timedOut', 'cancel', 'noteTimeout'] },
      },
    },
    done: { type: 'final' },
  },
});
