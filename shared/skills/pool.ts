// Sandboxed worker processes for one skill (sandbox.ts; docs/skills.md "Sandbox"). Each worker
// runs one call at a time under the sandbox's memory limit and a timer (the time limit): a call
// that runs too long has its worker killed (FAILURE TIMEOUT), a worker that throws outside a
// call, runs out of memory or exits takes only its own call with it (FAILURE INTERNAL_ERROR).
// New workers replace dead ones on demand; the specialist keeps serving.
import { ParleyError } from '../acl/index.js';
import type { SkillResult } from './handler-api.js';
import { PoolWorker, type PoolOptions } from './pool-worker.js';
import type { ToWorker } from './wire.js';

export type { CallRequest, PoolOptions } from './pool-worker.js';

/** A pool starts its first worker and one spare on demand at once; more only for calls that wait (grow). */
const SPARE_UPTO = 2;
/** How long a call waits, with no worker finishing a call meanwhile, before the pool starts another (grow). */
const GROW_AFTER_MS = 50;

type Op =
  | { op: 'recognise'; question: string }
  | { op: 'run'; input: Record<string, unknown>; session_id: string }
  | { op: 'serve'; question: string; input: Record<string, unknown>; session_id: string };

/**
 * A recognition whose run went straight on in the same worker (SkillPool.claim): `result` when
 * the skill claimed the question (score > 0); `cancel` stops that run (CANCEL, COMPUTE_TIMEOUT,
 * or nobody took it).
 */
export interface Claim {
  score: number;
  result?: Promise<SkillResult>;
  cancel: () => void;
}

export class SkillPool {
  private readonly workers = new Set<PoolWorker>();
  /** Calls waiting for a worker; recognitions (`urgent`) ahead of runs. */
  private readonly waiting: Array<{ resolve: (w: PoolWorker) => void; reject: (e: ParleyError) => void; urgent: boolean; since: number }> = [];
  /** Armed while calls wait and the pool has its two workers: grows it if one waits GROW_AFTER_MS. */
  private growTimer: NodeJS.Timeout | undefined;
  /** When a worker last finished a call (performance.now()): the pool is making progress. */
  private lastRelease = 0;
  private nextId = 0;
  private closed = false;
  /** Workers that died on their own (crash, exit, out of memory): the warm-up judges by it. */
  deaths = 0;
  /** Inside withoutSpare(): taking the last idle worker starts no spare. */
  private spareless = 0;

  constructor(readonly o: PoolOptions) {}

  get size(): number {
    return this.workers.size;
  }

  /** Workers still starting (importing their handler). */
  get starting(): number {
    let n = 0;
    for (const w of this.workers) if (!w.dead && !w.isReady) n += 1;
    return n;
  }

  /** Starts one worker and waits until the handler loaded (init() ran): a bad handler rejects. */
  async warm(): Promise<void> {
    const w = this.spawn();
    try {
      await w.ready;
    } catch (err) {
      w.terminate();
      this.workers.delete(w);
      throw err;
    }
  }

  /**
   * Runs `fn` (the warm-up's own calls, host.ts) without starting the spare worker that taking the
   * last idle one starts: at start-up that spare was a second sandboxed process per skill (mathjs:
   * ≈ 0.5 s of CPU) competing with every agent's start on a shared machine (issue 15). The first
   * question after start-up takes the last idle worker and starts the spare then.
   */
  async withoutSpare<T>(fn: () => Promise<T>): Promise<T> {
    this.spareless += 1;
    try {
      return await fn();
    } finally {
      this.spareless -= 1;
    }
  }

  /**
   * Recognises and, when the skill claims the question, runs it at once in the same worker: one
   * dispatch instead of a recognition and then a run, with the main thread in between
   * (docs/bench.md, issue 15). In an idle worker now, or, with every worker busy and no run
   * queued, in the next one free (among the recognitions); with runs queued undefined, so a claimed
   * run never overtakes them, and the caller recognises and runs as before.
   * A failure before the recognition (crash, `recogniseMs` passed) is a score of 0, as in
   * recognise(); after it, it is the run's failure.
   */
  claim(question: string, input: Record<string, unknown>, session_id: string, recogniseMs: number): Promise<Claim> | undefined {
    const w = this.idleWorker();
    if (w) return this.serveIn(w, question, input, session_id, recogniseMs);
    // A burst of questions (one socket read of ten) then costs one dispatch each, not a
    // recognition and then a run.
    if (this.closed || this.waiting.some((x) => !x.urgent)) return undefined;
    return this.acquire(true).then(
      (worker) => this.serveIn(worker, question, input, session_id, recogniseMs),
      () => ({ score: 0, cancel: () => undefined }),
    );
  }

