// Opens one askExpertMachine per inbound REQUEST ASK_EXPERT: decides busy / out of scope before
// the actor starts (so REFUSE is immediate) and provides the side effects: running the expert
// and freeing the concurrency slot when the exchange ends, however it ends.
import { fromPromise } from 'xstate';
import type { ExchangeFactory } from '../../shared/runtime/exchange.js';
import { ask, type Expert, pickExpert } from './experts/index.js';
import { askExpertMachine, type AskInput, type ComputeInput, type ComputeOutput } from './machine.js';
import { offerMachine, type OfferInput, type OfferTerms } from './offer-machine.js';

/** Counts exchanges between AGREE and their end; over the limit the specialist REFUSEs busy. */
export class Slots {
  private used = 0;
  constructor(readonly limit: number) {}
  get inFlight(): number {
    return this.used;
  }
  get full(): boolean {
    return this.used >= this.limit;
  }
  acquire(): void {
    this.used += 1;
  }
  release(): void {
    this.used = Math.max(0, this.used - 1);
  }
}

export interface AskExchangeDeps {
  experts: readonly Expert[];
  slots: Slots;
  computeMs: number;
}

export function describeScope(experts: readonly Expert[]): string {
  return experts.map((e) => `${e.name} (e.g. ${JSON.stringify(e.examples[0] ?? e.description)})`).join(', ');
}

function provided(deps: AskExchangeDeps) {
  const byName = new Map(deps.experts.map((e) => [e.name, e]));
  return {
    actors: {
      compute: fromPromise<ComputeOutput, ComputeInput>(async ({ input }) => {
        const expert = byName.get(input.expert);
        if (!expert) throw new Error(`no expert named ${input.expert}`);
        return ask(expert, input.question);
      }),
    },
    actions: { releaseSlot: () => deps.slots.release() },
  };
}

export function askExpertExchange(deps: AskExchangeDeps): ExchangeFactory {
  const scope = describeScope(deps.experts);
  const machine = askExpertMachine.provide(provided(deps));
  return (request, from) => {
    const question = (request.content as { args: { question: string } }).args.question;
    const busy = deps.slots.full;
    const expert = busy ? undefined : pickExpert(deps.experts, question);
    if (expert) deps.slots.acquire(); // released by the machine's exit from `working`
    const input: AskInput = { request, from, self: request.receiver, busy, expert: expert?.name ?? null, scope, computeMs: deps.computeMs };
    return { machine, input };
  };
}

export interface CfpExchangeDeps extends AskExchangeDeps {
  /** Open offers (the offer book): a CFP beyond the limit is refused BUSY. */
  offers: Slots;
  /** The terms offered for a question the named expert recognised. */
  terms: (expert: string) => OfferTerms;
  lingerMs?: number;
}

/**
 * Opens one offerMachine per CFP AGORA_REQUEST: busy / out of scope decided before the actor
 * starts (REFUSE at once); otherwise the offer takes a place in the offer book (freed when it is
 * rejected, expires, or its task ends). A worker slot (`slots`, shared with ASK_EXPERT) is taken
 * only on ACCEPT: offers wait a round trip for their answer, workers only compute.
 */
export function cfpExchange(deps: CfpExchangeDeps): ExchangeFactory {
  const scope = describeScope(deps.experts);
  const base = provided(deps);
  const machine = offerMachine.provide({
    actors: base.actors,
    guards: { workerFree: () => !deps.slots.full },
    actions: { releaseSlot: () => deps.offers.release(), takeWorker: () => deps.slots.acquire(), releaseWorker: () => deps.slots.release() },
  });
  return (request, from) => {
    const question = (request.content as { params: { question: string } }).params.question;
    const busy = deps.offers.full;
    const expert = busy ? undefined : pickExpert(deps.experts, question);
    if (expert) deps.offers.acquire();
    const input: OfferInput = {
      request, from, self: request.receiver, busy, expert: expert?.name ?? null, scope, computeMs: deps.computeMs,
      terms: deps.terms(expert?.name ?? ''), lingerMs: deps.lingerMs ?? 2000,
    };
    return { machine, input };
  };
}
