// `npm run bench -- --start N` (issue 15: "`npm start` with ejabberd already running: ready ≤ 1.5 s"):
// what `npm start` runs after its set-up (scripts/start.sh: the supervisor, every agent and the
// console), started N times against the bench's running ejabberd, each timed from its spawn to
// its "parley ready in" line. The line is read from a pipe as it comes (a poller would take CPU
// from the start it times); the machine's busy time between the two moments comes from
// /proc/stat (both cores: the start is CPU-bound). A first start, not counted, provisions the
// accounts and keys, as the first `npm start` of an installation does.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { freePort } from '../ejabberd/index.js';
import type { TempInstance } from '../ejabberd/operator.js';
import { repoRoot } from '../runtime/repo-root.js';
import { freshBundle } from '../supervisor/index.js';
import { latency } from './scenario.js';

export interface StartRun {
  /** From the spawn of scripts/start.sh to its ready line (ms). */
  readyMs: number;
  /** The supervisor's own figure in that line (s, from its first line of code; one decimal). */
  lineS: number;
  /** CPU time of the whole machine (every core) meanwhile (ms). */
  busyMs: number;
}

/** Busy time of all cores so far (user, nice, system, irq, softirq, steal), in ms. */
function busyMsNow(): number {
  const f = (fs.readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = f;
  return (user + nice + system + irq + softirq + steal) * 10; // USER_HZ = 100 on Linux
}

const READY = /parley ready in ([\d.]+) s/;

/** One start: spawn, the ready line, SIGTERM, and the supervisor's orderly stop. */
async function startOnce(env: NodeJS.ProcessEnv, timeoutMs: number): Promise<StartRun> {
  const busy0 = busyMsNow();
  const t0 = performance.now();
  const child = spawn('sh', ['scripts/start.sh'], { cwd: repoRoot(), env, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => { stderr = (stderr + d.toString()).slice(-2000); });
  try {
    return await new Promise<StartRun>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ready line within ${timeoutMs} ms; stderr: ${stderr}`)), timeoutMs);
      const lines = readline.createInterface({ input: child.stdout });
      lines.on('line', (line) => {
        const m = READY.exec(line);
        if (!m) return;
        clearTimeout(timer);
        resolve({ readyMs: performance.now() - t0, lineS: Number(m[1]), busyMs: busyMsNow() - busy0 });
      });
      child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`the supervisor exited (${code}) before its ready line; stderr: ${stderr}`)); });
    });
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

/**
 * `runs` timed starts after one untimed. Between two starts the last one's agents and ejabberd's
 * sessions of them are given `settleMs` to go: a start right after a stop was 0.2–0.4 s slower.
 */
export async function measureStart(instance: TempInstance, runs: number, settleMs = 3000, timeoutMs = 60000): Promise<StartRun[]> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...instance.env, PARLEY_CONSOLE_PORT: String(await freePort()) };
  const out: StartRun[] = [];
  for (let i = 0; i <= runs; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, settleMs));
    const run = await startOnce(env, timeoutMs);
    if (i > 0) out.push(run);
  }
  return out;
}

/**
 * The roles whose bundle does not match dist/ (a build without `npm run bundle`): those agents
 * start from dist/, module by module (≈ 2.5× slower here), so the figures are not `npm start`'s,
 * which bundles first (scripts/setup.sh).
 */
export function staleBundles(): string[] {
  const dir = path.join(repoRoot(), 'dist', 'bundle');
  const roles = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.cjs')).map((f) => f.slice(0, -'.cjs'.length)) : [];
  return roles.length === 0 ? ['all (no dist/bundle)'] : roles.filter((r) => !freshBundle(repoRoot(), dir, r));
}

export function renderStart(runs: StartRun[], stale: string[] = []): string {
  const ready = latency(runs.map((r) => r.readyMs));
  const min = Math.min(...runs.map((r) => r.readyMs));
  const rows = runs.map((r, i) => `  start ${i + 1}: ready line ${r.readyMs.toFixed(0)} ms after the spawn ("ready in ${r.lineS.toFixed(1)} s"), machine busy ${r.busyMs.toFixed(0)} ms`);
  const goal = ready.max <= 1500 ? 'MET in every start' : ready.p50 <= 1500 ? 'MET at the median, not in every start' : 'NOT MET';
  return [
    `npm start's ready line, ejabberd running (scripts/start.sh: the supervisor, its agents and the console), ${runs.length} starts after one untimed:`,
    ...rows,
    `  min / median / max ${min.toFixed(0)} / ${ready.p50.toFixed(0)} / ${ready.max.toFixed(0)} ms; machine busy median ${latency(runs.map((r) => r.busyMs)).p50.toFixed(0)} ms — goal ≤ 1,500 ms: ${goal}`,
    ...(stale.length ? [`  WARNING: stale bundles (${stale.join(', ')}): those agents started from dist/, not as npm start runs them; run npm run bundle and measure again`] : []),
  ].join('\n');
}
