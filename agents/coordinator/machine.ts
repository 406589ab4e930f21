// The Coordinator's expert flow, one actor per USER_MSG (seed contract §3):
// RECEIVED → [candidate cache hit, or] LOOKUP(DF) → DISPATCHED(REQUEST) → IN_PROGRESS(AGREE) → DONE(RESULT → STORE_FACT →
// PRESENTER_REPLY); REFUSE / timeout / FAILURE → RETRY_NEXT; list exhausted → FAILED (§4 reason).
// Every candidate REFUSEd busy → SCALING: the supervisor starts one more specialist of their
// role (an operator-side action through its local control socket, provided by main.ts; a note in
// the trace, not an envelope), then LOOKUP again, once. A specialist's DELEGATE_TASK runs the
// same flow as a sub-request in the person's session: other candidates only, RESULT back to it.
// Pure: envelopes leave as `send` emits, timeouts are named delays, decisions are `note`s.
import { assign, emit, enqueueActions, fromPromise, setup } from 'xstate';
import { type Envelope, replyTo } from '../../shared/acl/envelope.js';
import type { ErrorCode } from '../../shared/acl/errors.js';
import type { ExchangeEmitted, InboundEvent } from '../../shared/runtime/exchange.js';
import { type Candidate, usableCandidates } from './candidates.js';
import {
  answerFact, answers, cancelOf, contentType, type CoordinatorInput, type CoordinatorTimeouts, isCancelOf, outbound,
  presenterFailure, presenterReply, reasonOf, userMsg,
} from './envelopes.js';
import { answerText, type Attempt, DIRECTORY_UNAVAILABLE, exhausted, type KbOutcome } from './replies.js';

