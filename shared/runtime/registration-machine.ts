// An agent's life with the DF (docs/runtime.md §5, seed contract §2.2): REQUEST REGISTER
// until INFORM REGISTERED (retried with exponential back-off: the Registry may start later),
// then INFORM HEARTBEAT every HEARTBEAT; FAILURE NOT_REGISTERED (lease lost, e.g. the Registry
// restarted) → register again in a new conversation. It never finishes on its own: only the
// DEREGISTER event (SIGTERM) leads to REQUEST DEREGISTER and, answered or not, the final state.
import { randomUUID } from 'node:crypto';
import { assign, emit, setup } from 'xstate';
import { type Envelope, makeEnvelope } from '../acl/index.js';
import type { AgentProfile } from '../contracts/index.js';
import type { ExchangeEmitted, InboundEvent } from './exchange.js';

export interface RegistrationInput {
  /** Logical name (specialist-math) and bare JID of this agent. */
  self: string;
  jid: string;
  profile: AgentProfile;
  conversationId: string;
  heartbeatMs: number;
  retry: { initialMs: number; maxMs: number };
  deregisterTimeoutMs: number;
  /** The DF's logical name. */
  registry?: string;
  /**
   * Wait in `queued` for a GO event before each (re-)registration: the host's RegistrationGate
   * (df-registration.ts) hands out a bounded number of turns, so many agents of one process do
   * not flood the Registry with REGISTERs and their retries (after its restart too).
   */
  gated?: boolean;
  /**
   * False: no HEARTBEAT timer; the agent's lease group (profile.lease_group, df-registration.ts
   * LeaseGroup) sends BEAT to one registered member per interval, whose HEARTBEAT renews them all,
   * and LOST to the others when that member's lease was gone.
   */
  heartbeats?: boolean;
}

interface RegistrationContext extends Required<RegistrationInput> {
  /** REGISTER attempts without an answer since the last (re)start. */
  attempt: number;
  leaseMs: number | null;
  registrations: number;
}

/** `queued`: a gated machine waits for its turn (GO). */
export type RegistrationEmitted = ExchangeEmitted | { type: 'registered'; lease_ms: number; count: number } | { type: 'queued' };
/**
 * PROFILE: the skills changed (hot reload); the DF gets the new profile in a new REGISTER. GO: a
 * gated machine's turn. BEAT: send the lease group's HEARTBEAT now. LOST: the member whose
 * HEARTBEAT renews the group was answered NOT_REGISTERED, so this member's lease is gone too:
 * register again (through the gate).
 */
export type RegistrationEvent = InboundEvent | { type: 'DEREGISTER' } | { type: 'PROFILE'; profile: AgentProfile } | { type: 'GO' } | { type: 'LOST' } | { type: 'BEAT' };

const content = (e: RegistrationEvent): Record<string, unknown> =>
  e.type === 'inbound' ? (e.envelope.content as Record<string, unknown>) : {};
const isInform = (e: RegistrationEvent, type: string): boolean =>
  e.type === 'inbound' && e.envelope.performative === 'INFORM' && content(e).type === type;
const isError = (e: RegistrationEvent): boolean =>
  e.type === 'inbound' && ['FAILURE', 'REFUSE', 'NOT-UNDERSTOOD'].includes(e.envelope.performative);

function toRegistry(context: RegistrationContext, performative: 'REQUEST' | 'INFORM', body: object): Envelope {
  return makeEnvelope({ performative, sender: context.self, receiver: context.registry, conversation_id: context.conversationId, content: body });
}

