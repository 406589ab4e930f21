// The Coordinator's expert flow, one actor per USER_MSG (seed contract §3):
// RECEIVED → [candidate cache hit, or] LOOKUP(DF) → DISPATCHED(REQUEST) → IN_PROGRESS(AGREE) →
// DONE(RESULT → STORE_FACT → PRESENTER_REPLY); REFUSE / timeout / FAILURE → RETRY_NEXT; list
// exhausted → FAILED (§4 reason).
// With ≥ 2 candidates the negotiated flow (Agora §3, contract-net; contract-net.ts) replaces
// DISPATCHED: CFP → offers → ACCEPT the best → RESULT, falling back to the next offer.
// Agora states (PENDING, NEGOTIATING, PROCESSING, COMPLETED, FAILED) are `agora:*` notes.
// Every candidate REFUSEd busy (direct) or answered the ACCEPT with BUSY (negotiated) →
// SCALING: the supervisor starts one more specialist of their role (an operator-side action
// through its local control socket, provided by main.ts; a note in the trace, not an envelope),
// then LOOKUP again, once. Still busy (or no scale-up possible) → BUSY_WAIT: a named delay with
// back-off and jitter, then the same candidates again, within a budget (busy-wait.ts): a busy
// system is slower, not failing. A specialist's DELEGATE_TASK runs the same flow as a sub-request in
// the person's session: other candidates only, RESULT back to it.
// A retryable FAILURE (errors.ts: WORK_LOST from a restarted specialist) moves on at once like any
// FAILURE; if it leaves no candidate or offer, one fresh round runs at once (issue 12), so a
// specialist's restart never costs the RESULT timeout.
// Pure: envelopes leave as `send` emits, timeouts are named delays, decisions are `note`s.
import { assign, emit, enqueueActions, fromPromise, setup } from 'xstate';
import { type Envelope, replyTo } from '../../shared/acl/envelope.js';
import { type ErrorCode, isRetryable } from '../../shared/acl/errors.js';
import type { ExchangeEmitted, InboundEvent } from '../../shared/runtime/exchange.js';
import { busyOnes as busyOf, type BusyRetrySettings, nextWait, onlyBusy } from './busy-wait.js';
import { type Candidate, usableCandidates } from './candidates.js';
import {
  agoraNote, award, closeOpen, type NegotiationCtx, onDecline, onDeadline, onExpired, onOffer, openCfp, type Step, winnerFailed,
} from './contract-net.js';
import {
  answerFact, answers, cancelOf, contentType, type CoordinatorInput, type CoordinatorTimeouts, isCancelOf, outbound,
  presenterFailure, presenterReply, reasonOf, userMsg,
} from './envelopes.js';
import { pickOffer, shouldNegotiate } from './negotiation.js';
import { answerText, type Attempt, DIRECTORY_UNAVAILABLE, exhausted, type KbOutcome } from './replies.js';

