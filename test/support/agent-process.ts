// Real agent processes for integration tests: `node dist/<script>` with the instance's env,
// pino lines collected from stdout, ready when a line with msg "online" appears.
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from '../../shared/runtime/repo-root.js';

export interface AgentProcess {
  child: ChildProcess;
  lines: string[];
  /** Resolves with the first log line whose msg equals `msg` (parsed), rejects on exit or timeout. */
  waitFor(msg: string, timeoutMs?: number): Promise<Record<string, unknown>>;
  stop(): Promise<number | null>;
}

const running = new Set<ChildProcess>();

export function spawnAgent(script: string, env: Record<string, string>): AgentProcess {
  const child = spawn(process.execPath, [path.join(repoRoot(), 'dist', script)], {
    env: { ...process.env, PARLEY_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  child.on('exit', () => running.delete(child));
  const lines: string[] = [];
  const waiters: Array<(line: Record<string, unknown>) => void> = [];
  let buf = '';
  const onData = (chunk: Buffer) => {
    buf += chunk.toString('utf8');
    let nl;
    while ((nl = buf.indexOf('\n')) !== -1) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      lines.push(line);
      try {
        const parsed = JSON.parse(line) as Record<string, unknown>;
        for (const w of [...waiters]) w(parsed);
      } catch {
        // not a pino line (e.g. a stack trace on stderr)
      }
    }
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  return {
    child,
    lines,
    waitFor: (msg, timeoutMs = 15000) => new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${script}: no "${msg}" within ${timeoutMs} ms\n${lines.join('\n')}`)), timeoutMs);
      const onExit = (code: number | null) => reject(new Error(`${script} exited (${code}) before "${msg}"\n${lines.join('\n')}`));
      child.once('exit', onExit);
      waiters.push((line) => {
        if (line.msg !== msg) return;
        clearTimeout(timer);
        child.off('exit', onExit);
        resolve(line);
      });
    }),
    stop: () => new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
      child.once('exit', (code) => resolve(code));
      child.kill('SIGTERM');
    }),
  };
}

/** Kills agent processes a failed test left behind (only the ones this module started). */
export function killAgents(): void {
  for (const c of running) c.kill('SIGKILL');
  running.clear();
}
