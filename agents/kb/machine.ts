// The KB's exchanges (seed contract §2.4), one pure xstate machine each; the fact store is
// reached only through invoked promise actors that main.ts provides.
//   INFORM STORE_FACT  → INFORM {type: STORED, count: 1} | FAILURE KB_STORE_FAILED
//   QUERY-REF GET_FACTS → INFORM {facts} (newest first, fitted to 64 kB) | FAILURE INTERNAL_ERROR
// Who may ask (the Coordinator only, seed contract §5) is the pipeline's policy, not ours.
import { emit, fromPromise, setup } from 'xstate';
import { type Envelope, replyTo } from '../../shared/acl/envelope.js';
import { errorContent, type ErrorCode, performativeFor } from '../../shared/acl/errors.js';
import type { GetFactsContent, StoreFactContent } from '../../shared/contracts/types.gen.js';
import type { ExchangeEmitted, ExchangeInput, InboundEvent } from '../../shared/runtime/exchange.js';
import type { Fact, FactFilter, StoredFact } from '../../shared/store/facts.js';
import { factsContent, fitFacts } from './fit.js';

export type KbInput = ExchangeInput;

const notProvided = (name: string) => async (): Promise<never> => {
  throw new Error(`actor ${name} is provided by main.ts`);
};

const content = <T>(ctx: KbInput): T => ctx.request.content as unknown as T;
const message = (err: unknown) => (err instanceof Error ? err.message : String(err));
const answer = (ctx: KbInput, performative: Envelope['performative'], body: object): ExchangeEmitted =>
  ({ type: 'send', envelope: replyTo(ctx.request, { performative, content: body, sender: ctx.self }) });
const answerError = (ctx: KbInput, code: ErrorCode, detail: string) => answer(ctx, performativeFor(code), errorContent(code, detail));

export const kb = setup({
  types: {} as { input: KbInput; context: KbInput; events: InboundEvent; emitted: ExchangeEmitted },
  actors: {
    store: fromPromise<number, { fact: Fact }>(notProvided('store')),
    query: fromPromise<StoredFact[], { filter: FactFilter }>(notProvided('query')),
  },
});

export const storeFactMachine = kb.createMachine({
  id: 'kb-store-fact',
  context: ({ input }) => input,
  initial: 'storing',
  states: {
    storing: {
      invoke: {
        src: 'store',
        input: ({ context }) => ({ fact: content<StoreFactContent>(context).fact }),
        onDone: { target: 'done', actions: emit(({ context, event }) => answer(context, 'INFORM', { type: 'STORED', count: event.output })) },
        onError: {
          target: 'done',
          actions: [
            emit(({ context, event }) => answerError(context, 'KB_STORE_FAILED', `could not store the fact: ${message(event.error)}`)),
            emit(({ event }) => ({ type: 'note', decision: 'store-failed', detail: { error: message(event.error) } })),
          ],
        },
      },
    },
    done: { type: 'final' },
  },
});

export const getFactsMachine = kb.createMachine({
  id: 'kb-get-facts',
  context: ({ input }) => input,
  initial: 'querying',
  states: {
    querying: {
      invoke: {
        src: 'query',
        input: ({ context }) => ({ filter: content<GetFactsContent>(context).filter }),
        onDone: { target: 'done', actions: emit(({ context, event }) => answer(context, 'INFORM', factsContent(fitFacts(event.output)))) },
        onError: {
          target: 'done',
          actions: emit(({ context, event }) => answerError(context, 'INTERNAL_ERROR', `could not read facts: ${message(event.error)}`)),
        },
      },
    },
    done: { type: 'final' },
  },
});
