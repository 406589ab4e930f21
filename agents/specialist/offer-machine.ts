// One CFP exchange, Specialist side (Agora v1.0 §3-4 in FIPA SC00029 contract-net):
// CFP AGORA_REQUEST → REFUSE AGORA_ERROR (busy 503, out of scope 404), or PROPOSE AGORA_OFFER
// {cost, ttl, eta} holding a place in the offer book (the reservation). ACCEPT-PROPOSAL naming the
// offer within its ttl → a worker slot (FAILURE BUSY 503 if none is free) → the skill runs (in
// the skills' worker threads, as for ASK_EXPERT; recognised before the PROPOSE) →
// INFORM AGORA_RESULT, or FAILURE AGORA_ERROR. REJECT-PROPOSAL, CANCEL or the ttl running out free
// the reservation; an ACCEPT after the ttl gets FAILURE OFFER_EXPIRED (408) for a while (LINGER),
// then the exchange is gone. Offers are never honoured past their ttl. The offer book, the worker
// slots and the computation are provided by exchange.ts.
import { randomUUID } from 'node:crypto';
import { and, assign, emit, fromPromise, setup } from 'xstate';
import {
  agoraError, type Envelope, replyTo, type ErrorCode, performativeFor, toParleyError,
} from '../../shared/acl/index.js';
import type { ExchangeEmitted, ExchangeInput, InboundEvent } from '../../shared/runtime/index.js';
import type { ComputeInput, ComputeOutput } from './machine.js';

/** What this specialist asks for one task (--cost, --eta-ms, --ttl-ms). */
export interface OfferTerms {
  cost: number;
  etaMs: number;
  ttlMs: number;
}

export interface OfferInput extends ExchangeInput {
  busy: boolean;
  /** The skill that takes the question when already known (null = out of scope); undefined = recognise. */
  expert?: string | null;
  scope: string;
  computeMs: number;
  /** The terms offered (for the skill named in `expert`, or when `termsFor` is absent). */
  terms: OfferTerms;
  /** The terms for the skill recognition picked (--cost/--eta-ms/--ttl-ms per skill). */
  termsFor?: (expert: string) => OfferTerms;
  /** How long an expired offer still answers a late ACCEPT with OFFER_EXPIRED. */
  lingerMs: number;
}

interface OfferContext extends OfferInput {
  question: string;
  args: Record<string, unknown>;
  session_id: string;
  offerId: string;
  accept?: Envelope;
}

const isAccept = (e: InboundEvent) => e.envelope.performative === 'ACCEPT-PROPOSAL';
const isEnd = (e: InboundEvent) => e.envelope.performative === 'REJECT-PROPOSAL' || e.envelope.performative === 'CANCEL';

/**
 * An AGORA_ERROR answer to `to`: REFUSE or FAILURE by the catalogue, except that an accepted
 * proposal is only ever answered INFORM or FAILURE (FIPA SC00029), so `afterAccept` forces FAILURE.
 */
const errorTo = (c: OfferContext, to: Envelope, code: ErrorCode, message: string, afterAccept = false): ExchangeEmitted => ({
  type: 'send',
  envelope: replyTo(to, { performative: afterAccept ? 'FAILURE' : performativeFor(code), content: agoraError(code, message, c.request.reply_with) }),
});

