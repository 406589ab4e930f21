// One xstate actor per conversation exchange (issue #2 §3): an initiating message creates it,
// replies reach it through in_reply_to, it is removed when it reaches a final state.
// Correlation maps clean up after themselves (xmpp.js iq/caller.js style).
import { type AnyActorRef, type AnyStateMachine, createActor } from 'xstate';
import type { Envelope } from '../acl/index.js';
import type { Logger } from '../log/index.js';
import { BoundedSet } from './bounded.js';
import { DelayedEvents, type PersistedTimer } from './delayed-events.js';
import type { ExchangeEmitted, ExchangeFactory } from './exchange.js';
import type { Identity } from './names.js';
import { type Clock, ExchangeClock, realClock } from './outage-timers.js';

export type RouteResult =
  | { outcome: 'opened'; key: string }
  | { outcome: 'routed'; key: string }
  | { outcome: 'duplicate' }
  | { outcome: 'late' }
  | { outcome: 'broken' }
  | { outcome: 'unhandled' };

export interface RouterOptions {
  logger: Logger;
  /** Called for every envelope an actor emits. */
  send: (envelope: Envelope, key: string) => void;
  note: (conversationId: string, decision: string, detail?: object) => void;
  /** An actor crashed: the agent answers the initiating envelope with FAILURE INTERNAL_ERROR. */
  crashed: (key: string, request: Envelope | undefined, err: unknown) => void;
  clock?: Clock;
  /** Persistence hooks (durable roles, shared/store/exchanges.ts): a record after each transition, and removal. */
  persist?: Persist;
}

/** What a durable role stores per live exchange (docs/runtime.md "Durability"). */
export interface PersistedExchange {
  key: string;
  /** The machine's id: a restored snapshot only runs on the machine it came from. */
  machineId: string;
  conversationId: string;
  /** The initiating envelope (opened by an inbound message) and what the factory was given. */
  request?: Envelope;
  kind?: string;
  from?: Identity;
  /** reply_with of every envelope the actor sent: replies still find it after a restart. */
  outbound: string[];
  snapshot: unknown;
  /**
   * Pending delayed events with absolute deadlines (the router's clock), re-armed at restore;
   * `actor`: the path of child ids of the child actor they belong to (absent: the exchange's own).
   */
  timers: PersistedTimer[];
  /** Envelopes sent in the last second: resent at restore (they may have died in the socket buffer). */
  recent: Array<{ at: number; envelope: Envelope }>;
}

export interface Persist {
  save(key: string, record: PersistedExchange): void;
  /** save(key, build()) at the latest moment that keeps the crash guarantees (ExchangeStore: before the group commit's COMMIT). */
  saveLater?(key: string, build: () => PersistedExchange): void;
  /** `sends`: the envelopes the exchange sent just before it finished (resent after a crash). */
  remove(key: string, sends?: Envelope[]): void;
  /** One transaction for an inbound envelope: its ledger entry and the snapshot it caused. */
  atomically?<T>(fn: () => T): T;
  /** Durable duplicate check: true the first time (sender, reply_with) is seen. */
  firstTime?(dedupeKey: string): boolean;
}

/** How long sent envelopes count as "maybe still in the socket buffer" (see PersistedExchange.recent). */
const RECENT_MS = 1000;

interface Entry {
  actor: AnyActorRef;
  conversationId: string;
  request?: Envelope;
  kind?: string;
  from?: Identity;
  outbound: Set<string>;
  /** Every delay of the exchange runs on it: paused, resumed and moved for outages (outage-timers.ts). */
  clock: ExchangeClock;
  /** Its pending delayed events, to persist and re-arm them (durable exchanges only: delayed-events.ts). */
  delayed?: DelayedEvents;
  recent: PersistedExchange['recent'];
}

export class Router {
  private readonly factories = new Map<string, ExchangeFactory>();
  private readonly actors = new Map<string, Entry>();
  /** reply_with of any envelope an actor sent or was opened by → actor key. */
  private readonly correlation = new Map<string, string>();
  private readonly closed = new BoundedSet(50000);
  private readonly seen = new BoundedSet(100000);

  constructor(private readonly opts: RouterOptions) {}

  on(kind: string, factory: ExchangeFactory): this {
    this.factories.set(kind, factory);
    return this;
  }

  handles(kind: string): boolean {
    return this.factories.has(kind);
  }

  get size(): number {
    return this.actors.size;
  }

  /** Delivers a validated, authorised envelope. */
  deliver(envelope: Envelope, kind: string, from: Identity): RouteResult {
    const p = this.opts.persist;
    return p?.atomically ? p.atomically(() => this.route(envelope, kind, from)) : this.route(envelope, kind, from);
  }

