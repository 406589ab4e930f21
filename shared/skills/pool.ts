// Worker threads for one skill (issue "Skills, roles and spawning": isolation). Each worker runs
// one call at a time under V8 resourceLimits (the memory limit) and a timer (the time limit): a
// call that runs too long has its worker terminated (FAILURE TIMEOUT), a worker that throws
// outside a call, runs out of memory or exits takes only its own call with it (FAILURE
// INTERNAL_ERROR). New workers replace dead ones on demand; the specialist keeps serving.
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ParleyError } from '../acl/errors.js';
import type { SkillResult } from './handler-api.js';
import type { Recognition } from './manifest.js';
import type { FromWorker, ToWorker } from './wire.js';

const WORKER_SCRIPT = fileURLToPath(new URL('./worker.js', import.meta.url));

export interface CallRequest {
  method: 'use' | 'a2a';
  target: string;
  input: Record<string, unknown>;
  session_id: string;
}

export interface PoolOptions {
  name: string;
  handlerPath: string;
  /** Busts the ESM import cache when the handler changed (hot reload). */
  fingerprint: string;
  recognise: Recognition;
  timeoutMs: number;
  memoryMb: number;
  maxWorkers: number;
  keepIdle?: number;
  /**
   * How long a worker beyond `keepIdle` stays idle before it is stopped (default 30 s). Stopping
   * it as soon as a burst ends made the next burst start workers again: a skill's worker costs
   * ~1 s of CPU to start (mathjs), which was most of the full flow's CPU under load (issue #3).
   */
  idleMs?: number;
  startTimeoutMs?: number;
  onCall?: (call: CallRequest) => Promise<unknown>;
  onLog?: (line: string) => void;
}

interface Current {
  id: number;
  resolve: (v: unknown) => void;
  reject: (e: ParleyError) => void;
}

class PoolWorker {
  busy = false;
  dead = false;
  isReady = false;
  current: Current | undefined;
  /** Stops this idle extra worker unless a call takes it first (SkillPool.release). */
  idleTimer: NodeJS.Timeout | undefined;
  readonly ready: Promise<void>;
  readonly worker: Worker;

  constructor(private readonly o: PoolOptions, onGone: (w: PoolWorker) => void) {
    const url = `${pathToFileURL(o.handlerPath).href}?v=${o.fingerprint}`;
    this.worker = new Worker(WORKER_SCRIPT, {
      workerData: { name: o.name, handlerUrl: url, recognise: o.recognise },
      resourceLimits: { maxOldGenerationSizeMb: o.memoryMb, maxYoungGenerationSizeMb: Math.max(2, Math.min(16, Math.floor(o.memoryMb / 4))), stackSizeMb: 4 },
      stdout: true,
      stderr: true,
    });
    for (const s of [this.worker.stdout, this.worker.stderr]) s.on('data', (b: Buffer) => o.onLog?.(String(b).trimEnd()));
    this.ready = new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`did not start within ${o.startTimeoutMs ?? 15000} ms`)), o.startTimeoutMs ?? 15000);
      this.worker.on('message', (m: FromWorker) => {
        if (m.type === 'ready') resolve();
        else if (m.type === 'init-error') reject(new Error(m.detail));
        else if (m.type === 'done') this.finish(m.id, m.ok ? { ok: true, value: m.value } : { ok: false, error: new ParleyError(m.error.code, m.error.detail) });
        else if (m.type === 'call') void this.serve(m.callId, m);
        if (m.type === 'ready' || m.type === 'init-error') clearTimeout(timer);
      });
      this.worker.on('error', (err: Error & { code?: string }) => {
        const detail = err.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? `the ${o.name} skill ran out of memory (limit ${o.memoryMb} MB)`
          : `the ${o.name} skill crashed: ${err.message}`;
        reject(new Error(detail));
        this.gone(new ParleyError('INTERNAL_ERROR', detail), onGone);
      });
      this.worker.on('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`exited with code ${code} while starting`));
        this.gone(new ParleyError('INTERNAL_ERROR', `the ${o.name} skill's worker exited (code ${code})`), onGone);
      });
    });
    this.ready.catch(() => undefined);
  }

  private gone(err: ParleyError, onGone: (w: PoolWorker) => void): void {
    if (this.current) this.finish(this.current.id, { ok: false, error: err });
    if (this.dead) return;
    this.dead = true;
    onGone(this);
  }

  private finish(id: number, r: { ok: true; value: unknown } | { ok: false; error: ParleyError }): void {
    const c = this.current;
    if (!c || c.id !== id) return;
    this.current = undefined;
    if (r.ok) c.resolve(r.value);
    else c.reject(r.error);
  }

  private async serve(callId: number, m: CallRequest): Promise<void> {
    let reply: ToWorker;
    try {
      if (!this.o.onCall) throw new ParleyError('INTERNAL_ERROR', 'this skill may not call other skills');
      reply = { type: 'reply', callId, ok: true, value: await this.o.onCall({ method: m.method, target: m.target, input: m.input, session_id: m.session_id }) };
    } catch (err) {
      const e = err instanceof ParleyError ? err : new ParleyError('INTERNAL_ERROR', (err as Error).message);
      const code = e.code === 'INVALID_ARGS' || e.code === 'TIMEOUT' ? e.code : 'INTERNAL_ERROR';
      reply = { type: 'reply', callId, ok: false, error: { code, detail: e.detail } };
    }
    if (!this.dead) this.worker.postMessage(reply);
  }

  terminate(): void {
    clearTimeout(this.idleTimer);
    this.dead = true;
    void this.worker.terminate();
  }
}

