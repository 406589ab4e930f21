// The set of supervised agents: start, restart (ManagedChild), stop one without restart, add a
// specialist at run time, and stop everything in order. Console wording is the caller's: every
// event goes to `say` as one readable line.
import { type BackoffOptions, DEFAULT_BACKOFF } from './backoff.js';
import { type ChildInfo, ManagedChild } from './child.js';
import type { AgentSpec } from './spec.js';

export interface SupervisorOptions {
  env: NodeJS.ProcessEnv;
  logsDir: string;
  say: (line: string) => void;
  backoff?: BackoffOptions;
  /** SIGTERM → SIGKILL grace per agent. */
  graceMs?: number;
}

/** An agent gave up starting (ManagedChild status `failed`), with the last error it printed. */
export class FailedToStart extends Error {
  constructor(readonly agent: string, readonly reason: string | undefined) {
    super(`${agent} failed to start ${reason ? `(${reason}) ` : ''}and is not restarted; see logs/${agent}.log`);
  }
}

const fmtS = (ms: number) => `${(ms / 1000).toFixed(ms < 10000 ? 2 : 1)} s`;

export class Supervisor {
  private readonly children = new Map<string, ManagedChild>();
  private stopping = false;
  /** Every agent of the start was ready once: each child is told, and each one ready later. */
  private systemReady = false;

  constructor(private readonly opts: SupervisorOptions) {}

  get graceMs(): number {
    return this.opts.graceMs ?? 5000;
  }

  has(name: string): boolean {
    return this.children.has(name);
  }

  list(): ChildInfo[] {
    return [...this.children.values()].map((c) => c.info());
  }

  add(spec: AgentSpec): ManagedChild {
    if (this.stopping) throw new Error('the supervisor is stopping');
    if (this.children.has(spec.name)) throw new Error(`${spec.name} is already supervised`);
    const child = new ManagedChild(spec, { env: this.opts.env, logsDir: this.opts.logsDir, backoff: this.opts.backoff ?? DEFAULT_BACKOFF });
    const { say } = this.opts;
    child.on('ready', (ms) => {
      if (child.restarts > 0) say(`${spec.name} is back (${spec.readyOn} in ${fmtS(ms)}, pid ${child.pid}, restart #${child.restarts})`);
      if (this.systemReady) child.tell({ type: 'system-ready' });
    });
    child.on('exit', (code, signal, restartIn) => {
      const how = signal ? `killed by ${signal}` : `exited with code ${code}`;
      if (restartIn !== null) say(`${spec.name} ${how}; restart #${child.restarts} in ${restartIn} ms (log: logs/${spec.name}.log)`);
      else if (!this.stopping) say(`${spec.name} stopped (${how})`);
    });
    child.on('error', (msg) => say(`error: ${msg}`));
    // Scale-down: an extra that had nothing to do stops and leaves the list (its name is free again).
    child.on('idle', () => {
      if (!spec.extra || this.stopping) return;
      say(`${spec.name} was idle: stopping it (scale-down)`);
      void child.stop(this.graceMs).then(() => {
        if (this.children.get(spec.name) === child) this.children.delete(spec.name);
      });
    });
    this.children.set(spec.name, child);
    child.start();
    return child;
  }

  /**
   * Resolves once every named child is ready (after its latest start); rejects at once with a
   * FailedToStart when one gave up (status `failed`: it kept dying at start), else after timeoutMs.
   */
  whenReady(names: string[], timeoutMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const pending = () => names.filter((n) => this.children.get(n)?.status !== 'ready');
      const check = () => {
        const failed = cs.find((c) => c.status === 'failed');
        if (failed) {
          cleanup();
          reject(new FailedToStart(failed.spec.name, failed.lastError));
          return;
        }
        if (pending().length > 0) return;
        cleanup();
        resolve();
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`not ready after ${timeoutMs} ms: ${pending().join(', ')}`));
      }, timeoutMs);
      const cs = names.map((n) => this.children.get(n)).filter((c): c is ManagedChild => c !== undefined);
      const cleanup = () => {
        clearTimeout(timer);
        for (const c of cs) {
          c.off('ready', check);
          c.off('exit', check);
        }
      };
      for (const c of cs) {
        c.on('ready', check);
        c.on('exit', check);
      }
      check();
    });
  }

  /**
   * Every agent of the start is ready (`npm start`'s ready line): tells each child, and from now on
   * each child that becomes ready (a restart, a spawn). A specialist warms its skills' workers then
   * (ipc.ts whenSystemReady), not while the other agents are still starting (issue 15).
   */
  markSystemReady(): void {
    this.systemReady = true;
    for (const c of this.children.values()) if (c.status === 'ready') c.tell({ type: 'system-ready' });
  }

  /** Stops one agent and keeps it down (POST /stop). */
  async stopOne(name: string): Promise<ChildInfo> {
    const child = this.require(name);
    await child.stop(this.graceMs);
    return child.info();
  }

  /** Starts a stopped agent again (POST /start). */
  startOne(name: string): ChildInfo {
    const child = this.require(name);
    child.failedStarts = 0; // an operator's explicit start gets a fresh set of tries
    child.start();
    return child.info();
  }

  async stopAll(): Promise<void> {
    this.stopping = true;
    await Promise.all([...this.children.values()].map((c) => c.stop(this.graceMs)));
  }

  killAll(): void {
    this.stopping = true;
    for (const c of this.children.values()) c.kill();
  }

  private require(name: string): ManagedChild {
    const child = this.children.get(name);
    if (!child) throw new Error(`no agent named ${JSON.stringify(name)}; see GET /agents`);
    return child;
  }
}