  private serveIn(w: PoolWorker, question: string, input: Record<string, unknown>, session_id: string, recogniseMs: number): Promise<Claim> {
    // No AbortController per question: dispatch hands back its stop function (measured CPU).
    const handle: { stop?: () => void } = {};
    const cancel = () => handle.stop?.();
    return new Promise<Claim>((resolve) => {
      const result = this.dispatch(w, { op: 'serve', question, input, session_id }, recogniseMs, undefined, (score) => {
        resolve({ score, result: result as Promise<SkillResult>, cancel });
      }, handle).finally(() => this.release(w));
      // Not claimed: `done` carries the score; failed before any recognition: 0.
      result.then((v) => resolve({ score: typeof v === 'number' ? v : 0, cancel }), () => resolve({ score: 0, cancel }));
    });
  }

  recognise(question: string, timeoutMs: number): Promise<number> {
    return this.call({ op: 'recognise', question }, timeoutMs) as Promise<number>;
  }

  run(input: Record<string, unknown>, session_id: string, signal?: AbortSignal): Promise<SkillResult> {
    return this.call({ op: 'run', input, session_id }, this.o.timeoutMs, signal) as Promise<SkillResult>;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.growTimer);
    for (const waiter of this.waiting.splice(0)) waiter.reject(new ParleyError('INTERNAL_ERROR', `the ${this.o.name} skill was unloaded`));
    for (const w of this.workers) w.terminate();
    this.workers.clear();
  }

  private spawn(): PoolWorker {
    const w = new PoolWorker(this.o, (gone) => {
      this.deaths += 1;
      this.workers.delete(gone);
    });
    this.workers.add(w);
    // A worker that finished starting serves the longest-waiting call.
    w.ready.then(() => {
      w.isReady = true;
      if (!w.busy && !w.dead) this.handOver(w);
      // Calls still waiting (a burst, or the tasks a restarted specialist restored all at once):
      // the next worker starts now. Before, only a new call started one, so calls that queued
      // together were served by the few workers there were (3 for 35 restored tasks).
      if (this.waiting.length > 0) this.grow();
    }, (err: Error) => {
      // It could not start (its init failed this time): the waiting calls fail, not hang.
      for (const waiter of this.waiting.splice(0)) waiter.reject(new ParleyError('INTERNAL_ERROR', `the ${this.o.name} skill cannot start: ${err.message}`));
    });
    return w;
  }

  /** A started idle worker, marked busy, or undefined; the last idle one has a spare start warming. */
  private idleWorker(): PoolWorker | undefined {
    if (this.closed) return undefined;
    let first: PoolWorker | undefined;
    let idle = 0;
    for (const w of this.workers) {
      if (w.busy || w.dead || !w.isReady) continue;
      first ??= w;
      if (++idle > 1) break;
    }
    if (!first) return undefined;
    if (idle === 1 && this.spareless === 0 && this.workers.size < this.spareLimit && this.starting === 0) this.spawn();
    clearTimeout(first.idleTimer);
    first.busy = true;
    return first;
  }

  /** The first worker and its spare start at once; more only through grow. */
  private get spareLimit(): number {
    return Math.min(SPARE_UPTO, this.o.maxWorkers);
  }

  /** Gives an idle worker to the first waiting call; false when nobody waits. */
  private handOver(w: PoolWorker): boolean {
    const next = this.waiting.shift();
    if (!next) return false;
    clearTimeout(w.idleTimer);
    w.busy = true; // taken now: no other call may find it idle in between
    next.resolve(w);
    return true;
  }

  /**
   * An idle worker that has started, at once; otherwise the call waits for whichever comes
   * first: a busy worker finishing (recognition takes a millisecond) or a new one starting (a
   * cold worker imports its handler: seconds for mathjs on a loaded machine; grow decides when).
   * An `urgent` call (a recognition, which
   * decides the AGREE the Coordinator waits for within AGREE_TIMEOUT) is served before queued runs.
   */
  private acquire(urgent = false): Promise<PoolWorker> {
    if (this.closed) return Promise.reject(new ParleyError('INTERNAL_ERROR', `the ${this.o.name} skill was unloaded`));
    const idle = this.idleWorker();
    if (idle) return Promise.resolve(idle);
    const waiter = new Promise<PoolWorker>((resolve, reject) => {
      const at = urgent ? this.waiting.findIndex((x) => !x.urgent) : -1;
      this.waiting.splice(at === -1 ? this.waiting.length : at, 0, { resolve, reject, urgent, since: performance.now() });
    });
    this.grow();
    return waiter;
  }

  /**
   * Another worker for the calls waiting, if the pool may have one: at once while it has fewer than
   * two (the first and its spare), otherwise once a call has waited GROW_AFTER_MS while no worker
   * finished one. A burst of short calls (a socket read of ten questions, served in a millisecond
   * each) waits less than that, and on a machine whose cores are all busy a queue of them waits
   * longer while its workers keep finishing calls: another worker would only share the same cores,
   * and each new sandboxed worker costs ≈ 0.4 s of CPU (mathjs's import). Growing at every
   * momentary wait took the math specialist's pool to six workers in a 2,000-conversation full
   * flow, ≈ 1–1.8 ms of CPU per conversation (docs/bench.md, stop 36). Calls that hold their
   * workers (seconds of work, or waiting for ctx.use) leave the pool without a finished call for
   * that long: it grows as before, one worker after another.
   */
  private grow(): void {
    if (this.closed || this.waiting.length === 0 || this.workers.size >= this.o.maxWorkers || this.starting > 0) return;
    if (this.workers.size < this.spareLimit) {
      this.spawn();
      return;
    }
    const now = performance.now();
    const waited = now - Math.min(...this.waiting.map((x) => x.since));
    const stalled = now - this.lastRelease;
    if (waited >= GROW_AFTER_MS && stalled >= GROW_AFTER_MS) {
      this.spawn();
      return;
    }
    if (this.growTimer) return;
    this.growTimer = setTimeout(() => {
      this.growTimer = undefined;
      this.grow();
    }, GROW_AFTER_MS - Math.min(waited, stalled));
    this.growTimer.unref();
  }

  private release(w: PoolWorker): void {
    w.busy = false;
    if (this.closed) return w.terminate();
    if (w.dead) {
      // Queued calls get a fresh worker in place of the one that died or was stopped (grow: at
      // once below two workers, otherwise when they wait).
      this.workers.delete(w);
      if (this.waiting.length > 0) this.grow();
      return;
    }
    this.lastRelease = performance.now(); // a call finished: the pool makes progress (grow)
    if (this.handOver(w)) return;
    const idle = [...this.workers].filter((x) => !x.busy && !x.dead).length;
    if (idle > (this.o.keepIdle ?? 2)) {
      clearTimeout(w.idleTimer);
      w.idleTimer = setTimeout(() => {
        const stillIdle = [...this.workers].filter((x) => !x.busy && !x.dead).length;
        if (w.busy || w.dead || stillIdle <= (this.o.keepIdle ?? 2)) return;
        w.terminate();
        this.workers.delete(w);
      }, this.o.idleMs ?? 30000);
      w.idleTimer.unref();
    }
  }

  private async call(op: { op: 'recognise'; question: string } | { op: 'run'; input: Record<string, unknown>; session_id: string }, timeoutMs: number, signal?: AbortSignal): Promise<unknown> {
    const w = await this.acquire(op.op === 'recognise'); // marked busy
    try {
      await w.ready.catch((err: Error) => {
        throw new ParleyError('INTERNAL_ERROR', `the ${this.o.name} skill cannot start: ${err.message}`);
      });
      return await this.dispatch(w, op, timeoutMs, signal);
    } finally {
      this.release(w);
    }
  }

  /**
   * Sends one op to a worker this call holds and waits for its `done`, killing the worker past
   * `timeoutMs` or on `signal`. A `serve` op's `recognised` restarts the timer with the skill's
   * own time limit (the run that follows) and is passed to `onRecognised`.
   */
  private dispatch(w: PoolWorker, op: Op, timeoutMs: number, signal?: AbortSignal, onRecognised?: (score: number) => void, handle?: { stop?: () => void }): Promise<unknown> {
    if (signal?.aborted) return Promise.reject(new ParleyError('INTERNAL_ERROR', 'cancelled'));
    const id = ++this.nextId;
    return new Promise<unknown>((resolve, reject) => {
      const stop = (err: ParleyError) => {
        w.current = undefined;
        w.terminate(); // the only way to stop code that does not yield
        this.workers.delete(w);
        reject(err);
      };
      const overrun = (ms: number) => setTimeout(() => stop(new ParleyError('TIMEOUT', `the ${this.o.name} skill took longer than ${ms} ms and was stopped`)), ms);
      let timer = overrun(timeoutMs);
      const onAbort = () => stop(new ParleyError('INTERNAL_ERROR', 'cancelled'));
      if (handle) handle.stop = () => w.current?.id === id && onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      w.current = { id, resolve: (v) => (done(), resolve(v)), reject: (e) => (done(), reject(e)) };
      if (onRecognised) {
        w.current.recognised = (score) => {
          clearTimeout(timer);
          timer = overrun(this.o.timeoutMs);
          onRecognised(score);
        };
      }
      if (!w.worker.connected) return stop(new ParleyError('INTERNAL_ERROR', `the ${this.o.name} skill's sandbox is gone`));
      w.worker.send({ type: 'op', id, ...op } satisfies ToWorker);
    });
  }
}
