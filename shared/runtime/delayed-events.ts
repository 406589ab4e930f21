// The pending delayed events of one durable exchange (docs/runtime.md "Durability", issue 10 §2),
// known through xstate's public inspection API rather than its scheduler's private state:
// - `@xstate.action` xstate.raise / xstate.sendTo with a numeric delay: a delayed event is
//   scheduled (params {event, id, delay}; sendTo also {to}); `actorRef` is its owner, the root or
//   a child (children share the root's system, so one inspector sees them all);
// - `@xstate.action` xstate.cancel (params {sendId}): its owner cancelled it (the state exited);
// - `@xstate.event` from the owner carrying the scheduled event object itself: it fired.
// With that the router persists each one (owner path, id, event, absolute deadline) and, at a
// restore, re-arms it on the exchange's ExchangeClock and delivers it with the public
// `actor.send` — xstate re-arms nothing from a persisted snapshot.
import type { AnyActorRef, AnyEventObject, InspectionEvent } from 'xstate';
import type { ExchangeClock } from './outage-timers.js';

/** A delayed event as PersistedExchange.timers stores it (the format older rows have too). */
export interface PersistedTimer {
  id: string;
  event: unknown;
  /** Absolute deadline on the router's clock. */
  deadline: number;
  /** The path of child ids of the actor it belongs to (absent: the exchange's own). */
  actor?: string;
  /** A delayed sendTo to another actor of the exchange: the target's path ('' = the root). */
  to?: string;
}

interface Delayed {
  id: string;
  event: AnyEventObject;
  /** Deadline on the exchange's clock (ExchangeClock.now). */
  at: number;
  /** A delayed sendTo's params: xstate fills in `to` after the action ran, so it is read at persist time. */
  send?: { to?: unknown };
  /** Set when the router armed it itself (restored): its ExchangeClock handle and target path. */
  handle?: number;
  toPath?: string;
}

type Params = { event: AnyEventObject; id?: string; delay?: unknown; to?: unknown };

/** The exchange's actor and its live descendants, each with its path of child ids ('' for the root). */
export function actorTree(root: AnyActorRef): Map<AnyActorRef, string> {
  const tree = new Map<AnyActorRef, string>([[root, '']]);
  const walk = (actor: AnyActorRef, path: string): void => {
    const children = (actor.getSnapshot() as { children?: Record<string, AnyActorRef | undefined> } | undefined)?.children ?? {};
    for (const [id, child] of Object.entries(children)) {
      if (!child || tree.has(child)) continue;
      const childPath = path ? `${path}/${id}` : id;
      tree.set(child, childPath);
      walk(child, childPath);
    }
  };
  walk(root, '');
  return tree;
}

/** The actor at `path` (child ids from `root`), if it is still there. */
export function actorAt(root: AnyActorRef, path: string | undefined): AnyActorRef | undefined {
  let actor: AnyActorRef | undefined = root;
  for (const id of path ? path.split('/') : []) {
    actor = (actor?.getSnapshot() as { children?: Record<string, AnyActorRef | undefined> } | undefined)?.children?.[id];
  }
  return actor;
}

export class DelayedEvents {
  /** Owner (the root or a child) → its pending delayed events by send id (xstate cancels by owner and id). */
  private readonly owners = new Map<AnyActorRef, Map<string, Delayed>>();
  /** A delayed raise without an id cannot be cancelled; it still needs a key. */
  private anonymous = 0;

  constructor(private readonly clock: ExchangeClock) {}

  /**
   * The `inspect` observer. It runs for every action and event of the exchange (issue 15: hot
   * path), so it tests the types first and allocates only for a delayed event; a cancelled or
   * fired one is looked for only while there are any. (A child that stopped or finished leaves
   * the tree: persisted() forgets its timers at the next save, deliver() never sends to it.)
   */
  readonly inspect = (ev: InspectionEvent): void => {
    if (ev.type === '@xstate.action') {
      const type = ev.action.type;
      if (type === 'xstate.raise' || type === 'xstate.sendTo') {
        const p = ev.action.params as Params;
        if (typeof p.delay === 'number') this.add(ev.actorRef as AnyActorRef, p, p.delay, type === 'xstate.sendTo');
      } else if (type === 'xstate.cancel') {
        if (this.owners.size > 0) this.cancel(ev.actorRef as AnyActorRef, (ev.action.params as { sendId?: string }).sendId);
      }
    } else if (ev.type === '@xstate.event') {
      if (this.owners.size > 0 && ev.sourceRef !== undefined) this.fired(ev.sourceRef as AnyActorRef, ev.event);
    }
  };