  private route(envelope: Envelope, kind: string, from: Identity): RouteResult {
    // Idempotent by (sender, reply_with): offline redelivery and resent stanzas are processed once
    // (durable roles: also across restarts, through the persisted ledger).
    const dedupeKey = `${from.jid} ${envelope.reply_with}`;
    if (this.seen.has(dedupeKey)) return { outcome: 'duplicate' };
    this.seen.add(dedupeKey);
    if (this.opts.persist?.firstTime && !this.opts.persist.firstTime(dedupeKey)) return { outcome: 'duplicate' };

    if (envelope.in_reply_to !== undefined) {
      const key = this.correlation.get(envelope.in_reply_to);
      if (key !== undefined) {
        const entry = this.actors.get(key);
        if (entry) {
          entry.actor.send({ type: 'inbound', envelope });
          return { outcome: 'routed', key };
        }
      }
      return this.closed.has(envelope.in_reply_to) ? { outcome: 'late' } : { outcome: 'broken' };
    }
    const factory = this.factories.get(kind);
    if (!factory) return { outcome: 'unhandled' };
    const key = `${envelope.conversation_id}/${envelope.reply_with}`;
    const { machine, input } = factory(envelope, from);
    this.launch(key, machine, { input, request: envelope, kind, from });
    return { outcome: 'opened', key };
  }

  /**
   * Starts a locally initiated exchange (e.g. the Presenter's conversation for a chat line).
   * `ephemeral`: never persisted (a DF registration loop, which a restarted agent starts anew).
   */
  start(key: string, machine: AnyStateMachine, input: unknown, request?: Envelope, { ephemeral = false } = {}): AnyActorRef {
    return this.launch(key, machine, { input, ...(request ? { request } : {}), ephemeral });
  }

  /**
   * Restores a persisted exchange (durable roles, before the agent goes online): the snapshot on
   * `machine` (default: the machine the kind's factory builds for the stored request), its
   * correlations, and its timers re-armed for what is left of them (at once when overdue).
   * Invoked promise actors that were running start again (xstate restores them as active).
   * Undefined when the machine is gone or changed: the caller fails the conversation cleanly.
   */
  restore(rec: PersistedExchange, machine?: AnyStateMachine): AnyActorRef | undefined {
    let m = machine;
    let input: unknown;
    if (!m && rec.kind && rec.request && rec.from) {
      const built = this.factories.get(rec.kind)?.(rec.request, rec.from);
      m = built?.machine;
      input = built?.input;
    }
    if (!m || m.id !== rec.machineId) return undefined;
    const snapshot = withFunctions(rec.snapshot, input);
    return this.launch(rec.key, m, { input, snapshot, timers: rec.timers, request: rec.request, kind: rec.kind, from: rec.from, outbound: rec.outbound, recent: rec.recent });
  }

  private now(): number {
    const clock = this.opts.clock as { now?: () => number } | undefined;
    return clock?.now ? clock.now() : Date.now();
  }

  private launch(
    key: string, machine: AnyStateMachine,
    o: {
      input?: unknown; snapshot?: unknown; timers?: PersistedTimer[]; request?: Envelope | undefined; kind?: string | undefined; from?: Identity | undefined;
      outbound?: string[]; recent?: PersistedExchange['recent']; ephemeral?: boolean;
    },
  ): AnyActorRef {
    const { request } = o;
    const persist = o.ephemeral ? undefined : this.opts.persist;
    // The exchange's own clock and, when it is persisted, an inspector that tracks its delayed
    // events: both public xstate options (createActor's `clock` and `inspect`), no scheduler access.
    const clock = new ExchangeClock(this.opts.clock ?? realClock, () => this.now());
    // (A restored exchange is tracked in any case: its re-armed timers must see the cancels.)
    const delayed = persist || o.timers?.length ? new DelayedEvents(clock) : undefined;
    const actor = createActor(machine, {
      input: o.input,
      clock,
      ...(delayed ? { inspect: delayed.inspect } : {}),
      ...(o.snapshot ? { snapshot: o.snapshot as never } : {}),
    });
    const entry: Entry = {
      actor, conversationId: request?.conversation_id ?? key.split('/')[0] ?? key, request, kind: o.kind, from: o.from,
      outbound: new Set(o.outbound ?? []), clock, ...(delayed ? { delayed } : {}), recent: o.recent ?? [],
    };
    // A restored exchange's timers (xstate re-arms none from a snapshot): before start, so the
    // record saved by the first transition already holds them; its children exist from the snapshot.
    if (o.timers?.length) delayed?.rearm(actor, o.timers);
    this.actors.set(key, entry);
    if (request) this.correlation.set(request.reply_with, key);
    for (const id of entry.outbound) this.correlation.set(id, key);
    actor.on('send', (e: ExchangeEmitted) => {
      if (e.type !== 'send') return;
      entry.outbound.add(e.envelope.reply_with);
      this.correlation.set(e.envelope.reply_with, key);
      if (persist) entry.recent.push({ at: this.now(), envelope: e.envelope });
      this.opts.send(e.envelope, key);
    });
    actor.on('note', (e: ExchangeEmitted) => {
      if (e.type === 'note') this.opts.note(entry.conversationId, e.decision, e.detail);
    });
    actor.subscribe({
      next: (snap) => {
        if (snap.status === 'done') this.finish(key);
        else if (persist && snap.status === 'active') {
          if (persist.saveLater) persist.saveLater(key, () => this.record(key, entry, machine.id));
          else persist.save(key, this.record(key, entry, machine.id));
        }
      },
      error: (err) => {
        this.opts.logger.error({ key, err: (err as Error)?.message }, 'exchange actor crashed');
        this.finish(key);
        this.opts.crashed(key, entry.request, err);
      },
    });
    actor.start();
    return actor;
  }