export const registrationMachine = setup({
  types: {} as { input: RegistrationInput; context: RegistrationContext; events: RegistrationEvent; emitted: RegistrationEmitted },
  delays: {
    REGISTER_RETRY: ({ context }) => Math.min(context.retry.maxMs, context.retry.initialMs * 2 ** context.attempt),
    // Never slower than half the lease the DF granted, whatever PARLEY_HEARTBEAT_MS says.
    HEARTBEAT: ({ context }) => (context.leaseMs ? Math.min(context.heartbeatMs, Math.max(1, Math.floor(context.leaseMs / 2))) : context.heartbeatMs),
    DEREGISTER_TIMEOUT: ({ context }) => context.deregisterTimeoutMs,
  },
  actions: {
    sendRegister: emit(({ context }) => ({ type: 'send' as const, envelope: toRegistry(context, 'REQUEST', { type: 'REGISTER', profile: context.profile }) })),
    sendHeartbeat: emit(({ context }) => ({ type: 'send' as const, envelope: toRegistry(context, 'INFORM', { type: 'HEARTBEAT', jid: context.jid }) })),
    sendDeregister: emit(({ context }) => ({ type: 'send' as const, envelope: toRegistry(context, 'REQUEST', { type: 'DEREGISTER', jid: context.jid }) })),
    recordLease: assign(({ context, event }) => {
      const lease = content(event).lease_ms;
      return { leaseMs: typeof lease === 'number' ? lease : context.leaseMs, attempt: 0, registrations: context.registrations + 1 };
    }),
    announce: emit(({ context }) => ({ type: 'registered' as const, lease_ms: context.leaseMs ?? 0, count: context.registrations })),
    // "One conversation per registration" (docs/runtime.md §5): a re-registration starts a new one.
    newConversation: assign(({ context }) => ({ attempt: 0, conversationId: `reg-${context.self}-${randomUUID()}` })),
    takeProfile: assign(({ context, event }) => ({ profile: event.type === 'PROFILE' ? event.profile : context.profile })),
  },
  guards: {
    registered: ({ event, context }) => isInform(event, 'REGISTERED') && content(event).jid === context.jid,
    notRegistered: ({ event }) => event.type === 'inbound' && event.envelope.performative === 'FAILURE' && content(event).reason === 'NOT_REGISTERED',
    refused: ({ event }) => isError(event),
    deregistered: ({ event }) => isInform(event, 'DEREGISTERED') || isError(event),
    ungated: ({ context }) => !context.gated,
    beats: ({ context }) => context.heartbeats,
  },
}).createMachine({
  id: 'registration',
  context: ({ input }) => ({ registry: 'Registry', gated: false, heartbeats: true, ...input, attempt: 0, leaseMs: null, registrations: 0 }),
  initial: 'queued',
  states: {
    // Nothing registered (yet, or any more): wait for a turn, at once when ungated.
    queued: {
      entry: emit({ type: 'queued' as const }),
      always: { guard: 'ungated', target: 'registering' },
      on: {
        GO: 'registering',
        DEREGISTER: 'stopped',
        PROFILE: { actions: 'takeProfile' },
      },
    },
    registering: {
      entry: 'sendRegister',
      after: {
        REGISTER_RETRY: {
          target: 'registering',
          reenter: true,
          actions: [assign({ attempt: ({ context }) => context.attempt + 1 }), emit(({ context }) => ({ type: 'note' as const, decision: 'register-retry', detail: { attempt: context.attempt } }))],
        },
      },
      on: {
        inbound: [
          { guard: 'registered', target: 'registered', actions: ['recordLease', 'announce'] },
          // The DF answered but would not register us (bad profile?): keep retrying on the timer.
          { guard: 'refused', actions: emit(({ event }) => ({ type: 'note' as const, decision: 'register-refused', detail: content(event) })) },
        ],
        DEREGISTER: 'deregistering',
        PROFILE: { target: 'registering', reenter: true, actions: ['takeProfile', 'newConversation'] },
      },
    },
    registered: {
      after: { HEARTBEAT: { guard: 'beats', target: 'registered', reenter: true, actions: 'sendHeartbeat' } },
      on: {
        BEAT: { actions: 'sendHeartbeat' },
        LOST: { target: 'queued', actions: ['newConversation', emit({ type: 'note' as const, decision: 're-register: lease group lost its lease' })] },
        inbound: [
          { guard: 'notRegistered', target: 'queued', actions: ['newConversation', emit({ type: 'note' as const, decision: 're-register: NOT_REGISTERED' })] },
          // A late answer to an earlier REGISTER attempt: keep its lease.
          { guard: 'registered', actions: assign({ leaseMs: ({ context, event }) => (typeof content(event).lease_ms === 'number' ? (content(event).lease_ms as number) : context.leaseMs) }) },
        ],
        DEREGISTER: 'deregistering',
        PROFILE: {
          target: 'registering',
          actions: ['takeProfile', 'newConversation', emit({ type: 'note' as const, decision: 're-register: skills changed' })],
        },
      },
    },
    deregistering: {
      entry: 'sendDeregister',
      after: { DEREGISTER_TIMEOUT: 'stopped' },
      on: { inbound: { guard: 'deregistered', target: 'stopped' } },
    },
    stopped: { type: 'final' },
  },
});
