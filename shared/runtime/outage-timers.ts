// Exchange timers and outages (issue 12): while an agent is cut off from the server (or down for a
// restart) nobody can answer it, so the time must not count against its peers. xstate's scheduler
// has no "postpone": a delayed event is cancelled and scheduled again under the same id.
import type { AnyActorRef } from 'xstate';

export interface TimedEntry {
  actor: AnyActorRef;
  /** Delayed-event id → absolute deadline on the router's clock (durable roles). */
  deadlines: Map<string, number>;
}

interface Pending {
  source: AnyActorRef;
  target: AnyActorRef;
  event: unknown;
  delay: number;
  id: string;
  startedAt: number;
}

interface Scheduler {
  schedule(source: AnyActorRef, target: AnyActorRef, event: unknown, delay: number, id: string): void;
  cancel(source: AnyActorRef, id: string): void;
}

/**
 * The exchange's actor and its live descendants (invoked or spawned children, e.g. the DF lookup
 * of agents/coordinator/registry-lookup.ts), each with its path of child ids from the root ('' for
 * the root): a child's delayed events belong to the exchange as much as the root's.
 */
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

/** The key of a delayed event in TimedEntry.deadlines: its id, prefixed with its actor's path for a child's. */
export const timerKey = (path: string, id: string): string => (path ? `${path}/${id}` : id);

/** The actor at `path` (child ids from `root`), if it is still there. */
export function actorAt(root: AnyActorRef, path: string | undefined): AnyActorRef | undefined {
  let actor: AnyActorRef | undefined = root;
  for (const id of path ? path.split('/') : []) {
    actor = (actor?.getSnapshot() as { children?: Record<string, AnyActorRef | undefined> } | undefined)?.children?.[id];
  }
  return actor;
}

const systemOf = (entry: TimedEntry) => entry.actor.system as unknown as { getSnapshot(): { _scheduledEvents: Record<string, Pending> }; scheduler: Scheduler };

/** The entry's own pending delayed events (its actor's and its children's), each with the time it has left. */
function pendingOf(entry: TimedEntry, routerNow: number): Array<{ p: Pending; key: string; left: number }> {
  const now = Date.now();
  const tree = actorTree(entry.actor);
  return Object.values(systemOf(entry).getSnapshot()._scheduledEvents)
    .filter((p) => tree.has(p.source))
    .map((p) => {
      // A durable exchange knows its deadline on the router's clock; otherwise xstate's own start time.
      const key = timerKey(tree.get(p.source) as string, p.id);
      const deadline = entry.deadlines.get(key);
      return { p, key, left: Math.max(0, deadline !== undefined ? deadline - routerNow : p.startedAt + p.delay - now) };
    });
}

/** Every pending timer of `entries` fires `ms` later than it would have; durable deadlines move with it. */
export function shiftTimers(entries: Iterable<TimedEntry>, ms: number, routerNow: number): number {
  if (!(ms > 0)) return 0;
  let moved = 0;
  for (const entry of entries) {
    const { scheduler } = systemOf(entry);
    for (const { p, key, left } of pendingOf(entry, routerNow)) {
      scheduler.cancel(p.source, p.id);
      scheduler.schedule(p.source, p.target, p.event, left + ms, p.id);
      const deadline = entry.deadlines.get(key);
      if (deadline !== undefined) entry.deadlines.set(key, deadline + ms);
      moved += 1;
    }
  }
  return moved;
}

/**
 * Timers stopped while the server is away and started again, with the time each had left, when
 * it is back. Moving them only at the reconnect was too late: a 3 s DF timeout ran out during a
 * 6 s ejabberd restart and the person was told "could not reach the directory" at once.
 */
export class TimerPause {
  private paused = new Map<TimedEntry, Array<{ p: Pending; key: string; left: number }>>();

  get active(): boolean {
    return this.paused.size > 0;
  }

  pause(entries: Iterable<TimedEntry>, routerNow: number): number {
    let n = 0;
    for (const entry of entries) {
      if (this.paused.has(entry)) continue;
      const pending = pendingOf(entry, routerNow);
      if (pending.length === 0) continue;
      const { scheduler } = systemOf(entry);
      for (const { p } of pending) scheduler.cancel(p.source, p.id);
      this.paused.set(entry, pending);
      n += pending.length;
    }
    return n;
  }

  /** Re-arms what was paused for the entries still `live`; deadlines become now + time left. */
  resume(live: (entry: TimedEntry) => boolean, routerNow: number): number {
    let n = 0;
    for (const [entry, pending] of this.paused) {
      if (!live(entry)) continue;
      const { scheduler } = systemOf(entry);
      // A child that ended meanwhile (its parent left the state that invoked it) keeps no timer.
      const tree = actorTree(entry.actor);
      for (const { p, key, left } of pending) {
        if (!tree.has(p.source)) continue;
        scheduler.schedule(p.source, p.target, p.event, left, p.id);
        if (entry.deadlines.has(key)) entry.deadlines.set(key, routerNow + left);
        n += 1;
      }
    }
    this.paused.clear();
    return n;
  }
}
