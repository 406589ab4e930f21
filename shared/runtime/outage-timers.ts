// Exchange timers and outages (issue 12): while an agent is cut off from the server (or down for a
// restart) nobody can answer it, so that time must not count against its peers. Each exchange's
// actor runs on its own ExchangeClock, given through xstate's public `clock` option (issue 10 §2):
// every delay of the exchange — xstate's own (`after`, delayed raise/sendTo, of the root and of
// its children, which share the root's system) and those the router re-arms at a restore — is a
// setTimeout on this clock, so the router pauses, resumes and moves them all here without touching
// xstate's scheduler. xstate keeps the handle we return and clears it on cancel or stop; we only
// change when the base clock calls back.
import type { ActorOptions, AnyActorLogic } from 'xstate';

/** xstate's Clock (setTimeout/clearTimeout); its type is not exported by name. */
export type Clock = NonNullable<ActorOptions<AnyActorLogic>['clock']>;

/** Real timers, as xstate's default clock. */
export const realClock: Clock = {
  setTimeout: (fn: () => void, ms: number) => setTimeout(fn, ms),
  clearTimeout: (id: ReturnType<typeof setTimeout>) => clearTimeout(id),
};

interface Timer {
  fn: () => void;
  /** Deadline on the exchange's time (ExchangeClock.now): unchanged by pauses and shifts. */
  at: number;
  /** The base clock's handle while armed. */
  base: unknown;
}

/**
 * One exchange's clock over the router's base clock (real timers, or a SimulatedClock in tests).
 * Its time lags the base clock by what the exchange waited out (outages, downtime) and stands
 * still while paused; deadlines are kept on its time, so a pause or a shift is one number for the
 * deadlines and a re-arm of the base timers, whatever xstate or the router scheduled.
 */
export class ExchangeClock implements Clock {
  private lag = 0;
  private pausedAt: number | undefined;
  private readonly timers = new Map<number, Timer>();
  private nextId = 1;

  constructor(private readonly base: Clock, private readonly baseNow: () => number) {}

  /** The exchange's time: the base clock's less what it waited out; frozen while paused. */
  now(): number {
    return (this.pausedAt ?? this.baseNow()) - this.lag;
  }

  get pending(): number {
    return this.timers.size;
  }

  get paused(): boolean {
    return this.pausedAt !== undefined;
  }

  setTimeout(fn: () => void, ms: number): number {
    const id = this.nextId++;
    const timer: Timer = { fn, at: this.now() + ms, base: undefined };
    this.timers.set(id, timer);
    // Set while paused (the exchange moved on during an outage): it waits for the resume too.
    if (this.pausedAt === undefined) this.arm(id, timer);
    return id;
  }

  clearTimeout(id: number): void {
    const timer = this.timers.get(id);
    if (!timer) return;
    this.timers.delete(id);
    this.disarm(timer);
  }

  /** The base clock's time at which a deadline on this clock falls as things stand (paused: counted from now). */
  toBase(at: number): number {
    return this.baseNow() + Math.max(0, at - this.now());
  }

  /** A deadline on this clock for a base-clock deadline (a restored timer's). */
  fromBase(deadline: number): number {
    return this.now() + Math.max(0, deadline - this.baseNow());
  }

  /** The server went away: nothing fires until resume(). Returns the timers stopped. */
  pause(): number {
    if (this.pausedAt !== undefined) return 0;
    this.pausedAt = this.baseNow();
    for (const timer of this.timers.values()) this.disarm(timer);
    return this.timers.size;
  }

  /** The server is back: every timer runs again with the time it had left. Returns the timers re-armed. */
  resume(): number {
    if (this.pausedAt === undefined) return 0;
    this.lag += this.baseNow() - this.pausedAt;
    this.pausedAt = undefined;
    for (const [id, timer] of this.timers) this.arm(id, timer);
    return this.timers.size;
  }

  /** Every pending timer fires `ms` later (the process was down that long). Returns the timers moved. */
  shift(ms: number): number {
    if (!(ms > 0)) return 0;
    this.lag += ms;
    if (this.pausedAt === undefined) {
      for (const [id, timer] of this.timers) {
        this.disarm(timer);
        this.arm(id, timer);
      }
    }
    return this.timers.size;
  }

  /** The exchange ended: nothing of it may fire any more. */
  dispose(): void {
    for (const timer of this.timers.values()) this.disarm(timer);
    this.timers.clear();
  }

  private arm(id: number, timer: Timer): void {
    timer.base = this.base.setTimeout(() => {
      // A base callback that outlived a disarm (a clock that cannot cancel in flight) does nothing.
      if (this.timers.get(id) !== timer) return;
      this.timers.delete(id);
      timer.base = undefined;
      timer.fn();
    }, Math.max(0, timer.at - this.now()));
  }

  private disarm(timer: Timer): void {
    if (timer.base === undefined) return;
    this.base.clearTimeout(timer.base);
    timer.base = undefined;
  }
}
