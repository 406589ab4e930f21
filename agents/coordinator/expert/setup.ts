// The expert flow's shared part (seed contract §3; the flow itself: expert/machine.ts): its
// context, the helpers its states share, and the one `setup` (guards, actions, actors, delays)
// that the state files (lookup, direct, negotiated, busy, finish) build on with createStateConfig.
import { assign, emit, enqueueActions, fromPromise, setup } from 'xstate';
import { type Envelope, replyTo, type ErrorCode, isRetryable } from '../../../shared/acl/index.js';
import type { ChildSendEvent, ExchangeEmitted, InboundEvent } from '../../../shared/runtime/index.js';
import { busyOnes as busyOf, type BusyRetrySettings, nextWait, onlyBusy } from '../busy-wait.js';
import { type Candidate, usableCandidates } from '../candidates.js';
import { agoraNote, type NegotiationCtx, type Step } from '../contract-net.js';
import { answers, cancelOf, contentType, type CoordinatorInput, type CoordinatorTimeouts, isCancelOf, presenterFailure, reasonOf } from '../envelopes.js';
import { pickOffer, shouldNegotiate } from '../negotiation.js';
import { registryLookupMachine } from '../registry-lookup.js';
import { type Attempt, type KbOutcome } from '../replies.js';

export interface Ctx extends NegotiationCtx {
  domain: string;
  t: CoordinatorTimeouts;
  /** The ranking hint sent to the DF (and the candidate cache's key). */
  hint: string;
  user?: string;
  index: number;
  /** The ASK_EXPERT to the current candidate. */
  ask?: Envelope;
  /** skill: the skill that answered (RESULT meta.skill), when the specialist said. */
  /** `parts`: how many parts of a several-part question the skill says it answered (meta.parts). */
  result?: { answer: string; confidence: number; answeredBy: string; skill?: string; parts?: number };
  store?: Envelope;
  kb?: KbOutcome;
  /** The answer goes out right after its STORE_FACT, STORED awaited afterwards (kb-health.ts). */
  kbAhead?: boolean;
  canScale: boolean;
  scaled: boolean;
  delegation?: { exclude: string; role?: string };
  busyRetry?: BusyRetrySettings;
  /** The winner of a negotiation moments ago among these same candidates (WinnerMemory), if its offer is still fresh. */
  preferred?: string;
  /** Busy waits so far, their sum, and the current one (BUSY_RETRY). */
  waits: number;
  waitedMs: number;
  waitMs: number;
  /** The Presenter was told (AGREE {by}) which specialist took the question: once per question. */
  told?: boolean;
  /** A fresh round was run after a retryable failure (once per question). */
  rerun?: boolean;
}

export interface ScaleInput {
  busy: string[];
}

export interface ScaleOutput {
  agent?: { name?: string };
  ready_ms?: number;
}

/** contracts/need.json: the hint is at most 2000 characters. */
export const hintOf = (question: string): string => question.slice(0, 2000);

export type Kind = 'AGREE' | 'REFUSE' | 'FAILURE' | 'NOT-UNDERSTOOD' | 'RESULT';

/** A reply from the current candidate of the given kind (replies to earlier candidates are ignored). */
export function fromCurrent(context: Ctx, event: InboundEvent, kind: Kind): boolean {
  if (!answers(event, context.ask)) return false;
  const env = event.envelope;
  return kind === 'RESULT' ? env.performative === 'INFORM' && contentType(env) === 'RESULT' : env.performative === kind;
}

export const current = (c: Ctx): Candidate => c.candidates[c.index] as Candidate;
/** busy: the direct flow's REFUSE (seed contract); BUSY: an AGORA_ERROR to our ACCEPT (no free worker). */
const isBusy = (reason: string): boolean => reason.toLowerCase() === 'busy';
export const busyOnes = (c: Ctx): string[] => busyOf(c.attempts);
export const waitFor = (c: Ctx): number | undefined => nextWait(c.busyRetry, c.waits, c.waitedMs, c.request.conversation_id);
/**
 * A candidate failed in a way another try fixes (errors.ts `retryable`: WORK_LOST from a restarted
 * specialist, OFFER_EXPIRED to an ACCEPT it got late) — or, from a specialist of before issue 12,
 * NOT-UNDERSTOOD BROKEN_CORRELATION to an ACCEPT for an offer it lost in a restart.
 */
const retryableFailure = (c: Ctx): boolean => c.attempts.some((a) => a.outcome === 'failed' && (isRetryable(a.reason) || a.reason === 'BROKEN_CORRELATION'));

