// Everyone busy (issue: a busy system is slower, not failing): SCALING asks the supervisor for
// one more specialist of their role and looks up again (once); BUSY_WAIT waits with back-off
// and jitter (busy-wait.ts), then runs the same candidates again.
import { assign, emit } from 'xstate';
import { exhausted } from '../replies.js';
import { busyOnes, expertSetup, waitFor } from './setup.js';

export const busyStates = {
  // SCALING: everyone was busy; one more specialist of their role, then LOOKUP again (once).
  scaling: expertSetup.createStateConfig({
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
            { type: 'fail', params: ({ context }) => exhausted(context.attempts, context.t, context.question) },
          ],
        },
      ],
    },
    on: { inbound: { guard: 'cancelled', target: 'cancelled' } },
    after: {
      SCALE_TIMEOUT: {
        target: 'failed',
        actions: [emit({ type: 'note' as const, decision: 'scale-up-timeout' }), { type: 'fail', params: ({ context }) => exhausted(context.attempts, context.t, context.question) }],
      },
    },
  }),
  // BUSY_WAIT: every candidate was busy; wait (back-off, jitter; busy-wait.ts), then a fresh
  // round with the same candidates (negotiated again when it was), in the same conversation.
  busyWait: expertSetup.createStateConfig({
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
  }),
};

/**
 * Once a candidate list is used up, direct and negotiated alike (seed contract §4): another round
 * when a retryable refusal allows one, a scale-up or a busy wait when everyone was busy, else the
 * verdict. `forget`: drop the cached DF answer first (the negotiated flow's offers went stale).
 */
const exhaustedConfig = (forget: boolean) => expertSetup.createStateConfig({
  always: [
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
        ...(forget ? [{ type: 'forgetCandidates' as const, params: ({ context }: { context: { hint: string } }) => ({ hint: context.hint }) }] : []),
        { type: 'fail', params: ({ context }) => exhausted(context.attempts, context.t, context.question) },
      ],
    },
  ],
});

/** whenExhausted(forget): the transitions of exhaustedConfig, spread after a state's own. */
export const whenExhausted = (forget: boolean) => {
  const { always } = exhaustedConfig(forget);
  return Array.isArray(always) ? always : [];
};
