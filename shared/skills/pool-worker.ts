// One sandboxed worker process of a skill's pool (pool.ts): starts the sandbox (sandbox.ts),
// carries one call at a time over the IPC channel and serves the calls its skill makes (ctx.use,
// ctx.a2a, ctx.llm) through the pool's onCall. It reports its death to the pool (onGone) with the
// reason; the call it was running fails with that reason, nothing else does.
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ParleyError } from '../acl/index.js';
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

export interface Current {
  id: number;
  resolve: (v: unknown) => void;
  reject: (e: ParleyError) => void;
  /** A `serve` call: the skill claimed the question and its run goes on (wire.ts). */
  recognised?: (score: number) => void;
}

export class PoolWorker {
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
        else if (m.type === 'recognised') { if (this.current?.id === m.id) this.current.recognised?.(m.score); }
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
