// `npm run bench -- --scale [7,100,1000]` (issue 15 "Also in the bench"): the agents' start-up to
// ready and their memory, for N agents. N = 7 is what `npm start` runs (the five core roles and
// the two default specialists, one process each); beyond 7 the rest are virtual specialists of
// one host process (agents/specialist/host.ts, issue 14 §3), as `npm run spawn -- specialist
// --count N` starts them. Everything goes through the supervisor's own specs and Supervisor, with
// ejabberd already running (the bench's private instance), as `npm start` on a running server.
// "Ready": every process logged its ready line (`online`; the host: `agents registered`, i.e.
// every virtual agent registered with the DF). CPU and memory include every process below the
// supervisor (skill worker processes too), read from /proc at that moment.
import fs from 'node:fs';
import path from 'node:path';
import { envString, paths } from '../config/index.js';
import type { TempInstance } from '../ejabberd/operator.js';
import {
  agentsContext, CORE_ROLES, coreSpec, DEFAULT_SPECIALISTS, parseSpecialists, specialistSpec, Supervisor,
} from '../supervisor/index.js';
import { procCpuUs, withDescendants } from './proc.js';

export interface ScaleResult {
  agents: number;
  processes: number;
  /** From the first spawn to the last ready line. */
  readyMs: number;
  /** CPU of every agent process (and their children) until ready. */
  cpuMs: number;
  rssMiB: number;
  kbPerAgent: number;
}

function rssKb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** Starts `n` agents (n ≥ 7) on `instance`, waits until all are ready, measures, stops them. */
export async function measureScale(instance: TempInstance, n: number): Promise<ScaleResult> {
  if (!Number.isInteger(n) || n < 7) throw new Error(`--scale sizes are integers ≥ 7 (the agents npm start runs), got ${n}`);
  const ctx = agentsContext();
  const nodeArgs = (envString('PARLEY_BENCH_AGENT_NODE_ARGS') ?? '').split(' ').filter(Boolean); // --cpu-prof
  // In npm start's order (scripts/supervisor.ts): the specialists first.
  const specs = [
    ...parseSpecialists(DEFAULT_SPECIALISTS).map((d) => specialistSpec(ctx, d)),
    ...CORE_ROLES.map((r) => coreSpec(ctx, r)),
    ...(n > 7 ? [specialistSpec(ctx, { name: 'scale', experts: ['arithmetic'], role: 'math', count: n - 7 })] : []),
  ].map((s) => ({ ...s, args: [...nodeArgs, ...s.args] }));
  const sup = new Supervisor({
    env: { ...process.env, ...instance.env, PARLEY_LOG_LEVEL: 'info' },
    logsDir: paths(instance.cfg).logsDir,
    say: () => undefined,
  });
  // Each size from an empty directory, not the previous size's registrations.
  const data = paths(instance.cfg).data;
  for (const f of fs.existsSync(data) ? fs.readdirSync(data).filter((x) => x.startsWith('registry.sqlite')) : []) fs.rmSync(path.join(data, f), { force: true });
  const t0 = performance.now();
  try {
    // Each agent's own ready time (from its spawn): which one the start waits for.
    const readyAt = new Map<string, number>();
    for (const s of specs) sup.add(s).once('ready', (ms: number) => readyAt.set(s.name, ms));
    await sup.whenReady(specs.map((s) => s.name), 300_000);
    const readyMs = performance.now() - t0;
    sup.markSystemReady(); // as npm start does at its ready line: the specialists' skill workers start now
    // Per agent: its process and its skill workers, CPU (µs) and RSS (kB) each.
    const each = sup.list().map((c) => [c.name, withDescendants([c.pid ?? 0].filter((p) => p > 0)).map((p) => ({ cpu: procCpuUs(p), rss: rssKb(p) }))] as const);
    process.stderr.write(`\n  [CPU until ready, with its skill workers; its own ready time] ${each.map(([name, ps]) => `${name} ${ps.map((p) => (p.cpu / 1000).toFixed(0)).join('+')} ms @${readyAt.get(name) ?? '?'}`).join(', ')}\n  `);
    const all = each.flatMap(([, ps]) => ps);
    const rss = all.reduce((sum, p) => sum + p.rss, 0);
    return { agents: n, processes: all.length, readyMs, cpuMs: all.reduce((sum, p) => sum + p.cpu, 0) / 1000, rssMiB: rss / 1024, kbPerAgent: rss / n };
  } finally {
    // The host first: stopped with the Registry, its agents' last words waited in the Registry's
    // offline storage and the next size's Registry read them before going online (2.4 s of CPU).
    if (n > 7) await sup.stopOne(specs[specs.length - 1]!.name).catch(() => undefined);
    await sup.stopAll();
  }
}

export function renderScale(results: ScaleResult[]): string {
  const rows = results.map((r) => `${String(r.agents).padStart(6)}  ${String(r.processes).padStart(9)}  ${r.readyMs.toFixed(0).padStart(8)}  ${r.cpuMs.toFixed(0).padStart(10)}  ${r.rssMiB.toFixed(1).padStart(8)}  ${r.kbPerAgent.toFixed(1).padStart(10)}`);
  return ['agents  processes  ready ms  CPU ms (all)  RSS MiB  kB per agent', ...rows,
    '  (ejabberd already running; 7 = npm start\'s agents, one process each; beyond 7 the rest are virtual specialists of one host; goal: ready ≤ 1.5 s for 7)'].join('\n');
}