export class SkillPool {
  private readonly workers = new Set<PoolWorker>();
  /** Calls waiting for a worker; recognitions (`urgent`) ahead of runs. */
  private readonly waiting: Array<{ resolve: (w: PoolWorker) => void; reject: (e: ParleyError) => void; urgent: boolean }> = [];
  private nextId = 0;
  private closed = false;

  constructor(readonly o: PoolOptions) {}

  get size(): number {
    return this.workers.size;
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

  recognise(question: string, timeoutMs: number): Promise<number> {
    return this.call({ op: 'recognise', question }, timeoutMs) as Promise<number>;
  }

  run(input: Record<string, unknown>, session_id: string, signal?: AbortSignal): Promise<SkillResult> {
    return this.call({ op: 'run', input, session_id }, this.o.timeoutMs, signal) as Promise<SkillResult>;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const waiter of this.waiting.splice(0)) waiter.reject(new ParleyError('INTERNAL_ERROR', `the ${this.o.name} skill was unloaded`));
    for (const w of this.workers) w.terminate();
    this.workers.clear();
  }

  private spawn(): PoolWorker {
    const w = new PoolWorker(this.o, (gone) => this.workers.delete(gone));
    this.workers.add(w);
    // A worker that finished starting serves the longest-waiting call.
    w.ready.then(() => {
      w.isReady = true;
      if (!w.busy && !w.dead) this.handOver(w);
    }, (err: Error) => {
      // It could not start (its init failed this time): the waiting calls fail, not hang.
      for (const waiter of this.waiting.splice(0)) waiter.reject(new ParleyError('INTERNAL_ERROR', `the ${this.o.name} skill cannot start: ${err.message}`));
    });
    return w;
  }

  private warming(): boolean {
    return [...this.workers].some((w) => !w.dead && !w.isReady);
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
   * cold worker imports its handler: seconds for mathjs on a loaded machine). One spare keeps
   * warming so concurrent calls rarely wait for a start. An `urgent` call (a recognition, which
   * decides the AGREE the Coordinator waits for within AGREE_TIMEOUT) is served before queued runs.
   */
  private acquire(urgent = false): Promise<PoolWorker> {
    if (this.closed) return Promise.reject(new ParleyError('INTERNAL_ERROR', `the ${this.o.name} skill was unloaded`));
    const idle = [...this.workers].filter((w) => !w.busy && !w.dead && w.isReady);
    const room = this.workers.size < this.o.maxWorkers;
    if (idle[0]) {
      if (idle.length === 1 && room && !this.warming()) this.spawn();
      clearTimeout(idle[0].idleTimer);
      idle[0].busy = true;
      return Promise.resolve(idle[0]);
    }
    if (room && !this.warming()) this.spawn();
    return new Promise((resolve, reject) => {
      const at = urgent ? this.waiting.findIndex((x) => !x.urgent) : -1;
      this.waiting.splice(at === -1 ? this.waiting.length : at, 0, { resolve, reject, urgent });
    });
  }

  private release(w: PoolWorker): void {
    w.busy = false;
    if (this.closed) return w.terminate();
    if (w.dead) {
      // Queued calls get a fresh worker instead of the one that died or was stopped.
      this.workers.delete(w);
      if (this.waiting.length > 0 && !this.warming()) this.spawn();
      return;
    }
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
      if (signal?.aborted) throw new ParleyError('INTERNAL_ERROR', 'cancelled');
      const id = ++this.nextId;
      return await new Promise<unknown>((resolve, reject) => {
        const stop = (err: ParleyError) => {
          w.current = undefined;
          w.terminate(); // the only way to stop code that does not yield
          this.workers.delete(w);
          reject(err);
        };
        const timer = setTimeout(() => stop(new ParleyError('TIMEOUT', `the ${this.o.name} skill took longer than ${timeoutMs} ms and was stopped`)), timeoutMs);
        const onAbort = () => stop(new ParleyError('INTERNAL_ERROR', 'cancelled'));
        signal?.addEventListener('abort', onAbort, { once: true });
        const done = () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
        };
        w.current = { id, resolve: (v) => (done(), resolve(v)), reject: (e) => (done(), reject(e)) };
        w.worker.postMessage({ type: 'op', id, ...op } satisfies ToWorker);
      });
    } finally {
      this.release(w);
    }
  }
}
