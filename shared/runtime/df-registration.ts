// Keeping an agent listed by the DF (docs/runtime.md §5): one registration machine per agent
// (registration-machine.ts: REGISTER with back-off, HEARTBEAT, REGISTER again after a lost lease),
// never persisted (a restarted agent registers anew and the DF replaces its entry), the profile
// replaced on a change, and DEREGISTER at shutdown with a bounded wait. Every role the DF lists
// uses it: specialists (and hosted virtual ones), calendars, rooms, the sessions agent.
import { randomUUID } from 'node:crypto';
import { type AnyActorRef, waitFor } from 'xstate';
import type { AgentProfile } from '../contracts/index.js';
import type { Agent } from './agent.js';
import type { LeaseGroup } from './lease-group.js';
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
  /** Shared by a host's agents: at most `gate.limit` of them registering at once (first time and after a lost lease). */
  gate?: RegistrationGate;
  /** Shared by a host's agents: one HEARTBEAT renews them all (lease-group.ts); the profile names the group. */
  group?: LeaseGroup;
}

/** Turns of a host's RegistrationGate by default. */
export const REGISTERING_AT_ONCE = 64;

/**
 * Turns to register, at most `limit` outstanding. A host of many virtual agents shares one: all
 * at once, 10,000 calendars flooded the Registry (each unanswered REGISTER is retried after
 * 0.5–10 s, so it fell further behind with every retry: 168,273 REGISTERs for 2,187 REGISTERED in
 * four minutes), and a Registry restart sends every agent back to REGISTER within one heartbeat.
 * A turn ends at REGISTERED or when the agent stops; waiting agents take turns in arrival order.
 */
export class RegistrationGate {
  private readonly holding = new Set<string>();
  private readonly waiting = new Map<string, () => void>();
  /** The most turns out at once so far (tests, logs). */
  peak = 0;

  constructor(readonly limit = REGISTERING_AT_ONCE) {
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`RegistrationGate: limit must be a positive integer, got ${limit}`);
  }

  get outstanding(): number {
    return this.holding.size;
  }

  get queued(): number {
    return this.waiting.size;
  }

  /** `go` now if a turn is free, else when one is; nothing if `key` already holds or waits for one. */
  acquire(key: string, go: () => void): void {
    if (this.holding.has(key) || this.waiting.has(key)) return;
    if (this.holding.size < this.limit) this.take(key, go);
    else this.waiting.set(key, go);
  }

  /** Ends `key`'s turn (or its wait), and gives the turn to the next in line. */
  release(key: string): void {
    this.waiting.delete(key);
    if (!this.holding.delete(key)) return;
    for (const [next, go] of this.waiting) {
      if (this.holding.size >= this.limit) break;
      this.waiting.delete(next);
      this.take(next, go);
    }
  }

  private take(key: string, go: () => void): void {
    this.holding.add(key);
    this.peak = Math.max(this.peak, this.holding.size);
    go();
  }
}

/** How long a REGISTER waits before the next attempt: from 0.5 s doubling to 10 s (the Registry may start later). */
const RETRY = { initialMs: 500, maxMs: 10000 };
/**
 * Gated (a host's many agents): a REGISTER waits behind up to `limit` − 1 others, so an unanswered
 * one is resent after 5 s, not 0.5 s. With 3,000 virtual specialists on the loaded 2-core box a
 * REGISTER's round trip was p50 664 ms, p90 952 ms (64 outstanding; docs/bench.md "Virtual
 * agents"): at 0.5 s most would be resent while still queued, and every copy is verified, written
 * and answered again by the Registry.
 */
export const GATED_RETRY = { initialMs: 5000, maxMs: 30000 };
/** How long the machine waits for the DF's answer to DEREGISTER before it ends anyway. */
const DEREGISTER_TIMEOUT_MS = 1500;

export function registerWithDf(agent: Agent, profile: AgentProfile, opts: DfRegistrationOptions): DfRegistration {
  const key = opts.key ?? `reg-${agent.name}-${randomUUID()}`;
  const gate = opts.gate;
  const group = opts.group;
  const grouped = (p: AgentProfile): AgentProfile => (group ? { ...p, lease_group: group.id } : p);
  group?.join(key, (event) => agent.router.send(key, event));
  const actor = agent.router.start(key, registrationMachine, {
    self: agent.name, jid: agent.self.jid, profile: grouped(profile), conversationId: key, heartbeatMs: opts.heartbeatMs,
    retry: gate ? GATED_RETRY : RETRY, deregisterTimeoutMs: DEREGISTER_TIMEOUT_MS, gated: gate !== undefined, heartbeats: group === undefined,
  }, undefined, { ephemeral: true });
  const onRegistered = opts.onRegistered;
  actor.on('registered', (e: RegistrationEmitted) => {
    if (e.type !== 'registered') return;
    gate?.release(key);
    group?.registered(key, e.lease_ms);
    onRegistered?.({ lease_ms: e.lease_ms, count: e.count });
  });
  if (group) {
    actor.on('queued', () => group.unregistered(key));
    actor.subscribe({ complete: () => group.leave(key), error: () => group.leave(key) });
  }
  if (gate) {
    const turn = () => gate.acquire(key, () => agent.router.send(key, { type: 'GO' }));
    // The first `queued` was emitted while the router started the actor, before this listener.
    actor.on('queued', turn);
    if (actor.getSnapshot().value === 'queued') turn();
    actor.subscribe({ complete: () => gate.release(key), error: () => gate.release(key) });
  }
  return {
    key,
    actor,
    update: (p) => {
      const event: RegistrationEvent = { type: 'PROFILE', profile: grouped(p) };
      agent.router.send(key, event);
    },
    deregister: async (timeoutMs = 2000) => {
      if (!agent.router.send(key, { type: 'DEREGISTER' })) return false;
      return waitFor(actor, (s) => s.status === 'done', { timeout: timeoutMs }).then(() => true, () => false);
    },
  };
}
