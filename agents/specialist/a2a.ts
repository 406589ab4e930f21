// The specialist's side of delegation (plan part 2 delegate_task / query_agents /
// broadcast_event, translated to FIPA over XMPP): a skill's ctx.a2a(...) becomes one envelope
// to the Coordinator in the person's session (conversation_id = session_id), so the sub-request
// shows in that conversation's trace; never a message to another specialist (seed contract §5).
import { assign, emit, setup, toPromise } from 'xstate';
import { type Envelope, makeEnvelope, isErrorCode, ParleyError } from '../../shared/acl/index.js';
import type { Agent, ExchangeEmitted, InboundEvent } from '../../shared/runtime/index.js';
import type { A2aKind } from '../../shared/skills/handler-api.js';

interface CallInput {
  envelope: Envelope;
  timeoutMs: number;
}

/** One request/answer with the Coordinator; the output is the answer, or undefined on timeout. */
export const a2aCallMachine = setup({
  types: {} as { input: CallInput; context: CallInput & { reply?: Envelope }; events: InboundEvent; emitted: ExchangeEmitted; output: { reply?: Envelope } },
  delays: { A2A_TIMEOUT: ({ context }) => context.timeoutMs },
}).createMachine({
  id: 'a2aCall',
  context: ({ input }) => input,
  entry: emit(({ context }) => ({ type: 'send' as const, envelope: context.envelope })),
  initial: 'waiting',
  states: {
    waiting: {
      on: {
        inbound: {
          guard: ({ context, event }) => event.envelope.in_reply_to === context.envelope.reply_with,
          target: 'done',
          actions: assign({ reply: ({ event }) => event.envelope }),
        },
      },
      after: { A2A_TIMEOUT: { target: 'done', actions: emit({ type: 'note' as const, decision: 'a2a-timeout' }) } },
    },
    done: { type: 'final' },
  },
  output: ({ context }) => (context.reply ? { reply: context.reply } : {}),
});

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** The content for a kind; the skill's inputSchema has already checked the fields. */
export function a2aContent(kind: A2aKind, input: Record<string, unknown>): { performative: 'REQUEST' | 'QUERY-REF'; content: Record<string, unknown> } {
  const pick = (keys: string[]) => Object.fromEntries(keys.filter((k) => str(input[k]) !== undefined).map((k) => [k, input[k]]));
  switch (kind) {
    case 'delegate_task':
      return { performative: 'REQUEST', content: { type: 'DELEGATE_TASK', task: String(input.task ?? ''), ...pick(['role', 'context']) } };
    case 'query_agents':
      return { performative: 'QUERY-REF', content: { type: 'QUERY_AGENTS', ...pick(['role', 'skill']) } };
    case 'broadcast_event':
      return { performative: 'REQUEST', content: { type: 'BROADCAST_EVENT', event: String(input.event ?? ''), data: String(input.data ?? '') } };
  }
}

/** What the skill gets back: the answer's content, or a thrown ParleyError with the reason. */
export function a2aValue(kind: A2aKind, reply: Envelope | undefined, timeoutMs: number): unknown {
  if (!reply) throw new ParleyError('TIMEOUT', `the Coordinator did not answer ${kind} within ${timeoutMs} ms`);
  const c = reply.content as Record<string, unknown>;
  if (reply.performative !== 'INFORM') {
    const reason = isErrorCode(c.reason) ? c.reason : 'INTERNAL_ERROR';
    // Our FAILURE may only carry FAILURE reasons; a delegated NO_CANDIDATE says why in the detail.
    const code = reason === 'INVALID_ARGS' || reason === 'TIMEOUT' ? reason : 'INTERNAL_ERROR';
    throw new ParleyError(code, `${kind}: the Coordinator answered ${reply.performative} ${String(c.reason ?? '')}: ${String(c.detail ?? '')}`.slice(0, 1500));
  }
  if (kind === 'delegate_task') {
    const r = (c.result ?? {}) as { answer?: unknown; meta?: Record<string, unknown> };
    return { answer: String(r.answer ?? ''), answered_by: r.meta?.answered_by ?? null };
  }
  if (kind === 'query_agents') return c.agents ?? [];
  return { delivered: c.delivered ?? [] };
}

export function coordinatorLink(agent: Agent, timeoutMs: number) {
  return async (kind: A2aKind, input: Record<string, unknown>, session_id: string): Promise<unknown> => {
    const { performative, content } = a2aContent(kind, input);
    const envelope = makeEnvelope({ performative, sender: agent.name, receiver: 'Coordinator', conversation_id: session_id, content });
    // Ephemeral: after a restart the skill that waited is gone; the restored task runs it again.
    const actor = agent.router.start(`${session_id}/${envelope.reply_with}`, a2aCallMachine, { envelope, timeoutMs }, undefined, { ephemeral: true });
    return a2aValue(kind, ((await toPromise(actor)) as { reply?: Envelope }).reply, timeoutMs);
  };
}

/** INFORM EVENT from the Coordinator (someone's broadcast_event): noted in telemetry, no answer. */
export const eventMachine = setup({
  types: {} as { input: { request: Envelope }; events: InboundEvent; emitted: ExchangeEmitted },
}).createMachine({
  id: 'event',
  entry: emit(({ event }) => {
    const c = ((event as unknown as { input?: { request: Envelope } }).input?.request.content ?? {}) as Record<string, unknown>;
    return { type: 'note' as const, decision: 'event', detail: { event: c.event, origin: c.origin } };
  }),
  type: 'final',
});