interface Ctx extends NegotiationCtx {
  domain: string;
  t: CoordinatorTimeouts;
  /** The ranking hint sent to the DF (and the candidate cache's key). */
  hint: string;
  user?: string;
  lookup?: Envelope;
  index: number;
  /** The ASK_EXPERT to the current candidate. */
  ask?: Envelope;
  result?: { answer: string; confidence: number; answeredBy: string };
  store?: Envelope;
  kb?: KbOutcome;
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

type Kind = 'AGREE' | 'REFUSE' | 'FAILURE' | 'NOT-UNDERSTOOD' | 'RESULT';

/** A reply from the current candidate of the given kind (replies to earlier candidates are ignored). */
function fromCurrent(context: Ctx, event: InboundEvent, kind: Kind): boolean {
  if (!answers(event, context.ask)) return false;
  const env = event.envelope;
  return kind === 'RESULT' ? env.performative === 'INFORM' && contentType(env) === 'RESULT' : env.performative === kind;
}

const current = (c: Ctx): Candidate => c.candidates[c.index] as Candidate;
/** busy: the direct flow's REFUSE (seed contract); BUSY: an AGORA_ERROR to our ACCEPT (no free worker). */
const isBusy = (reason: string): boolean => reason.toLowerCase() === 'busy';
const busyOnes = (c: Ctx): string[] => busyOf(c.attempts);
const waitFor = (c: Ctx): number | undefined => nextWait(c.busyRetry, c.waits, c.waitedMs, c.request.conversation_id);
/**
 * A candidate failed in a way another try fixes (errors.ts `retryable`: WORK_LOST from a restarted
 * specialist, OFFER_EXPIRED to an ACCEPT it got late) — or, from a specialist of before issue 12,
 * NOT-UNDERSTOOD BROKEN_CORRELATION to an ACCEPT for an offer it lost in a restart.
 */
const retryableFailure = (c: Ctx): boolean => c.attempts.some((a) => a.outcome === 'failed' && (isRetryable(a.reason) || a.reason === 'BROKEN_CORRELATION'));

type Why = { reason: string; detail?: string };
type Expired = { type: 'offer.expired'; offerId: string };
type Ev = InboundEvent | Expired;
const inbound = (e: Ev): Envelope | undefined => (e.type === 'inbound' ? e.envelope : undefined);

/** A reply to one of our CFPs (contract-net.ts decides what it means). */
const answersCfp = (c: Ctx, e: Ev, performatives: readonly string[]): boolean => {
  const env = inbound(e);
  return env !== undefined && performatives.includes(env.performative) && c.cfps.some((x) => x.reply_with === env.in_reply_to);
};

/** A reply to the ACCEPT-PROPOSAL being processed. */
const answersAccept = (c: Ctx, e: Ev, kind: 'RESULT' | 'ERROR'): boolean => {
  const env = inbound(e);
  if (env === undefined || c.accept === undefined || env.in_reply_to !== c.accept.reply_with) return false;
  const isResult = env.performative === 'INFORM' && contentType(env) === 'AGORA_RESULT';
  return kind === 'RESULT' ? isResult : ['FAILURE', 'REFUSE', 'NOT-UNDERSTOOD'].includes(env.performative);
};

/** An error answer to our ACCEPT: BUSY (no free worker) or a REFUSE is a refusal, else a failure. */
const acceptAnswer = (env: Envelope): Omit<Attempt, 'candidate'> => {
  const why = reasonOf(env);
  return { outcome: env.performative === 'REFUSE' || why.reason === 'BUSY' ? 'refused' : 'failed', ...why };
};

export { usableCandidates };

export const expertMachine = setup({
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
      const r = ((contentType(env) === 'AGORA_RESULT' ? c.data : c.result) ?? {}) as { answer?: unknown; meta?: { confidence?: unknown } };
      const conf = r.meta?.confidence;
      enqueue.assign({
        result: {
          answer: typeof r.answer === 'string' ? r.answer : '',
          confidence: typeof conf === 'number' && conf >= 0 && conf <= 1 ? conf : 0.9,
          answeredBy: env.sender, // verified: the pipeline checked sender = from-JID
        },
      });
      enqueue.emit(agoraNote('COMPLETED', { candidate: env.sender }));
    }),
    kb: assign((_, p: { kb: KbOutcome }) => ({ kb: p.kb })),
    /** FIPA request AGREE to the Presenter, once: a specialist has the question (`by`), so the person can be told who works on it. */
    tellPresenter: enqueueActions(({ context, enqueue }, p: { by: string }) => {
      if (context.told || context.delegation) return;
      enqueue.assign({ told: true });
      enqueue.emit({ type: 'send', envelope: replyTo(context.request, { performative: 'AGREE', content: { status: 'accepted', by: p.by } }) });
    }),
    /** The DF's answer for this hint, for the candidate cache (candidate-cache.ts); provided by main.ts. */
    rememberCandidates: (_, _p: { hint: string; jids: unknown }) => undefined,
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
    REGISTRY_TIMEOUT: ({ context }) => context.t.registryTimeoutMs,
    AGREE_TIMEOUT: ({ context }) => context.t.agreeTimeoutMs,
    RESULT_TIMEOUT: ({ context }) => context.t.resultTimeoutMs,
    KB_TIMEOUT: ({ context }) => context.t.kbTimeoutMs,
    SCALE_TIMEOUT: ({ context }) => context.t.scaleTimeoutMs ?? 20000,
    CFP_TIMEOUT: ({ context }) => context.agora?.cfpTimeoutMs ?? context.t.agreeTimeoutMs,
    BUSY_RETRY: ({ context }) => context.waitMs,
  },
}).createMachine({
  id: 'coordinator-expert',
  context: ({ input }) => {
    const { text, user } = input.delegation ? { text: String(input.request.content.task ?? ''), user: undefined } : userMsg(input.request);
    return {
      request: input.request, self: input.self, domain: input.domain, t: input.timeouts, resultTimeoutMs: input.timeouts.resultTimeoutMs,
      question: text, hint: hintOf(text), ...(user ? { user } : {}), ...(input.agora ? { agora: input.agora } : {}),
      candidates: usableCandidates(input.cached ?? [], input.domain), index: 0, attempts: [],
      ...(input.zone ? { zone: input.zone } : {}), canScale: input.canScale ?? false, scaled: false, ...(input.delegation ? { delegation: input.delegation } : {}),
      cfps: [], answered: [], offers: [], winner: -1, notUnderstood: [],
      ...(input.busyRetry ? { busyRetry: input.busyRetry } : {}), waits: 0, waitedMs: 0, waitMs: 0,
    };
  },
  // Contract-net replies in any state: late offers stay fallbacks, ttl timers expire offers.
  on: {
    inbound: [
      { guard: ({ context, event }) => answersCfp(context, event, ['PROPOSE']), actions: { type: 'step', params: { run: (c, e) => onOffer(c, inbound(e) as Envelope) } } },
      {
        guard: ({ context, event }) => answersCfp(context, event, ['REFUSE', 'FAILURE', 'NOT-UNDERSTOOD']),
        actions: { type: 'step', params: { run: (c, e) => onDecline(c, inbound(e) as Envelope) } },
      },
    ],
    'offer.expired': { actions: { type: 'step', params: { run: (c, e) => onExpired(c, (e as Expired).offerId) } } },
  },
  initial: 'received',
  states: {
    // RECEIVED: a fresh DF answer for a question of this shape (the candidate cache) skips LOOKUP.
    received: {
      always: [
        {
          guard: 'cached',
          target: 'route',
          actions: emit(({ context }) => ({ type: 'note' as const, decision: 'candidates', detail: { candidates: context.candidates.map((c) => c.name), cached: true } })),
        },
        { target: 'lookup' },
      ],
    },
    // LOOKUP(DF): QUERY-REF need, with the text as a ranking hint (contracts/need.json).
    lookup: {
      entry: [
        assign(({ context }) => ({
          lookup: outbound(context.request, context.self, 'QUERY-REF', 'Registry', {
            need: 'ASK_EXPERT', hint: context.hint, ...(context.delegation?.role ? { role: context.delegation.role } : {}),
          }),
        })),
        emit(({ context }) => ({ type: 'send' as const, envelope: context.lookup as Envelope })),
      ],
      on: {
        inbound: [
          { guard: 'cancelled', target: 'cancelled' },
          {
            guard: ({ context, event }) => event.type === 'inbound' && answers(event, context.lookup) && Array.isArray(event.envelope.content.candidates),
            target: 'route',
            actions: [
              assign(({ context, event }) => ({
                candidates: usableCandidates(event.envelope.content.candidates, context.domain).filter((c) => c.name !== context.delegation?.exclude),
              })),
              { type: 'rememberCandidates', params: ({ context, event }) => ({ hint: context.hint, jids: event.envelope.content.candidates }) },
              emit(({ context }) => ({ type: 'note' as const, decision: 'candidates', detail: { candidates: context.candidates.map((c) => c.name) } })),
            ],
          },
          // The DF answered with an error: it cannot give us anyone.
          {
            guard: ({ context, event }) => event.type === 'inbound' && answers(event, context.lookup),
            target: 'failed',
            actions: [
              emit(({ event }) => ({ type: 'note' as const, decision: 'directory-error', detail: { performative: (inbound(event) as Envelope).performative, ...reasonOf(inbound(event) as Envelope) } })),
              { type: 'fail', params: { code: 'NO_CANDIDATE' as const, detail: DIRECTORY_UNAVAILABLE } },
            ],
          },
        ],
      },
      after: {
        REGISTRY_TIMEOUT: {
          target: 'failed',
          actions: [emit({ type: 'note', decision: 'directory-unavailable' }), { type: 'fail', params: { code: 'NO_CANDIDATE', detail: DIRECTORY_UNAVAILABLE } }],
        },
      },
    },
    // The direct flow (one candidate, or PARLEY_NEGOTIATE=never) or the negotiated one.
    // A fresh winning offer (auto) skips the CFP round: the winner first, the rest as fallbacks.
    route: {
      entry: 'preferWinner',
      always: [
        {
          guard: 'freshWinner',
          target: 'retryNext',
          actions: [
            assign(({ context }) => ({
              candidates: [...context.candidates].sort((a, b) => Number(b.name === context.preferred) - Number(a.name === context.preferred)), index: 0,
            })),
            emit(({ context }) => ({ type: 'note' as const, decision: 'fresh-offer', detail: { candidate: context.preferred } })),
          ],
        },
        { guard: 'negotiate', target: 'cfp' },
        { target: 'retryNext' },
      ],
    },
    // Agora PENDING/NEGOTIATING: a CFP to every candidate; offers are collected (root `on`)
    // until every candidate answered or the CFP deadline passed.
    cfp: {
      entry: { type: 'step', params: { run: (c) => openCfp(c) } },
      always: { guard: 'allAnswered', target: 'choosing' },
      on: {
        inbound: { guard: 'cancelled', target: 'cancelled', actions: { type: 'step', params: { run: (c) => closeOpen(c, 'CANCELLED') } } },
      },
      after: { CFP_TIMEOUT: { target: 'choosing', actions: { type: 'step', params: { run: (c) => onDeadline(c) } } } },
    },
    // The documented pick (negotiation.ts pickOffer); no open offer left → the direct flow for
    // candidates without contract-net, else the §4 verdict (402 when offers were only too dear).
    choosing: {
      always: [
        { guard: 'hasOffer', target: 'processing', actions: { type: 'step', params: { run: (c) => award(c) } } },
        {
          guard: 'directFallback',
          target: 'retryNext',
          actions: [
            assign(({ context }) => ({ candidates: context.notUnderstood, index: 0 })),
            emit(({ context }) => ({ type: 'note' as const, decision: 'direct-fallback', detail: { candidates: context.notUnderstood.map((c) => c.name) } })),
          ],
        },
        {
          guard: 'retryRound',
          target: 'route',
          actions: [
            emit(({ context }) => ({ type: 'note' as const, decision: 'retry-round', detail: { attempts: context.attempts } })),
            assign({ rerun: true, index: 0, attempts: [], cfps: [], answered: [], offers: [], winner: -1, notUnderstood: [], accept: undefined }),
          ],
        },
        { guard: 'everyoneBusy', target: 'scaling' },
        { guard: 'mayWait', target: 'busyWait' },
        {
          target: 'failed',
          actions: [
            emit(({ context }) => ({ type: 'note' as const, decision: 'exhausted', detail: { attempts: context.attempts } })),
            { type: 'forgetCandidates', params: ({ context }) => ({ hint: context.hint }) },
            { type: 'fail', params: ({ context }) => exhausted(context.attempts, context.t) },
          ],
        },
      ],
    },
    // Agora PROCESSING: accepted; the AGORA_RESULT must follow within resultTimeoutMs.
    processing: {
      entry: { type: 'tellPresenter', params: ({ context }) => ({ by: context.offers[context.winner]?.candidate ?? 'a specialist' }) },
      on: {
        inbound: [
          {
            guard: 'cancelled',
            target: 'cancelled',
            actions: [
              { type: 'step', params: { run: (c) => winnerFailed(c, { outcome: 'failed', reason: 'CANCELLED' }, 'the person withdrew the question') } },
              { type: 'step', params: { run: (c) => closeOpen(c, 'CANCELLED') } },
            ],
          },
          {
            guard: ({ context, event }) => answersAccept(context, event, 'RESULT'),
            target: 'answered',
            actions: [
              'takeResult',
              {
                type: 'rememberWinner',
                params: ({ context }) => {
                  const o = context.offers[context.winner];
                  return { hint: context.hint, candidates: context.candidates.map((c) => c.name), winner: o?.candidate ?? '', ttlMs: (o?.ttl ?? 0) - (context.agora?.acceptMarginMs ?? 0) };
                },
              },
              { type: 'step', params: { run: (c) => closeOpen(c, 'NOT_SELECTED') } },
            ],
          },
          {
            guard: ({ context, event }) => answersAccept(context, event, 'ERROR'),
            target: 'choosing',
            actions: [
              { type: 'step', params: { run: (c, e) => winnerFailed(c, acceptAnswer(inbound(e) as Envelope)) } },
              { type: 'forgetCandidates', params: ({ context }) => ({ hint: context.hint }) },
            ],
          },
        ],
      },
      after: {
        RESULT_TIMEOUT: {
          target: 'choosing',
          actions: [
            { type: 'step', params: { run: (c) => winnerFailed(c, { outcome: 'timeout', reason: 'RESULT' }, `no RESULT within ${c.t.resultTimeoutMs} ms`) } },
            { type: 'forgetCandidates', params: ({ context }) => ({ hint: context.hint }) },
          ],
        },
      },
    },
    // RETRY_NEXT: the next candidate, or the §4 verdict once the list is exhausted.
    retryNext: {
      always: [
        { guard: 'hasNext', target: 'dispatched' },
        {
          guard: 'retryRound',
          target: 'route',
          actions: [
            emit(({ context }) => ({ type: 'note' as const, decision: 'retry-round', detail: { attempts: context.attempts } })),
            assign({ rerun: true, index: 0, attempts: [], cfps: [], answered: [], offers: [], winner: -1, notUnderstood: [], accept: undefined }),
          ],
        },
        { guard: 'everyoneBusy', target: 'scaling' },
        { guard: 'mayWait', target: 'busyWait' },
        {
          target: 'failed',
          actions: [
            emit(({ context }) => ({ type: 'note' as const, decision: 'exhausted', detail: { attempts: context.attempts } })),
            { type: 'fail', params: ({ context }) => exhausted(context.attempts, context.t) },
          ],
        },
      ],
    },
    // SCALING: everyone was busy; one more specialist of their role, then LOOKUP again (once).
    scaling: {
      entry: emit(({ context }) => ({ type: 'note' as const, decision: 'scale-up', detail: { busy: busyOnes(context) } })),
      invoke: {
        src: 'scale',
        input: ({ context }) => ({ busy: busyOnes(context) }),
        onDone: {
          target: 'lookup',
          actions: [
            // A fresh round: the new specialist joins a new LOOKUP (and a new CFP when negotiated).
            assign({ scaled: true, index: 0, candidates: [], cfps: [], answered: [], offers: [], winner: -1, notUnderstood: [] }),
            emit(({ event }) => ({ type: 'note' as const, decision: 'scaled-up', detail: { agent: event.output.agent?.name ?? null, ready_ms: event.output.ready_ms ?? null } })),
          ],
        },
        onError: [
          {
            // No scale-up (no supervisor, at its limit): wait for the busy ones instead.
            guard: 'mayWait',
            target: 'busyWait',
            actions: [
              emit(({ event }) => ({ type: 'note' as const, decision: 'scale-up-refused', detail: { why: String((event.error as Error)?.message ?? event.error).slice(0, 500) } })),
              assign({ scaled: true }),
            ],
          },
          {
            target: 'failed',
            actions: [
              emit(({ event }) => ({ type: 'note' as const, decision: 'scale-up-refused', detail: { why: String((event.error as Error)?.message ?? event.error).slice(0, 500) } })),
              { type: 'fail', params: ({ context }) => exhausted(context.attempts, context.t) },
            ],
          },
        ],
      },
      on: { inbound: { guard: 'cancelled', target: 'cancelled' } },
      after: {
        SCALE_TIMEOUT: {
          target: 'failed',
          actions: [emit({ type: 'note' as const, decision: 'scale-up-timeout' }), { type: 'fail', params: ({ context }) => exhausted(context.attempts, context.t) }],
        },
      },
    },
    // BUSY_WAIT: every candidate was busy; wait (back-off, jitter; busy-wait.ts), then a fresh
    // round with the same candidates (negotiated again when it was), in the same conversation.
    busyWait: {
      entry: [
        assign(({ context }) => {
          const ms = waitFor(context) as number;
          return { waitMs: ms, waits: context.waits + 1, waitedMs: context.waitedMs + ms };
        }),
        emit(({ context }) => ({ type: 'note' as const, decision: 'busy-wait', detail: { busy: busyOnes(context), wait_ms: context.waitMs, waits: context.waits, waited_ms: context.waitedMs } })),
      ],
      on: { inbound: { guard: 'cancelled', target: 'cancelled' } },
      after: {
        BUSY_RETRY: {
          target: 'route',
          actions: assign({ index: 0, attempts: [], cfps: [], answered: [], offers: [], winner: -1, notUnderstood: [], accept: undefined }),
        },
      },
    },
    // ANSWERED: a person's answer is stored in the KB; a delegated one goes straight back.
    answered: {
      always: [{ guard: 'delegated', target: 'delegatedDone' }, { target: 'storing' }],
    },
    delegatedDone: {
      type: 'final',
      entry: [
        emit(({ context }) => ({ type: 'note' as const, decision: 'delegated-answered', detail: { answered_by: context.result?.answeredBy } })),
        emit(({ context }) => {
          const r = context.result as NonNullable<Ctx['result']>;
          return {
            type: 'send' as const,
            envelope: replyTo(context.request, { performative: 'INFORM', content: { type: 'RESULT', result: { answer: r.answer, meta: { answered_by: r.answeredBy } } } }),
          };
        }),
      ],
    },
    // DISPATCHED: REQUEST ASK_EXPERT to candidate i; it must AGREE within agreeTimeoutMs.
    dispatched: {
      entry: [
        assign(({ context }) => ({
          ask: outbound(context.request, context.self, 'REQUEST', current(context).name, {
            type: 'ASK_EXPERT', args: { question: context.question, ...(context.zone ? { zone: context.zone } : {}) }, context_ref: { session_id: context.request.conversation_id },
          }),
        })),
        emit(({ context }) => ({ type: 'note' as const, decision: 'dispatch', detail: { candidate: current(context).name, attempt: context.index + 1 } })),
        emit(({ context }) => agoraNote('PENDING', { flow: 'direct', candidate: current(context).name })),
        emit(({ context }) => ({ type: 'send' as const, envelope: context.ask as Envelope })),
      ],
      on: {
        inbound: [
          { guard: 'cancelled', target: 'cancelled', actions: { type: 'cancelSpecialist', params: { reason: 'the person withdrew the question' } } },
          {
            guard: { type: 'from', params: { kind: 'AGREE' } },
            target: 'inProgress',
            actions: [
              emit(({ context }) => agoraNote('PROCESSING', { flow: 'direct', candidate: current(context).name })),
              { type: 'tellPresenter', params: ({ context }) => ({ by: current(context).name }) },
            ],
          },
          // fipa-request lets a participant inform without agreeing first.
          { guard: { type: 'from', params: { kind: 'RESULT' } }, target: 'answered', actions: 'takeResult' },
          {
            guard: ({ context, event }) => event.type === 'inbound' && (fromCurrent(context, event, 'REFUSE') || fromCurrent(context, event, 'NOT-UNDERSTOOD')),
            target: 'retryNext',
            actions: { type: 'giveUp', params: ({ event }) => ({ outcome: 'refused' as const, ...reasonOf(inbound(event) as Envelope) }) },
          },
          {
            guard: { type: 'from', params: { kind: 'FAILURE' } },
            target: 'retryNext',
            actions: { type: 'giveUp', params: ({ event }) => ({ outcome: 'failed' as const, ...reasonOf(inbound(event) as Envelope) }) },
          },
        ],
      },
      after: {
        AGREE_TIMEOUT: {
          target: 'retryNext',
          actions: [
            { type: 'cancelSpecialist', params: ({ context }) => ({ reason: `no AGREE within ${context.t.agreeTimeoutMs} ms` }) },
            { type: 'giveUp', params: { outcome: 'timeout', reason: 'AGREE' } },
          ],
        },
      },
    },
    // IN_PROGRESS: agreed; the RESULT must follow within resultTimeoutMs.
    inProgress: {
      on: {
        inbound: [
          { guard: 'cancelled', target: 'cancelled', actions: { type: 'cancelSpecialist', params: { reason: 'the person withdrew the question' } } },
          { guard: { type: 'from', params: { kind: 'RESULT' } }, target: 'answered', actions: 'takeResult' },
          {
            guard: ({ context, event }) => event.type === 'inbound' && (fromCurrent(context, event, 'FAILURE') || fromCurrent(context, event, 'NOT-UNDERSTOOD')),
            target: 'retryNext',
            actions: { type: 'giveUp', params: ({ event }) => ({ outcome: 'failed' as const, ...reasonOf(inbound(event) as Envelope) }) },
          },
        ],
      },
      after: {
        RESULT_TIMEOUT: {
          target: 'retryNext',
          actions: [
            { type: 'cancelSpecialist', params: ({ context }) => ({ reason: `no RESULT within ${context.t.resultTimeoutMs} ms` }) },
            { type: 'giveUp', params: { outcome: 'timeout', reason: 'RESULT' } },
          ],
        },
      },
    },
    // DONE, part 1: STORE_FACT; the person gets the answer whatever the KB says (seed contract §4).
    storing: {
      entry: [
        assign(({ context }) => {
          const r = context.result as NonNullable<Ctx['result']>;
          const fact = answerFact(context.request, { question: context.question, ...r }, context.user);
          return { store: outbound(context.request, context.self, 'INFORM', 'KB', fact) };
        }),
        emit(({ context }) => ({ type: 'send' as const, envelope: context.store as Envelope })),
      ],
      on: {
        inbound: [
          { guard: 'cancelled', target: 'cancelled' },
          {
            guard: ({ context, event }) => event.type === 'inbound' && answers(event, context.store) && contentType(event.envelope) === 'STORED',
            target: 'done',
            actions: { type: 'kb', params: { kb: 'stored' } },
          },
          // FAILURE KB_STORE_FAILED (or any error answer): the KB is there but did not keep it.
          { guard: ({ context, event }) => event.type === 'inbound' && answers(event, context.store), target: 'done', actions: { type: 'kb', params: { kb: 'KB_STORE_FAILED' } } },
        ],
      },
      after: { KB_TIMEOUT: { target: 'done', actions: { type: 'kb', params: { kb: 'KB_UNAVAILABLE' } } } },
    },
    // DONE, part 2: PRESENTER_REPLY in_reply_to the USER_MSG.
    done: {
      type: 'final',
      entry: [
        emit(({ context }) => ({ type: 'note' as const, decision: 'answered', detail: { answered_by: context.result?.answeredBy, kb: context.kb } })),
        emit(({ context }) => {
          const r = context.result as NonNullable<Ctx['result']>;
          const kb = context.kb ?? 'KB_UNAVAILABLE';
          return { type: 'send' as const, envelope: presenterReply(context.request, answerText(r.answer, kb), { answered_by: r.answeredBy, kb }) };
        }),
      ],
    },
    failed: { type: 'final' },
    cancelled: { type: 'final', entry: emit({ type: 'note', decision: 'cancelled-by-presenter' }) },
  },
});
