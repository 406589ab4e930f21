// Opens one askExpertMachine per inbound REQUEST ASK_EXPERT: decides busy before the actor
// starts (so REFUSE busy is immediate) and provides the side effects: recognising the question
// and running the skill (in the skills' worker threads, shared/skills/host.ts), and freeing the
// concurrency slot when the exchange ends, however it ends.
import { type AnyActorRef, fromPromise } from 'xstate';
import { agoraError, type Envelope, replyTo } from '../../shared/acl/index.js';
import type { ExchangeFactory } from '../../shared/runtime/index.js';
import { envNumber } from '../../shared/config/index.js';
import { askExpertMachine, type AskInput, type ComputeInput, type ComputeOutput, type RecogniseInput } from './machine.js';
import { offerMachine, type OfferInput, type OfferTerms } from './offer-machine.js';

/** Counts exchanges between acceptance and their end; over the limit the specialist REFUSEs busy. */
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

/** What answers questions: the SkillHost in production, in-process experts in unit tests. */
export interface SkillRunner {
  /** "arithmetic (e.g. "what is 17 * 23?"), …" for the OUT_OF_SCOPE detail. */
  scope(): string;
  /** With `job`, a skill that claims the question may start it at once (taken by run with `key`). */
  recognise(question: string, job?: RecogniseInput['job']): Promise<string | null>;
  run(skill: string, args: Record<string, unknown>, session_id: string, signal?: AbortSignal, key?: string): Promise<ComputeOutput>;
}

export interface AskExchangeDeps {
  skills: SkillRunner;
  slots: Slots;
  computeMs: number;
  /** How long an AGREE waits for the answer (machine.ts; default PARLEY_SPECIALIST_AGREE_AFTER_MS). */
  agreeAfterMs?: number;
  /** Called when an exchange takes or frees a slot (idle tracking for scale-down). */
  onActivity?: () => void;
}

/** The deps of the agent an exchange belongs to, by its name (the exchange's context.self). */
type Resolve<D> = (self: string | undefined) => D;

function provided(depsOf: Resolve<AskExchangeDeps>) {
  return {
    actors: {
      recognise: fromPromise<string | null, RecogniseInput>(({ input }) => depsOf(undefined).skills.recognise(input.question, input.job)),
      // xstate aborts `signal` when the actor stops (CANCEL, COMPUTE_TIMEOUT): the worker is terminated.
      compute: fromPromise<ComputeOutput, ComputeInput>(({ input, signal }) => depsOf(input.self).skills.run(input.expert, input.args, input.session_id, signal, input.key)),
    },
    actions: {
      releaseSlot: ({ context }: { context: { self: string } }) => {
        const deps = depsOf(context.self);
        deps.slots.release();
        deps.onActivity?.();
      },
    },
  };
}

let agreeAfter: number | undefined;
const agreeAfterMs = (): number => (agreeAfter ??= envNumber('PARLEY_SPECIALIST_AGREE_AFTER_MS'));

export function askExpertExchange(deps: AskExchangeDeps): ExchangeFactory {
  return askFactory(askExpertMachine.provide(provided(() => deps)), () => deps);
}

function askFactory(machine: ReturnType<typeof askExpertMachine.provide>, depsOf: Resolve<AskExchangeDeps>): ExchangeFactory {
  return (request, from) => {
    const deps = depsOf(request.receiver);
    const busy = deps.slots.full;
    if (!busy) {
      deps.slots.acquire(); // released by the machine's exit from `serving`
      deps.onActivity?.();
    }
    const input: AskInput = { request, from, self: request.receiver, busy, scope: deps.skills.scope(), computeMs: deps.computeMs, agreeAfterMs: deps.agreeAfterMs ?? agreeAfterMs() };
    return { machine, input };
  };
}

export interface CfpExchangeDeps extends AskExchangeDeps {
  /** Open offers (the offer book): a CFP beyond the limit is refused BUSY. */
  offers: Slots;
  /** The terms offered for a question the named skill recognised. */
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
  return cfpFactory(provideOffer(() => deps), () => deps);
}

function provideOffer(depsOf: Resolve<CfpExchangeDeps>) {
  const base = provided(depsOf);
  return offerMachine.provide({
    actors: base.actors,
    guards: { workerFree: ({ context }) => !depsOf(context.self).slots.full },
    actions: {
      releaseSlot: ({ context }) => depsOf(context.self).offers.release(),
      takeWorker: ({ context }) => {
        const deps = depsOf(context.self);
        deps.slots.acquire();
        deps.onActivity?.();
      },
      releaseWorker: base.actions.releaseSlot,
    },
  });
}

function cfpFactory(machine: ReturnType<typeof provideOffer>, depsOf: Resolve<CfpExchangeDeps>): ExchangeFactory {
  return (request, from) => {
    const deps = depsOf(request.receiver);
    const busy = deps.offers.full;
    if (!busy) deps.offers.acquire(); // released when the offer is off (or recognition finds no skill)
    const input: OfferInput = {
      request, from, self: request.receiver, busy, scope: deps.skills.scope(), computeMs: deps.computeMs,
      terms: deps.terms(''), termsFor: deps.terms, lingerMs: deps.lingerMs ?? 2000,
    };
    return { machine, input };
  };
}

/**
 * The exchanges of a host's many virtual agents (agents/specialist/host.ts): each machine provided
 * once for the host, not once per agent (a provided machine is a whole new state tree: ≈ 37 kB and
 * 0.8 ms per agent for the two), its implementations finding the agent's own slots and runner by
 * the exchange's `self` (the receiving agent's name). `depsOf(undefined)` must give the shared
 * parts (recognise, scope), which are the same for every agent of the host.
 */
export function hostedExchanges(depsOf: (self: string | undefined) => CfpExchangeDeps): { ask: ExchangeFactory; cfp: ExchangeFactory } {
  return { ask: askFactory(askExpertMachine.provide(provided(depsOf)), depsOf), cfp: cfpFactory(provideOffer(depsOf), depsOf) };
}

/**
 * An ACCEPT-PROPOSAL naming an offer this process does not hold (it restarted without it, or the
 * offer is long over): FAILURE WORK_LOST, retryable, so the Coordinator takes its next offer at
 * once instead of reading a NOT-UNDERSTOOD or waiting for its RESULT timeout (issue 12).
 */
export function lostOffer(accept: Envelope): Envelope | undefined {
  if (accept.performative !== 'ACCEPT-PROPOSAL') return undefined;
  const offerId = typeof accept.content.offer_id === 'string' ? accept.content.offer_id : '?';
  return replyTo(accept, {
    performative: 'FAILURE',
    content: agoraError('WORK_LOST', `${accept.receiver} does not hold offer ${offerId} (restarted, or the offer is over); nothing runs: take the next offer`),
  });
}

/**
 * After a restart the factories re-ran for each restored exchange and took what a new one takes:
 * a slot (ASK_EXPERT) or an offer-book place (CFP). Fix the rest from the restored state: a
 * working offer also holds a worker; an expired offer no longer holds its place.
 */
export function restoredHolds(deps: { slots: Slots; offers: Slots }): (actor: AnyActorRef, rec: { machineId: string }) => void {
  return (actor, rec) => {
    if (rec.machineId !== offerMachine.id) return;
    const snap = actor.getSnapshot() as { matches(v: unknown): boolean };
    if (snap.matches({ reserved: 'working' })) deps.slots.acquire();
    else if (snap.matches('expired')) deps.offers.release();
  };
}
