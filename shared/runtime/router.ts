// One xstate actor per conversation exchange (issue #2 §3): an initiating message creates it,
// replies reach it through in_reply_to, it is removed when it reaches a final state.
// Correlation maps clean up after themselves (xmpp.js iq/caller.js style).
import { type ActorOptions, type AnyActorRef, type AnyStateMachine, type AnyActorLogic, createActor } from 'xstate';

type Clock = NonNullable<ActorOptions<AnyActorLogic>['clock']>;
import type { Envelope } from '../acl/envelope.js';
import type { Logger } from '../log/index.js';
import type { ExchangeEmitted, ExchangeFactory } from './exchange.js';
import type { Identity } from './names.js';

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
  /** Persistence hooks (durable roles): a snapshot after each transition, and removal. */
  persist?: { save(key: string, snapshot: unknown): void; remove(key: string): void };
}

interface Entry {
  actor: AnyActorRef;
  conversationId: string;
  request?: Envelope;
  outbound: Set<string>;
}

/** A bounded set that forgets its oldest members (replay/duplicate and late-reply memory). */
export class BoundedSet {
  private readonly items = new Set<string>();
  constructor(private readonly max: number) {}
  has(k: string): boolean {
    return this.items.has(k);
  }
  add(k: string): void {
    this.items.add(k);
    if (this.items.size > this.max) this.items.delete(this.items.values().next().value as string);
  }
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
    // Idempotent by (sender, reply_with): offline redelivery and resent stanzas are processed once.
    const dedupeKey = `${from.jid} ${envelope.reply_with}`;
    if (this.seen.has(dedupeKey)) return { outcome: 'duplicate' };
    this.seen.add(dedupeKey);

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
    this.start(key, machine, input, envelope);
    return { outcome: 'opened', key };
  }

  /** Starts a locally initiated exchange (e.g. the Presenter's conversation for a chat line). */
  start(key: string, machine: AnyStateMachine, input: unknown, request?: Envelope, snapshot?: unknown): AnyActorRef {
    const actor = createActor(machine, {
      input,
      ...(this.opts.clock ? { clock: this.opts.clock } : {}),
      ...(snapshot ? { snapshot: snapshot as never } : {}),
    });
    const entry: Entry = { actor, conversationId: request?.conversation_id ?? key.split('/')[0] ?? key, request, outbound: new Set() };
    this.actors.set(key, entry);
    if (request) this.correlation.set(request.reply_with, key);
    actor.on('send', (e: ExchangeEmitted) => {
      if (e.type !== 'send') return;
      entry.outbound.add(e.envelope.reply_with);
      this.correlation.set(e.envelope.reply_with, key);
      this.opts.send(e.envelope, key);
    });
    actor.on('note', (e: ExchangeEmitted) => {
      if (e.type === 'note') this.opts.note(entry.conversationId, e.decision, e.detail);
    });
    actor.subscribe({
      next: (snap) => {
        if (snap.status === 'done') this.finish(key);
        else if (this.opts.persist && snap.status === 'active') this.opts.persist.save(key, actor.getPersistedSnapshot());
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
    this.opts.persist?.remove(key);
    entry.actor.stop();
  }

  stopAll(): void {
    for (const key of [...this.actors.keys()]) {
      const entry = this.actors.get(key);
      this.actors.delete(key);
      entry?.actor.stop();
    }
  }
}
