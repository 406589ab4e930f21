// One supervised agent process: spawned with the instance's environment, stdout/stderr appended
// to $PARLEY_HOME/logs/<name>.log, readiness read from its pino lines, restarted with back-off
// when it dies unless asked to stop.
import { type ChildProcess, spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { Backoff, type BackoffOptions } from './backoff.js';
import { childEnv } from './child-env.js';
import { isChildMessage, type SupervisorMessage } from './ipc.js';
import type { AgentSpec } from './spec.js';

/** `failed`: it exited before becoming ready maxFailedStarts times in a row and is not restarted. */
export type ChildStatus = 'starting' | 'ready' | 'backoff' | 'stopping' | 'stopped' | 'failed';

export interface ChildInfo {
  name: string;
  kind: AgentSpec['kind'];
  pid: number | null;
  status: ChildStatus;
  restarts: number;
  /** Seconds since the current process started (null when not running). */
  uptime_s: number | null;
  experts?: string[];
  role?: string;
  extra?: boolean;
  /** Why it is `failed`: the last error it printed before its last exit (stderr or a pino error line). */
  last_error?: string;
}

export interface ChildEvents {
  ready: [ms: number];
  exit: [code: number | null, signal: NodeJS.Signals | null, restartInMs: number | null];
  /** A pino line at level error (50) or above: worth a console line. */
  error: [msg: string];
  /** {type: 'idle'} (ipc.ts): a specialist with nothing to do for its --idle-after-ms (scale-down). */
  idle: [];
}

export class ManagedChild extends EventEmitter<ChildEvents> {
  status: ChildStatus = 'stopped';
  restarts = 0;
  /** Exits in a row before `ready` (reset when it becomes ready). */
  failedStarts = 0;
  /** The last error line of the current or last process (a start failure's reason, for the report). */
  lastError: string | undefined;
  private proc: ChildProcess | undefined;
  private startedAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly backoff: Backoff;
  private exited: Promise<void> = Promise.resolve();

  constructor(
    readonly spec: AgentSpec,
    private readonly opts: { env: NodeJS.ProcessEnv; logsDir: string; backoff: BackoffOptions },
  ) {
    super();
    this.backoff = new Backoff(opts.backoff);
  }

  get pid(): number | null {
    return this.proc?.pid ?? null;
  }

  info(): ChildInfo {
    const running = this.proc !== undefined;
    return {
      name: this.spec.name,
      kind: this.spec.kind,
      pid: this.pid,
      status: this.status,
      restarts: this.restarts,
      uptime_s: running ? Math.round((Date.now() - this.startedAt) / 100) / 10 : null,
      ...(this.spec.experts ? { experts: this.spec.experts } : {}),
      ...(this.spec.role ? { role: this.spec.role } : {}),
      ...(this.spec.extra ? { extra: true } : {}),
      ...(this.status === 'failed' && this.lastError ? { last_error: this.lastError } : {}),
    };
  }

  start(): void {
    clearTimeout(this.timer);
    if (this.proc) return;
    fs.mkdirSync(this.opts.logsDir, { recursive: true });
    const log = fs.createWriteStream(path.join(this.opts.logsDir, `${this.spec.name}.log`), { flags: 'a', mode: 0o600 });
    // A log that cannot be written (its folder removed, a full disk) is said, never an uncaught
    // 'error' that ends the supervisor and every agent with it (seen in CI: a test removed the
    // logs folder while a stopped child's log was still opening).
    log.once('error', (err) => this.emit('error', `${this.spec.name}: its log cannot be written: ${err.message}`));
    // The fourth descriptor is the IPC channel the child tells readiness and idleness on (ipc.ts).
    const proc = spawn(this.spec.command, this.spec.args, { env: childEnv(this.spec, this.opts.env), stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    proc.on('message', (m) => this.onMessage(m));
    this.proc = proc;
    this.status = 'starting';
    this.startedAt = Date.now();
    this.lastError = undefined;
    proc.stdout?.pipe(log, { end: false });
    proc.stderr?.pipe(log, { end: false });
    if (proc.stdout) readline.createInterface({ input: proc.stdout }).on('line', (line) => this.onLine(line));
    // A process that dies at start usually says why on stderr (commander's `error: …`, an uncaught throw).
    if (proc.stderr) readline.createInterface({ input: proc.stderr }).on('line', (line) => {
      const text = line.trim();
      if (text !== '' && !/^\s*at\s/.test(text)) this.lastError = text.slice(0, 300);
    });
    const stderrClosed = new Promise<void>((resolve) => (proc.stderr ? proc.stderr.once('close', () => resolve()) : resolve()));
    this.exited = new Promise((resolve) => {
      proc.once('exit', (code, signal) => {
        // Died before ready: its last words on stderr may still be in the pipe; they are the
        // reason the failure report gives (waited for briefly: a grandchild may hold the pipe).
        const lastWords = this.status === 'starting' ? Promise.race([stderrClosed, new Promise((r) => setTimeout(r, 200))]) : Promise.resolve();
        // `exited` resolves once the log is closed too, so whoever awaits a stop finds it complete.
        void lastWords.then(() => new Promise<void>((closed) => {
          if (log.destroyed) closed();
          else log.end(() => closed());
          log.once('error', () => closed());
        })).then(() => {
          this.onExit(code, signal);
          resolve();
        });
      });
    });
    proc.once('error', (err) => this.emit('error', `${this.spec.name}: cannot start: ${err.message}`));
  }

  /** Tells the running child something (ipc.ts SupervisorMessage); a child without a channel is not told. */
  tell(message: SupervisorMessage): void {
    const proc = this.proc;
    if (!proc?.connected) return;
    proc.send(message, (err) => {
      if (err) this.emit('error', `${this.spec.name}: ${err.message}`);
    });
  }

  private onMessage(m: unknown): void {
    if (!isChildMessage(m)) return;
    if (m.type === 'ready' && m.moment === this.spec.readyOn && this.status === 'starting') {
      this.status = 'ready';
      this.failedStarts = 0;
      this.emit('ready', Date.now() - this.startedAt);
    }
    if (m.type === 'idle' && this.status === 'ready') this.emit('idle');
  }

  /** Errors the child logged (pino level ≥ 50) become the supervisor's error lines. */
  private onLine(line: string): void {
    if (!line.startsWith('{')) return;
    let rec: { msg?: unknown; level?: unknown; err?: unknown };
    try {
      rec = JSON.parse(line) as typeof rec;
    } catch {
      return;
    }
    if (typeof rec.level === 'number' && rec.level >= 50) {
      this.lastError = `${String(rec.msg)}${rec.err ? ` (${String(rec.err)})` : ''}`.slice(0, 300);
      this.emit('error', `${this.spec.name}: ${String(rec.msg)}${rec.err ? ` (${String(rec.err)})` : ''}`);
    }
  }

  private onExit(code: number | null, signal: NodeJS.Signals | null): void {
    this.proc = undefined;
    if (this.status === 'stopping' || this.status === 'stopped') {
      this.status = 'stopped';
      this.emit('exit', code, signal, null);
      return;
    }
    if (this.status === 'starting') this.failedStarts += 1;
    const limit = this.opts.backoff.maxFailedStarts;
    if (limit !== undefined && this.failedStarts >= limit) {
      this.status = 'failed';
      this.emit('exit', code, signal, null);
      const why = this.lastError ? `: ${this.lastError}` : '';
      this.emit('error', `${this.spec.name} failed to start ${this.failedStarts} times in a row; not restarting it${why} (log: logs/${this.spec.name}.log)`);
      return;
    }
    const delay = this.backoff.next(Date.now() - this.startedAt);
    this.status = 'backoff';
    this.restarts += 1;
    this.emit('exit', code, signal, delay);
    this.timer = setTimeout(() => this.start(), delay);
  }

  /** SIGTERM, then SIGKILL after `graceMs`; no restart afterwards. */
  async stop(graceMs: number): Promise<void> {
    clearTimeout(this.timer);
    const proc = this.proc;
    if (!proc) {
      this.status = 'stopped';
      return;
    }
    this.status = 'stopping';
    proc.kill('SIGTERM');
    const killer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(killer);
  }

  /** At once, no grace (a second Ctrl-C). */
  kill(): void {
    clearTimeout(this.timer);
    this.status = 'stopping';
    this.proc?.kill('SIGKILL');
  }
}

/**
 * Runs `repair` whenever `child` died before it was ready and will be started again: it runs
 * during the back-off (≥ 250 ms), so the next start finds it done. The supervisor sets a core
 * agent's password again this way (provisionCore trusts an account ejabberd lists).
 */
export function onFailedStart(child: ManagedChild, repair: () => Promise<unknown>, onError: (err: Error) => void): void {
  child.on('exit', (_code, _signal, restartIn) => {
    if (restartIn !== null && child.failedStarts > 0) repair().catch(onError);
  });
}
