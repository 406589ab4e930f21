// Keeping an agent listed by the DF (docs/runtime.md §5): one registration machine per agent
// (registration-machine.ts: REGISTER with back-off, HEARTBEAT, REGISTER again after a lost lease),
// never persisted (a restarted agent registers anew and the DF replaces its entry), the profile
// replaced on a change, and DEREGISTER at shutdown with a bounded wait. Every role the DF lists
// uses it: specialists (and hosted virtual ones), calendars, rooms, the Coordinator's sessions.
import { randomUUID } from 'node:crypto';
import { type AnyActorRef, waitFor } from 'xstate';
import type { AgentProfile } from '../contracts/types.gen.js';
import type { Agent } from './agent.js';
import { registrationMachine, type RegistrationEmitted, type RegistrationEvent } from './registration-machine.js';

export interface DfRegistration {
  /** The registration's conversation_id (and router key). */
  readonly key: string;
  readonly actor: AnyActorRef;
  /** The profile changed (skills hot reload): the DF gets it in a new REGISTER. */
  update(profile: AgentProfile): void;
  /** REQUEST DEREGISTER and wait for the DF's answer; false when none came within `timeoutMs`. */
  deregister(timeoutMs?: number): Promise<boolean>;
}

export interface DfRegistrationOptions {
  heartbeatMs: number;
  /** After each REGISTER the DF accepted (count 1 = the first; more after a lost lease). */
  onRegistered?: (e: { lease_ms: number; count: number }) => void;
  /** The conversation_id; default reg-<name>-<uuid>. */
  key?: string;
}

/** How long a REGISTER waits before the next attempt: from 0.5 s doubling to 10 s (the Registry may start later). */
const RETRY = { initialMs: 500, maxMs: 10000 };
/** How long the machine waits for the DF's answer to DEREGISTER before it ends anyway. */
const DEREGISTER_TIMEOUT_MS = 1500;

export function registerWithDf(agent: Agent, profile: AgentProfile, opts: DfRegistrationOptions): DfRegistration {
  const key = opts.key ?? `reg-${agent.name}-${randomUUID()}`;
  const actor = agent.router.start(key, registrationMachine, {
    self: agent.name, jid: agent.self.jid, profile, conversationId: key, heartbeatMs: opts.heartbeatMs,
    retry: RETRY, deregisterTimeoutMs: DEREGISTER_TIMEOUT_MS,
  }, undefined, { ephemeral: true });
  const onRegistered = opts.onRegistered;
  if (onRegistered) {
    actor.on('registered', (e: RegistrationEmitted) => {
      if (e.type === 'registered') onRegistered({ lease_ms: e.lease_ms, count: e.count });
    });
  }
  return {
    key,
    actor,
    update: (p) => {
      const event: RegistrationEvent = { type: 'PROFILE', profile: p };
      agent.router.send(key, event);
    },
    deregister: async (timeoutMs = 2000) => {
      if (!agent.router.send(key, { type: 'DEREGISTER' })) return false;
      return waitFor(actor, (s) => s.status === 'done', { timeout: timeoutMs }).then(() => true, () => false);
    },
  };
}