type Why = { reason: string; detail?: string };
export type Expired = { type: 'offer.expired'; offerId: string };
export type Ev = InboundEvent | Expired | ChildSendEvent;
export const inbound = (e: Ev): Envelope | undefined => (e.type === 'inbound' ? e.envelope : undefined);

/** A reply to one of our CFPs (contract-net.ts decides what it means). */
export const answersCfp = (c: Ctx, e: Ev, performatives: readonly string[]): boolean => {
  const env = inbound(e);
  return env !== undefined && performatives.includes(env.performative) && c.cfps.some((x) => x.reply_with === env.in_reply_to);
};

/** A reply to the ACCEPT-PROPOSAL being processed. */
export const answersAccept = (c: Ctx, e: Ev, kind: 'RESULT' | 'ERROR'): boolean => {
  const env = inbound(e);
  if (env === undefined || c.accept === undefined || env.in_reply_to !== c.accept.reply_with) return false;
  const isResult = env.performative === 'INFORM' && contentType(env) === 'AGORA_RESULT';
  return kind === 'RESULT' ? isResult : ['FAILURE', 'REFUSE', 'NOT-UNDERSTOOD'].includes(env.performative);
};

/** An error answer to our ACCEPT: BUSY (no free worker) or a REFUSE is a refusal, else a failure. */
export const acceptAnswer = (env: Envelope): Omit<Attempt, 'candidate'> => {
  const why = reasonOf(env);
  return { outcome: env.performative === 'REFUSE' || why.reason === 'BUSY' ? 'refused' : 'failed', ...why };
};

export { usableCandidates };

