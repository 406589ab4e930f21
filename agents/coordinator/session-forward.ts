// A person's `session …` chat line (docs/sessions.md): the Presenter talks to the Coordinator
// alone (seed contract §5), so the Coordinator forwards the line to the sessions agent as
// REQUEST SESSION_CHAT — with the person (on_behalf_of) and the verified DID of the USER_MSG's
// signer, the Presenter, which convenes on the person's behalf — and answers the Presenter with
// the text the sessions agent wrote. No answer within PARLEY_SESSIONS_TIMEOUT_MS → FAILURE TIMEOUT;
// the line carries that wait (answer_within_ms), and the sessions agent does not apply a line it
// takes up after it (a restart that outlasted it): the person was told it failed.
// Durable like every Coordinator exchange: after a kill -9 the restored exchange still waits for
// (or resends) the forward, so the person gets one answer.
import { assign, emit, setup } from 'xstate';
import type { Envelope, ErrorCode } from '../../shared/acl/index.js';
import type { ExchangeEmitted, InboundEvent } from '../../shared/runtime/index.js';
import { answers, type CoordinatorInput, isCancelOf, outbound, presenterFailure, presenterReply, reasonOf, userMsg } from './envelopes.js';

/** The sessions agent's logical name (sessions@<domain>, shared/contracts/roles.ts). */
export const SESSIONS = 'Sessions';

interface Ctx {
  request: Envelope;
  self: string;
  waitMs: number;
  forward?: Envelope;
}

/** A FAILURE reason of the sessions agent the Presenter can word, else INTERNAL_ERROR. */
function failureCode(reason: string): ErrorCode {
  return reason === 'TIMEOUT' || reason === 'INTERNAL_ERROR' ? reason : 'INTERNAL_ERROR';
}

export const sessionForwardMachine = setup({
  types: {} as { input: CoordinatorInput; context: Ctx; events: InboundEvent; emitted: ExchangeEmitted },
  guards: { noPerson: ({ context }) => userMsg(context.request).user === undefined },
  delays: { SESSIONS_TIMEOUT: ({ context }) => context.waitMs },
}).createMachine({
  id: 'coordinator-session-forward',
  context: ({ input }) => ({ request: input.request, self: input.self, waitMs: input.timeouts.sessionsTimeoutMs ?? input.timeouts.resultTimeoutMs }),
  initial: 'start',
  states: {
    start: {
      always: [
        {
          guard: 'noPerson',
          target: 'done',
          actions: emit(({ context }) => ({ type: 'send' as const, envelope: presenterFailure(context.request, 'INVALID_ARGS', 'a session from chat needs the person who writes (USER_MSG.user)') })),
        },
        { target: 'forwarding' },
      ],
    },
    forwarding: {
      entry: [
        assign(({ context }) => {
          const { text, user } = userMsg(context.request);
          const did = context.request.sender_did;
          return { forward: outbound(context.request, context.self, 'REQUEST', SESSIONS, { type: 'SESSION_CHAT', text, on_behalf_of: user, answer_within_ms: context.waitMs, ...(did ? { presenter_did: did } : {}) }) };
        }),
        emit(({ context }) => ({ type: 'send' as const, envelope: context.forward as Envelope })),
      ],
      on: {
        inbound: [
          { guard: ({ context, event }) => isCancelOf(event, context.request), target: 'done' },
          {
            guard: ({ context, event }) => answers(event, context.forward) && event.envelope.performative === 'INFORM' && event.envelope.content.type === 'SESSION_CHAT_REPLY',
            target: 'done',
            actions: emit(({ context, event }) => {
              const c = event.envelope.content;
              return { type: 'send' as const, envelope: presenterReply(context.request, String(c.text), (c.rich ?? { kind: 'session' }) as object) };
            }),
          },
          {
            guard: ({ context, event }) => answers(event, context.forward),
            target: 'done',
            actions: emit(({ context, event }) => {
              const { reason, detail } = reasonOf(event.envelope);
              const code = failureCode(reason);
              return { type: 'send' as const, envelope: presenterFailure(context.request, code, `the sessions agent answered ${event.envelope.performative} ${reason}${detail ? `: ${detail}` : ''}`.slice(0, 2000)) };
            }),
          },
        ],
      },
      after: {
        SESSIONS_TIMEOUT: {
          target: 'done',
          actions: [
            emit({ type: 'note', decision: 'sessions-timeout' }),
            emit(({ context }) => ({ type: 'send' as const, envelope: presenterFailure(context.request, 'TIMEOUT', `the sessions agent did not answer within ${Math.round(context.waitMs / 1000)} s; say "session" to see whether your change was made`) })),
          ],
        },
      },
    },
    done: { type: 'final' },
  },
});