  private record(key: string, entry: Entry, machineId: string): PersistedExchange {
    const now = this.now();
    // The exchange's own timers and its children's (a sub-protocol run as a child actor).
    const timers = entry.delayed?.persisted(entry.actor) ?? [];
    entry.recent = entry.recent.filter((r) => r.at >= now - RECENT_MS);
    return {
      key, machineId, conversationId: entry.conversationId, outbound: [...entry.outbound], snapshot: entry.actor.getPersistedSnapshot(), timers, recent: entry.recent,
      ...(entry.request ? { request: entry.request } : {}), ...(entry.kind ? { kind: entry.kind } : {}), ...(entry.from ? { from: entry.from } : {}),
    };
  }

  /** Sends an event to a live actor (e.g. chat input to the Presenter's conversation). */
  send(key: string, event: { type: string }): boolean {
    const entry = this.actors.get(key);
    if (!entry) return false;
    entry.actor.send(event);
    return true;
  }

  has(key: string): boolean {
    return this.actors.has(key);
  }

  keys(): string[] {
    return [...this.actors.keys()];
  }

  private finish(key: string): void {
    const entry = this.actors.get(key);
    if (!entry) return;
    this.actors.delete(key);
    for (const id of entry.outbound) {
      this.correlation.delete(id);
      this.closed.add(id);
    }
    if (entry.request) {
      this.correlation.delete(entry.request.reply_with);
      this.closed.add(entry.request.reply_with);
    }
    if (this.opts.persist) {
      const since = this.now() - RECENT_MS;
      this.opts.persist.remove(key, entry.recent.filter((r) => r.at >= since).map((r) => r.envelope));
    }
    entry.actor.stop();
    entry.clock.dispose();
  }

  /**
   * Every pending timer of every live exchange moves `ms` later: this agent was cut off from the
   * server (or down) for that long, so its peers could not answer (outage-timers.ts).
   */
  extendTimers(ms: number): number {
    let n = 0;
    for (const entry of this.actors.values()) n += entry.clock.shift(ms);
    return n;
  }

  /**
   * The server went away: every live exchange's timers stop until resumeTimers, and those it sets
   * meanwhile wait too (outage-timers.ts). Exchanges opened during the outage run as usual.
   */
  pauseTimers(): number {
    let n = 0;
    for (const entry of this.actors.values()) n += entry.clock.pause();
    return n;
  }

  /** The server is back: paused timers run again with the time they had left. */
  resumeTimers(): number {
    let n = 0;
    for (const entry of this.actors.values()) n += entry.clock.resume();
    return n;
  }

  stopAll(): void {
    for (const key of [...this.actors.keys()]) {
      const entry = this.actors.get(key);
      this.actors.delete(key);
      entry?.actor.stop();
      entry?.clock.dispose();
    }
  }
}

/** A JSON snapshot loses functions its context held (e.g. a predicate from the factory's input): put them back. */
function withFunctions(snapshot: unknown, input: unknown): unknown {
  if (typeof input !== 'object' || input === null) return snapshot;
  const snap = snapshot as { context?: Record<string, unknown> };
  if (typeof snap?.context !== 'object' || snap.context === null) return snapshot;
  const fns = Object.entries(input as Record<string, unknown>).filter(([k, v]) => typeof v === 'function' && !(k in (snap.context as object)));
  return fns.length === 0 ? snapshot : { ...snap, context: { ...snap.context, ...Object.fromEntries(fns) } };
}
