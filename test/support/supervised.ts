// Tests that run the real supervisor (`node dist/scripts/supervisor.js`, what `npm start` runs through scripts/start.sh):
// start it on a fresh PARLEY_HOME and free ports and wait for its `ready` line; tear-down is
// SIGTERM (it stops every agent and ejabberd), then SIGKILL and a hard ejabberd kill if it hangs,
// then the temporary PARLEY_HOME goes (kept with PARLEY_KEEP_TEST_HOME).
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, type ParleyConfig } from '../../shared/config/index.js';
import { killNode, removeHosts } from '../../shared/ejabberd/operator.js';
import { freePort } from '../../shared/ejabberd/index.js';
import { repoRoot } from '../../shared/runtime/repo-root.js';

export interface Supervised {
  sup: ChildProcess;
  cfg: ParleyConfig;
  env: NodeJS.ProcessEnv;
  /** Every line it printed so far (stdout and stderr), for failure messages. */
  out: string[];
  /** The `… ready in N s — …` line. */
  readyLine: string;
}

/** A fresh home (`prefix`) with free ports and `settings` on top, for a supervisor to start on. */
export async function supervisorEnv(prefix: string, settings: Record<string, string>, prepare?: (home: string) => void): Promise<{ env: NodeJS.ProcessEnv; cfg: ParleyConfig }> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  prepare?.(home);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PARLEY_HOME: home,
    PARLEY_C2S_PORT: String(await freePort()),
    PARLEY_COMPONENT_PORT: String(await freePort()),
    PARLEY_AGENTS_COMPONENT_PORT: String(await freePort()),
    PARLEY_CALENDARS_COMPONENT_PORT: String(await freePort()),
    PARLEY_HTTP_PORT: String(await freePort()),
    PARLEY_DIST_PORT: String(await freePort()),
    PARLEY_CONSOLE_PORT: String(await freePort()),
    PARLEY_STOP_GRACE_MS: '3000',
    ...settings,
  };
  return { env, cfg: loadConfig(env) };
}

/** `node dist/scripts/supervisor.js` (what `npm start` runs) with `env`, its output piped. */
export const spawnSupervisor = (env: NodeJS.ProcessEnv): ChildProcess =>
  spawn(process.execPath, [path.join(repoRoot(), 'dist', 'scripts', 'supervisor.js')], { env, stdio: ['ignore', 'pipe', 'pipe'] });

/**
 * A supervisor on a new home (`prefix`) with free ports and `settings` on top; `prepare(home)`
 * writes files before it starts (roles, skills). Rejects with its output when it exits or is not
 * ready within `timeoutMs`.
 */
export async function startSupervisor(
  prefix: string, settings: Record<string, string>, { prepare, timeoutMs = 150000 }: { prepare?: (home: string) => void; timeoutMs?: number } = {},
): Promise<Supervised> {
  const { env, cfg } = await supervisorEnv(prefix, settings, prepare);
  const out: string[] = [];
  const sup = spawnSupervisor(env);
  const readyLine = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready within ${timeoutMs} ms:\n${out.join('\n')}`)), timeoutMs);
    sup.stdout?.on('data', (b: Buffer) => {
      for (const line of String(b).split('\n').filter(Boolean)) {
        out.push(line);
        if (line.includes('ready in')) {
          clearTimeout(timer);
          resolve(line);
        }
      }
    });
    sup.stderr?.on('data', (b: Buffer) => out.push(String(b)));
    sup.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`supervisor exited ${code}:\n${out.join('\n')}`));
    });
  });
  return { sup, cfg, env, out, readyLine };
}

/** A suite's `after`: the people's connections (any may be missing or already gone), then the supervisor. */
export async function stopWith(people: ReadonlyArray<{ close(): Promise<unknown> } | undefined>, sup: ChildProcess | undefined, cfg: ParleyConfig | undefined): Promise<void> {
  await Promise.all(people.map((p) => p?.close().catch(() => undefined)));
  await stopSupervisor(sup, cfg);
}

export async function stopSupervisor(sup: ChildProcess | undefined, cfg: ParleyConfig | undefined, graceMs = 30000): Promise<void> {
  if (sup && sup.exitCode === null && sup.signalCode === null) {
    sup.kill('SIGTERM');
    await Promise.race([new Promise((r) => sup.once('exit', r)), new Promise((r) => setTimeout(r, graceMs))]);
    if (sup.exitCode === null && sup.signalCode === null) {
      sup.kill('SIGKILL');
      if (cfg) for (let i = 1; i <= cfg.ejabberdNodes; i++) killNode(cfg, i);
    }
  }
  if (cfg && !process.env.PARLEY_KEEP_TEST_HOME) {
    // A cluster's network namespaces, veths and bridge (shared/ejabberd/hosts.ts): the supervisor
    // removes them when it stops the cluster, but not when it had to be killed.
    await removeHosts(cfg).catch(() => undefined);
    fs.rmSync(cfg.home, { recursive: true, force: true });
  }
}
