// The KB's exchanges (seed contract §2.4): each request is answered once from the fact store by the
// shared answer-once machine (shared/runtime/answer-once.ts); main.ts gives it the store.
//   INFORM STORE_FACT  → INFORM {type: STORED, count: 1} | FAILURE KB_STORE_FAILED
//   QUERY-REF GET_FACTS → INFORM {facts} (newest first, fitted to 64 kB) | FAILURE INTERNAL_ERROR
// Who may ask (the Coordinator only, seed contract §5) is the pipeline's policy, not ours.
import { type AnyStateMachine, fromPromise } from 'xstate';
import { errorContent, type ErrorCode, performativeFor } from '../../shared/acl/index.js';
import type { GetFactsContent, StoreFactContent } from '../../shared/contracts/index.js';
import {
  type Answer, type AnswerOnceInput, type HandlerInput, hotPathAnswerOnceMachine,
} from '../../shared/runtime/index.js';
import type { FactStore } from '../../shared/store/index.js';
import { factsContent, fitFacts } from './fit.js';

export const KB_KINDS = ['STORE_FACT', 'GET_FACTS'] as const;
export type KbKind = (typeof KB_KINDS)[number];
export type KbInput = AnswerOnceInput & { kind: KbKind };

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));
const failure = (code: ErrorCode, detail: string, note?: Answer['note']): Answer =>
  ({ performative: performativeFor(code), content: errorContent(code, detail), ...(note ? { note } : {}) });

/** The answer to one KB request; a store error is answered, never thrown. */
export function answerKb(store: Pick<FactStore, 'add' | 'query'>, kind: KbKind, request: HandlerInput['request']): Answer {
  switch (kind) {
    case 'STORE_FACT':
      try {
        store.add((request.content as unknown as StoreFactContent).fact);
        return { performative: 'INFORM', content: { type: 'STORED', count: 1 } };
      } catch (err) {
        return failure('KB_STORE_FAILED', `could not store the fact: ${message(err)}`, { decision: 'store-failed', detail: { error: message(err) } });
      }
    case 'GET_FACTS':
      try {
        return { performative: 'INFORM', content: factsContent(fitFacts(store.query((request.content as unknown as GetFactsContent).filter))) };
      } catch (err) {
        return failure('INTERNAL_ERROR', `could not read facts: ${message(err)}`);
      }
  }
}

/** The machine every KB request runs (built once: provide() copies the machine). On the hot path: notes only for its decisions, no timer. */
export function kbMachine(store: Pick<FactStore, 'add' | 'query'>): AnyStateMachine {
  return hotPathAnswerOnceMachine.provide({
    actors: { handle: fromPromise<Answer | null, HandlerInput>(async ({ input }) => answerKb(store, input.kind as KbKind, input.request)) },
  });
}