interface Ctx {
  request: Envelope;
  self: string;
  domain: string;
  t: CoordinatorTimeouts;
  question: string;
  /** The ranking hint sent to the DF (and the candidate cache's key). */
  hint: string;
  user?: string;
  lookup?: Envelope;
  candidates: Candidate[];
  index: number;
  /** The ASK_EXPERT to the current candidate. */
  ask?: Envelope;
  attempts: Attempt[];
  result?: { answer: string; confidence: number; answeredBy: string };
  store?: Envelope;
  kb?: KbOutcome;
  canScale: boolean;
  scaled: boolean;
  delegation?: { exclude: string; role?: string };
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
const busyOnes = (c: Ctx): string[] => c.attempts.filter((a) => a.outcome === 'refused' && a.reason === 'busy').map((a) => a.candidate);

type Why = { reason: string; detail?: string };

export { usableCandidates };

export const expertMachine = setup({
  types: {} as { input: CoordinatorInput; context: Ctx; events: InboundEvent; emitted: ExchangeEmitted },
  guards: {
    cancelled: ({ context, event }) => isCancelOf(event, context.request),
    from: ({ context, event }, p: { kind: Kind }) => fromCurrent(context, event, p.kind),
    hasNext: ({ context }) => context.index < context.candidates.length,
    // Every candidate that could take it was busy (the others said OUT_OF_SCOPE).
    everyoneBusy: ({ context }) =>
      context.canScale && !context.scaled && busyOnes(context).length > 0
      && context.attempts.every((a) => a.outcome === 'refused' && (a.reason === 'busy' || a.reason === 'OUT_OF_SCOPE')),
    delegated: ({ context }) => context.delegation !== undefined,
    cached: ({ context }) => context.candidates.length > 0,
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
    takeResult: assign(({ context, event }) => {
      const r = (event.envelope.content.result ?? {}) as { answer?: unknown; meta?: { confidence?: unknown } };
      const conf = r.meta?.confidence;
      return {
        result: {
          answer: typeof r.answer === 'string' ? r.answer : '',
          confidence: typeof conf === 'number' && conf >= 0 && conf <= 1 ? conf : 0.9,
          answeredBy: current(context).name,
        },
      };
    }),
    kb: assign((_, p: { kb: KbOutcome }) => ({ kb: p.kb })),
    /** The DF's answer for this hint, for the candidate cache (candidate-cache.ts); provided by main.ts. */
    rememberCandidates: (_, _p: { hint: string; jids: unknown }) => undefined,
    forgetCandidates: (_, _p: { hint: string }) => undefined,
    fail: emit(({ context }, p: { code: ErrorCode; detail: string }) => ({ type: 'send' as const, envelope: presenterFailure(context.request, p.code, p.detail) })),
  },
  delays: {
    REGISTRY_TIMEOUT: ({ context }) => context.t.registryTimeoutMs,
    AGREE_TIMEOUT: ({ context }) => context.t.agreeTimeoutMs,
    RESULT_TIMEOUT: ({ context }) => context.t.resultTimeoutMs,
    KB_TIMEOUT: ({ context }) => context.t.kbTimeoutMs,
    SCALE_TIMEOUT: ({ context }) => context.t.scaleTimeoutMs ?? 20000,
  },
}).createMachine({
  id: 'coordinator-expert',
  context: ({ input }) => {
    const { text, user } = input.delegation ? { text: String(input.request.content.task ?? ''), user: undefined } : userMsg(input.request);
    return {
      request: input.request, self: input.self, domain: input.domain, t: input.timeouts,
      question: text, hint: hintOf(text), ...(user ? { user } : {}),
      candidates: usableCandidates(input.cached ?? [], input.domain), index: 0, attempts: [],
      canScale: input.canScale ?? false, scaled: false, ...(input.delegation ? { delegation: input.delegation } : {}),
    };
  },
  initial: 'received',
  states: {
    // RECEIVED: a fresh DF answer for a question of this shape (the candidate cache) skips LOOKUP.
    received: {
      always: [
        {
          guard: 'cached',
          target: 'retryNext',
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
            guard: ({ context, event }) => answers(event, context.lookup) && Array.isArray(event.envelope.content.candidates),
            target: 'retryNext',
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
            guard: ({ context, event }) => answers(event, context.lookup),
            target: 'failed',
            actions: {
              type: 'fail',
              params: ({ event }) => ({ code: 'NO_CANDIDATE' as const, detail: `directory unavailable: the Registry answered ${event.envelope.performative} ${reasonOf(event.envelope).reason}.` }),
            },
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
    // RETRY_NEXT: the next candidate, or the §4 verdict once the list is exhausted.
    retryNext: {
      always: [
        { guard: 'hasNext', target: 'dispatched' },
        { guard: 'everyoneBusy', target: 'scaling' },
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
            assign({ scaled: true, index: 0, candidates: [] }),
            emit(({ event }) => ({ type: 'note' as const, decision: 'scaled-up', detail: { agent: event.output.agent?.name ?? null, ready_ms: event.output.ready_ms ?? null } })),
          ],
        },
        onError: {
          target: 'failed',
          actions: [
            emit(({ event }) => ({ type: 'note' as const, decision: 'scale-up-refused', detail: { why: String((event.error as Error)?.message ?? event.error).slice(0, 500) } })),
            { type: 'fail', params: ({ context }) => exhausted(context.attempts, context.t) },
          ],
        },
      },
      on: { inbound: { guard: 'cancelled', target: 'cancelled' } },
      after: {
        SCALE_TIMEOUT: {
          target: 'failed',
          actions: [emit({ type: 'note' as const, decision: 'scale-up-timeout' }), { type: 'fail', params: ({ context }) => exhausted(context.attempts, context.t) }],
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
            type: 'ASK_EXPERT', args: { question: context.question }, context_ref: { session_id: context.request.conversation_id },
          }),
        })),
        emit(({ context }) => ({ type: 'note' as const, decision: 'dispatch', detail: { candidate: current(context).name, attempt: context.index + 1 } })),
        emit(({ context }) => ({ type: 'send' as const, envelope: context.ask as Envelope })),
      ],
      on: {
        inbound: [
          { guard: 'cancelled', target: 'cancelled', actions: { type: 'cancelSpecialist', params: { reason: 'the person withdrew the question' } } },
          { guard: { type: 'from', params: { kind: 'AGREE' } }, target: 'inProgress' },
          // fipa-request lets a participant inform without agreeing first.
          { guard: { type: 'from', params: { kind: 'RESULT' } }, target: 'answered', actions: 'takeResult' },
          {
            guard: ({ context, event }) => fromCurrent(context, event, 'REFUSE') || fromCurrent(context, event, 'NOT-UNDERSTOOD'),
            target: 'retryNext',
            actions: { type: 'giveUp', params: ({ event }) => ({ outcome: 'refused' as const, ...reasonOf(event.envelope) }) },
          },
          {
            guard: { type: 'from', params: { kind: 'FAILURE' } },
            target: 'retryNext',
            actions: { type: 'giveUp', params: ({ event }) => ({ outcome: 'failed' as const, ...reasonOf(event.envelope) }) },
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
            guard: ({ context, event }) => fromCurrent(context, event, 'FAILURE') || fromCurrent(context, event, 'NOT-UNDERSTOOD'),
            target: 'retryNext',
            actions: { type: 'giveUp', params: ({ event }) => ({ outcome: 'failed' as const, ...reasonOf(event.envelope) }) },
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
            guard: ({ context, event }) => answers(event, context.store) && contentType(event.envelope) === 'STORED',
            target: 'done',
            actions: { type: 'kb', params: { kb: 'stored' } },
          },
          // FAILURE KB_STORE_FAILED (or any error answer): the KB is there but did not keep it.
          { guard: ({ context, event }) => answers(event, context.store), target: 'done', actions: { type: 'kb', params: { kb: 'KB_STORE_FAILED' } } },
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