export const expertSetup = setup({
  types: {} as { input: CoordinatorInput; context: Ctx; events: Ev; emitted: ExchangeEmitted },
  guards: {
    cancelled: ({ context, event }) => event.type === 'inbound' && isCancelOf(event, context.request),
    from: ({ context, event }, p: { kind: Kind }) => event.type === 'inbound' && fromCurrent(context, event, p.kind),
    hasNext: ({ context }) => context.index < context.candidates.length,
    // Every candidate that could take it was busy (the others said OUT_OF_SCOPE).
    everyoneBusy: ({ context }) =>
      context.canScale && !context.scaled && busyOnes(context).length > 0
      && context.attempts.every((a) => a.outcome === 'refused' && (isBusy(a.reason) || a.reason === 'OUT_OF_SCOPE')),
    // The list ran out after a retryable failure: one fresh round at once (issue 12).
    retryRound: ({ context }) => !context.rerun && retryableFailure(context),
    // Busy (or out of scope) everywhere, no scale-up left, and the wait still fits the budget.
    mayWait: ({ context }) => onlyBusy(context.attempts) && waitFor(context) !== undefined,
    delegated: ({ context }) => context.delegation !== undefined,
    kbAhead: ({ context }) => context.kbAhead === true,
    /** The KB's STORED for our STORE_FACT; kbAnswered: any answer to it (an error answer when not STORED). */
    stored: ({ context, event }) => event.type === 'inbound' && answers(event, context.store) && contentType(event.envelope) === 'STORED',
    kbAnswered: ({ context, event }) => event.type === 'inbound' && answers(event, context.store),
    cached: ({ context }) => context.candidates.length > 0,
    negotiate: ({ context }) => shouldNegotiate(context.agora, context.candidates.length),
    // auto: a fresh winning offer among the same candidates → straight to it (candidate-cache.ts WinnerMemory).
    freshWinner: ({ context }) =>
      context.agora?.mode === 'auto' && context.preferred !== undefined && context.candidates.some((c) => c.name === context.preferred),
    allAnswered: ({ context }) => context.answered.length >= context.candidates.length,
    hasOffer: ({ context }) => pickOffer(context.offers) >= 0,
    // Candidates that speak no contract-net get the direct flow, unless an offer was accepted.
    directFallback: ({ context }) => context.winner < 0 && context.notUnderstood.length > 0,
  },
  actors: {
    /** POST /scale to the supervisor; provided by main.ts. */
    scale: fromPromise<ScaleOutput, ScaleInput>(async () => {
      throw new Error('no supervisor link');
    }),
    /** LOOKUP(DF): the Coordinator's shared ask-the-DF-else-REGISTRY_TIMEOUT child (registry-lookup.ts). */
    registryLookup: registryLookupMachine,
  },
  actions: {
    /** Ends the current candidate's turn (seed contract §3 RETRY_NEXT) and notes why. */
    giveUp: enqueueActions(({ context, enqueue }, p: Why & { outcome: Attempt['outcome'] }) => {
      const candidate = current(context).name;
      enqueue.assign({ attempts: [...context.attempts, { candidate, ...p }], index: context.index + 1 });
      // The list that led here is no longer a good guess for the next question of this shape.
      // (Named action of this same setup, which its own action types cannot see yet.)
      enqueue({ type: 'forgetCandidates', params: { hint: context.hint } } as never);
      enqueue.emit({ type: 'note', decision: 'retry-next', detail: { candidate, cause: `${p.outcome} ${p.reason}${p.detail ? `: ${p.detail}` : ''}` } });
    }),
    /** FIPA SC00026 cancel to the current specialist. */
    cancelSpecialist: emit(({ context }, p: { reason: string }) => ({ type: 'send' as const, envelope: cancelOf(context.ask as Envelope, p.reason) })),
    /** RESULT (direct) or AGORA_RESULT (negotiated): Agora COMPLETED. */
    takeResult: enqueueActions(({ enqueue, event }) => {
      const env = inbound(event) as Envelope;
      const c = env.content as { result?: unknown; data?: unknown };
      const r = ((contentType(env) === 'AGORA_RESULT' ? c.data : c.result) ?? {}) as { answer?: unknown; meta?: { confidence?: unknown; skill?: unknown; parts?: unknown } };
      const conf = r.meta?.confidence;
      const skill = r.meta?.skill;
      const parts = r.meta?.parts;
      enqueue.assign({
        result: {
          answer: typeof r.answer === 'string' ? r.answer : '',
          confidence: typeof conf === 'number' && conf >= 0 && conf <= 1 ? conf : 0.9,
          answeredBy: env.sender, // verified: the pipeline checked sender = from-JID
          ...(typeof skill === 'string' ? { skill: skill.slice(0, 64) } : {}),
          ...(Array.isArray(parts) ? { parts: parts.length } : {}),
        },
      });
      enqueue.emit(agoraNote('COMPLETED', { candidate: env.sender }));
    }),
    kb: assign((_, p: { kb: KbOutcome }) => ({ kb: p.kb })),
    /** Sets `kbAhead` from KbHealth; provided by factory.ts (default: wait for STORED). */
    checkKb: assign(() => ({})),
    /** What the KB did with this STORE_FACT, for KbHealth; provided by factory.ts. */
    reportKb: (_, _p: { kb: KbOutcome }) => undefined,
    /** FIPA request AGREE to the Presenter, once: a specialist has the question (`by`), so the person can be told who works on it. */
    tellPresenter: enqueueActions(({ context, enqueue }, p: { by: string }) => {
      if (context.told || context.delegation) return;
      enqueue.assign({ told: true });
      enqueue.emit({ type: 'send', envelope: replyTo(context.request, { performative: 'AGREE', content: { status: 'accepted', by: p.by } }) });
    }),
    /** The DF's answer for this hint, for the candidate cache (candidate-cache.ts); provided by main.ts. */
    rememberCandidates: (_, _p: { hint: string; jids: unknown; lead?: unknown }) => undefined,
    /** A negotiation's winner for WinnerMemory; provided by factory.ts. */
    rememberWinner: (_, _p: { hint: string; candidates: string[]; winner: string; ttlMs: number }) => undefined,
    /** Sets `preferred` from WinnerMemory for the current candidates; provided by factory.ts (default: none). */
    preferWinner: assign(() => ({})),
    forgetCandidates: (_, _p: { hint: string }) => undefined,
    fail: enqueueActions(({ context, enqueue }, p: { code: ErrorCode; detail: string }) => {
      enqueue.emit(agoraNote('FAILED', { reason: p.code }));
      enqueue.emit({ type: 'send', envelope: presenterFailure(context.request, p.code, p.detail) });
    }),
    /** Applies a contract-net step (contract-net.ts): context patch, emits, ttl timers. */
    step: enqueueActions(({ context, event, enqueue }, p: { run: (c: Ctx, e: Ev) => Step }) => {
      const step = p.run(context, event);
      enqueue.assign(step.patch);
      for (const out of step.out) enqueue.emit(out);
      for (const t of step.timers ?? []) enqueue.raise({ type: 'offer.expired', offerId: t.offerId }, { delay: Math.max(0, t.ms), id: `ttl-${t.offerId}` });
    }),
  },
  delays: {
    AGREE_TIMEOUT: ({ context }) => context.t.agreeTimeoutMs,
    RESULT_TIMEOUT: ({ context }) => context.t.resultTimeoutMs,
    KB_TIMEOUT: ({ context }) => context.t.kbTimeoutMs,
    SCALE_TIMEOUT: ({ context }) => context.t.scaleTimeoutMs ?? 20000,
    CFP_TIMEOUT: ({ context }) => context.agora?.cfpTimeoutMs ?? context.t.agreeTimeoutMs,
    BUSY_RETRY: ({ context }) => context.waitMs,
  },
});