  get size(): number {
    let n = 0;
    for (const m of this.owners.values()) n += m.size;
    return n;
  }

  /**
   * What PersistedExchange.timers holds for the exchange rooted at `root`: each pending delayed
   * event of a live actor with its deadline on the base clock (as things stand: a paused clock
   * counts the time left from now). Owners no longer in the tree are forgotten here.
   */
  persisted(root: AnyActorRef): PersistedTimer[] {
    if (this.owners.size === 0) return [];
    const tree = actorTree(root);
    const out: PersistedTimer[] = [];
    for (const [owner, pending] of this.owners) {
      const path = tree.get(owner);
      if (path === undefined || pending.size === 0) {
        this.dropOwner(owner);
        continue;
      }
      for (const d of pending.values()) {
        const to = d.send ? this.targetPath(d.send.to, owner, tree) : d.toPath;
        // A delayed sendTo outside the exchange cannot be delivered after a restart: not persisted.
        if (to === null) continue;
        out.push({ id: d.id, event: d.event, deadline: this.clock.toBase(d.at), ...(path ? { actor: path } : {}), ...(to !== undefined ? { to } : {}) });
      }
    }
    return out;
  }

  /**
   * Re-arms persisted timers on the exchange restored at `root` (before it starts: its children
   * are there from the snapshot). Each is delivered with `send` when due, at once when overdue,
   * unless its owner cancelled it, was stopped or finished meanwhile.
   */
  rearm(root: AnyActorRef, timers: PersistedTimer[]): void {
    for (const t of timers) {
      const owner = actorAt(root, t.actor);
      if (!owner || typeof (t.event as { type?: unknown })?.type !== 'string') continue;
      const d: Delayed = { id: t.id, event: t.event as AnyEventObject, at: this.clock.fromBase(t.deadline), ...(t.to !== undefined ? { toPath: t.to } : {}) };
      this.put(owner, d);
      d.handle = this.clock.setTimeout(() => this.deliver(root, owner, d), d.at - this.clock.now());
    }
  }

  private deliver(root: AnyActorRef, owner: AnyActorRef, d: Delayed): void {
    const pending = this.owners.get(owner);
    // Cancelled, replaced or forgotten meanwhile (its clock handle is cleared then; this is the backstop).
    if (pending?.get(d.id) !== d) return;
    pending.delete(d.id);
    // An owner that was stopped or finished without a save after it ignores the event (xstate
    // drops what is sent to a stopped actor), as it would have dropped its own timer.
    (d.toPath === undefined ? owner : actorAt(root, d.toPath))?.send(d.event);
  }

  private add(owner: AnyActorRef, p: Params, delay: number, isSendTo: boolean): void {
    const id = p.id ?? `xstate.anonymous.${++this.anonymous}`;
    this.put(owner, { id, event: p.event, at: this.clock.now() + delay, ...(isSendTo ? { send: p } : {}) });
  }

  private put(owner: AnyActorRef, d: Delayed): void {
    let pending = this.owners.get(owner);
    if (!pending) this.owners.set(owner, (pending = new Map()));
    // One pending event per (owner, id), as xstate keys them: a re-armed restored one is replaced.
    const old = pending.get(d.id);
    if (old?.handle !== undefined) this.clock.clearTimeout(old.handle);
    pending.set(d.id, d);
  }

  private cancel(owner: AnyActorRef, id: string | undefined): void {
    const pending = this.owners.get(owner);
    const d = id === undefined ? undefined : pending?.get(id);
    if (!pending || !d) return;
    pending.delete(d.id);
    if (d.handle !== undefined) this.clock.clearTimeout(d.handle);
  }

  /** xstate delivered one of its own delayed events (the same object it was given): the earliest such. */
  private fired(owner: AnyActorRef, event: AnyEventObject): void {
    const pending = this.owners.get(owner);
    if (!pending) return;
    let first: Delayed | undefined;
    for (const d of pending.values()) if (d.event === event && d.handle === undefined && (!first || d.at < first.at)) first = d;
    if (first) pending.delete(first.id);
  }

  private dropOwner(owner: AnyActorRef): void {
    const pending = this.owners.get(owner);
    if (!pending) return;
    for (const d of pending.values()) if (d.handle !== undefined) this.clock.clearTimeout(d.handle);
    this.owners.delete(owner);
  }

  /** A sendTo target's path in the exchange; undefined when it is the owner itself, null when outside it. */
  private targetPath(to: unknown, owner: AnyActorRef, tree: Map<AnyActorRef, string>): string | undefined | null {
    if (to === undefined || to === owner) return undefined;
    return tree.get(to as AnyActorRef) ?? null;
  }
}
