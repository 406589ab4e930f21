// Sandboxed worker processes for one skill (sandbox.ts; docs/skills.md "Sandbox"). Each worker
// runs one call at a time under the sandbox's memory limit and a timer (the time limit): a call
// that runs too long has its worker killed (FAILURE TIMEOUT), a worker that throws outside a
// call, runs out of memory or exits takes only its own call with it (FAILURE INTERNAL_ERROR).
// New workers replace dead ones on demand; the specialist keeps serving.
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ParleyError } from '../acl/index.js';
import type { SkillResult } from './handler-api.js';
import type { Recognition } from './manifest.js';
import { sandboxCommand, type SandboxSpec, stageSkillDir } from './sandbox.js';
import type { FromWorker, ToWorker } from './wire.js';

const WORKER_SCRIPT = fileURLToPath(new URL('./worker.js', import.meta.url));

export interface CallRequest {
  method: 'use' | 'a2a' | 'llm';
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
  /** Capabilities the skill declared and the operator granted (sandbox.ts). */
  grants?: SandboxSpec['grants'];
  /** The worker offers ctx.llm (served by onCall, method 'llm'). */
  llm?: boolean;
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
  /** The last lines the worker printed (the reason it died, if it did). */
  lastOutput = '';
  current: Current | undefined;
  /** Stops this idle extra worker unless a call takes it first (SkillPool.release). */
  idleTimer: NodeJS.Timeout | undefined;
  readonly ready: Promise<void>;
  readonly worker: ChildProcess;

  constructor(private readonly o: PoolOptions, onGone: (w: PoolWorker) => void) {
    const skillDir = stageSkillDir(path.dirname(o.handlerPath), o.name, o.fingerprint);
    const handler = path.join(skillDir, path.relative(path.dirname(o.handlerPath), o.handlerPath));
    const url = `${pathToFileURL(handler).href}?v=${o.fingerprint}`;
    const cmd = sandboxCommand({
      script: WORKER_SCRIPT,
      args: [JSON.stringify({ name: o.name, handlerUrl: url, recognise: o.recognise, ...(o.llm ? { llm: true } : {}) })],
      skillDir, memoryMb: o.memoryMb, ...(o.grants ? { grants: o.grants } : {}),
    });
    // Only granted variables: no secret, path or setting of the specialist reaches the skill.
    // Its own process group, so terminate() ends the whole chain (unshare → setpriv → prlimit →
    // node): the parent-death signal of unshare --kill-child does not survive setpriv's change of
    // user. A worker whose specialist died sees its IPC channel close and exits (worker.ts).
    this.worker = spawn(cmd.command, cmd.args, { env: { ...o.grants?.env }, stdio: ['ignore', 'pipe', 'pipe', 'ipc'], serialization: 'advanced', detached: true });
    for (const s of [this.worker.stdout, this.worker.stderr]) {
      s?.on('data', (b: Buffer) => {
        const text = String(b).trimEnd();
        this.lastOutput = (this.lastOutput + '\n' + text).slice(-4000);
        o.onLog?.(text);
      });
    }
    this.ready = new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`did not start within ${o.startTimeoutMs ?? 15000} ms`)), o.startTimeoutMs ?? 15000);
      this.worker.on('message', (m: FromWorker) => {
        if (m.type === 'ready') resolve();
        else if (m.type === 'init-error') reject(new Error(m.detail));
        else if (m.type === 'done') this.finish(m.id, m.ok ? { ok: true, value: m.value } : { ok: false, error: new ParleyError(m.error.code, m.error.detail) });
        else if (m.type === 'call') void this.serve(m.callId, m);
        if (m.type === 'ready' || m.type === 'init-error') clearTimeout(timer);
      });
      this.worker.on('error', (err: Error) => {
        const detail = `the ${o.name} skill's sandbox could not run: ${err.message}`;
        reject(new Error(detail));
        this.gone(new ParleyError('INTERNAL_ERROR', detail), onGone);
      });
      this.worker.on('exit', (code, signal) => {
        clearTimeout(timer);
        const out = this.lastOutput;
        const oom = /out of memory|allocation failed|Reached heap limit/i.test(out) || signal === 'SIGABRT' || code === 134;
        const error = /^\w*Error: (.*)$/m.exec(out)?.[1];
        const how = oom ? `ran out of memory (limit ${o.memoryMb} MB)`
          : error ? `crashed: ${error.slice(0, 300)}`
          : signal ? `was killed (${signal})` : `exited (code ${code})`;
        reject(new Error(`${how} while starting`));
        this.gone(new ParleyError('INTERNAL_ERROR', `the ${o.name} skill ${how}`), onGone);
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
    if (!this.dead && this.worker.connected) this.worker.send(reply);
  }

  terminate(): void {
    clearTimeout(this.idleTimer);
    this.dead = true;
    if (this.worker.connected) this.worker.disconnect();
    try {
      if (this.worker.pid !== undefined) process.kill(-this.worker.pid, 'SIGKILL'); // the whole group
    } catch {
      this.worker.kill('SIGKILL'); // already gone, or no group of its own
    }
  }
}

export class SkillPool {
  private readonly workers = new Set<PoolWorker>();
  /** Calls waiting for a worker; recognitions (`urgent`) ahead of runs. */
  private readonly waiting: Array<{ resolve: (w: PoolWorker) => void; reject: (e: ParleyError) => void; urgent: boolean }> = [];
  private nextId = 0;
  private closed = false;
  /** Workers that died on their own (crash, exit, out of memory): the warm-up judges by it. */
  deaths = 0;

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
      if (this.waiting.length > 0 && this.workers.size < this.o.maxWorkers && !this.warming() && !this.closed) this.spawn();
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
        if (!w.worker.connected) return stop(new ParleyError('INTERNAL_ERROR', `the ${this.o.name} skill's sandbox is gone`));
        w.worker.send({ type: 'op', id, ...op } satisfies ToWorker);
      });
    } finally {
      this.release(w);
    }
  }
}