export const offerMachine = setup({
  types: {} as { input: OfferInput; context: OfferContext; events: InboundEvent; emitted: ExchangeEmitted },
  delays: {
    OFFER_TTL: ({ context }) => context.terms.ttlMs,
    LINGER: ({ context }) => context.lingerMs,
    COMPUTE_TIMEOUT: ({ context }) => context.computeMs,
  },
  actors: {
    recognise: fromPromise<string | null, { question: string }>(async () => {
      throw new Error('recognise is provided by exchange.ts');
    }),
    compute: fromPromise<ComputeOutput, ComputeInput>(async () => {
      throw new Error('compute is provided by exchange.ts');
    }),
  },
  actions: { releaseSlot: () => undefined, takeWorker: () => undefined, releaseWorker: () => undefined },
  guards: {
    workerFree: () => true,
    busy: ({ context }) => context.busy,
    outOfScope: ({ context }) => context.expert === null,
    known: ({ context }) => typeof context.expert === 'string',
    acceptsOurs: ({ context, event }) => isAccept(event) && (event.envelope.content as { offer_id?: unknown }).offer_id === context.offerId,
  },
}).createMachine({
  id: 'offer',
  context: ({ input }) => {
    const content = input.request.content as { params?: Record<string, unknown>; context_ref?: { session_id?: string } };
    const params = content.params ?? {};
    return {
      ...input, question: typeof params.question === 'string' ? params.question : '', args: params,
      session_id: content.context_ref?.session_id ?? input.request.conversation_id, offerId: `offer-${randomUUID()}`,
    };
  },
  initial: 'deciding',
  states: {
    deciding: {
      always: [{ guard: 'busy', target: 'busy' }, { guard: 'outOfScope', target: 'outOfScope' }, { guard: 'known', target: 'reserved' }, { target: 'recognising' }],
    },
    // Which skill takes the question (the skills' recognisers); the offer book place is already held.
    recognising: {
      invoke: {
        src: 'recognise',
        input: ({ context }) => ({ question: context.question }),
        onDone: [
          { guard: ({ event }) => event.output === null, target: 'outOfScope', actions: 'releaseSlot' },
          {
            target: 'reserved',
            actions: assign(({ context, event }) => ({ expert: event.output, terms: context.termsFor?.(event.output as string) ?? context.terms })),
          },
        ],
        onError: { target: 'outOfScope', actions: 'releaseSlot' },
      },
      on: { inbound: { guard: ({ event }) => isEnd(event), target: 'ended', actions: 'releaseSlot' } },
    },
    busy: { type: 'final', entry: emit(({ context }) => errorTo(context, context.request, 'BUSY', `${context.self} is at its concurrency limit; try another candidate`)) },
    outOfScope: {
      type: 'final',
      entry: emit(({ context }) => errorTo(context, context.request, 'OUT_OF_SCOPE', `no skill of ${context.self} recognises the question; it answers ${context.scope}`)),
    },
    // Holds the offer's place in the book from the PROPOSE until the task ends or the offer is off.
    reserved: {
      exit: 'releaseSlot',
      initial: 'offered',
      states: {
        offered: {
          entry: emit(({ context }) => ({
            type: 'send' as const,
            envelope: replyTo(context.request, {
              performative: 'PROPOSE',
              content: { type: 'AGORA_OFFER', request_id: context.request.reply_with, offer_id: context.offerId, cost: context.terms.cost, ttl: context.terms.ttlMs, eta: context.terms.etaMs },
            }),
          })),
          on: {
            inbound: [
              {
                guard: and(['acceptsOurs', 'workerFree']),
                target: 'working',
                actions: [assign({ accept: ({ event }) => event.envelope }), 'takeWorker'],
              },
              {
                guard: 'acceptsOurs',
                target: '#offer.ended',
                actions: emit(({ context, event }) => errorTo(context, event.envelope, 'BUSY', `${context.self} has no free worker right now; try the next offer`, true)),
              },
              {
                guard: ({ event }) => isAccept(event),
                target: '#offer.ended',
                actions: emit(({ context, event }) => errorTo(context, event.envelope, 'INVALID_ARGS', `offer_id ${String(event.envelope.content.offer_id)} is not ${context.offerId}`)),
              },
              { guard: ({ event }) => isEnd(event), target: '#offer.ended' },
            ],
          },
          after: { OFFER_TTL: '#offer.expired' },
        },
        working: {
          exit: 'releaseWorker',
          invoke: {
            src: 'compute',
            input: ({ context }) => ({ expert: context.expert ?? '', question: context.question, args: context.args, session_id: context.session_id, self: context.self }),
            onDone: {
              target: '#offer.ended',
              actions: emit(({ context, event }) => ({
                type: 'send' as const,
                envelope: replyTo(context.accept as Envelope, {
                  performative: 'INFORM',
                  content: { type: 'AGORA_RESULT', request_id: context.request.reply_with, status: 'success', data: { answer: event.output.answer, meta: event.output.meta } },
                }),
              })),
            },
            onError: {
              target: '#offer.ended',
              actions: emit(({ context, event }) => {
                const e = toParleyError(event.error);
                return errorTo(context, context.accept as Envelope, performativeFor(e.code) === 'FAILURE' ? e.code : 'INTERNAL_ERROR', e.detail);
              }),
            },
          },
          after: {
            COMPUTE_TIMEOUT: {
              target: '#offer.ended',
              actions: emit(({ context }) => errorTo(context, context.accept as Envelope, 'TIMEOUT', `the ${context.expert} skill took longer than ${context.computeMs} ms`)),
            },
          },
          on: { inbound: { guard: ({ event }) => event.envelope.performative === 'CANCEL', target: '#offer.ended' } },
        },
      },
    },
    // The ttl ran out: the slot is free; a late ACCEPT learns why (Agora 408).
    expired: {
      entry: emit(({ context }) => ({ type: 'note' as const, decision: 'offer-expired', detail: { offer_id: context.offerId, ttl: context.terms.ttlMs } })),
      on: {
        inbound: [
          {
            guard: ({ event }) => isAccept(event),
            target: 'ended',
            actions: emit(({ context, event }) => errorTo(context, event.envelope, 'OFFER_EXPIRED', `offer ${context.offerId} expired after its ttl of ${context.terms.ttlMs} ms`)),
          },
          { guard: ({ event }) => isEnd(event), target: 'ended' },
        ],
      },
      after: { LINGER: 'ended' },
    },
    ended: { type: 'final' },
  },
});
