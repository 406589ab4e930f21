// `npm run bench -- --only agents-scale` (issue 14 §3): a Registry process and one specialist host
// (agents/specialist/host.ts) serving PARLEY_BENCH_AGENTS virtual agents (default 1,000). Reports
// the time to start and register them all, RSS per agent (host with N minus host with 1, over
// N − 1), then measures the round trip: one DF candidate query (QUERY-REF NEED) with N registered,
// once the Registry has gone quiet (the registration's tail, resent REGISTERs, is not in it), with
// the content the Coordinator's expert flow sends (needContent, its max_results included).
// CPU (user + system, /proc) of the Registry, the host and ejabberd during the registration is
// printed per agent: on the shared 2-core box it compares runs where wall-clock figures do not.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { toPromise } from 'xstate';
import { makeEnvelope } from '../acl/index.js';
import { needContent } from '../../agents/coordinator/negotiation.js';
import { envNumber, envString, loadTunables } from '../config/index.js';
import type { TempInstance } from '../ejabberd/operator.js';
import { repoRoot } from '../runtime/repo-root.js';
import { procCpuUs } from './proc.js';
import { agentsContext, hostNodeArgs, roleScript, runArgs } from '../supervisor/index.js';
import { oneShotQuery } from './one-shot-query.js';
import { measureVirtualQuestions } from './virtual-questions.js';
import { agentsDomain, generatedLocals } from '../runtime/index.js';
import { runtimeAgent } from './runtime-agent.js';
import type { Runner, Scenario } from './scenario.js';

export function start(script: string, args: string[], env: NodeJS.ProcessEnv, ready: string, onLine?: (line: Record<string, unknown>, pid: number) => void): Promise<{ child: ChildProcess; line: Record<string, unknown> }> {
  // `npm run bench -- --cpu-prof DIR` profiles these processes too (the flags go on the command line);
  // a host of virtual agents gets the flags the supervisor gives it (spec.ts hostNodeArgs).
  const nodeArgs = [...(/\/host\.js$/.test(script) ? hostNodeArgs(env) : []), ...(envString('PARLEY_BENCH_AGENT_NODE_ARGS') ?? '').split(' ').filter(Boolean)];
  // `script`: a role's (roleScript: its bundle while fresh, as `npm start` runs it) or a file of dist/.
  const file = path.isAbsolute(script) ? script : path.join(repoRoot(), 'dist', script);
  const child = spawn(process.execPath, [...nodeArgs, ...runArgs(file), ...args], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      // Not left running: a failed setup has no close() to stop it.
      void stop(child);
      reject(new Error(`${script}: no "${ready}" within 180 s`));
    }, 180_000);
    child.once('exit', (code) => reject(new Error(`${script} exited (${code}) before "${ready}"`)));
    readline.createInterface({ input: child.stdout! }).on('line', (l) => {
      try {
        const r = JSON.parse(l) as Record<string, unknown>;
        onLine?.(r, child.pid ?? 0);
        if (r.msg === ready) {
          clearTimeout(timer);
          resolve({ child, line: r });
        }
      } catch {
        // not a log line
      }
    });
  });
}

export const stop = (c: ChildProcess) => new Promise<void>((r) => {
  if (c.exitCode !== null) return r();
  c.once('exit', () => r());
  c.kill('SIGTERM');
  setTimeout(() => c.kill('SIGKILL'), 8000).unref();
});

/** The private ejabberd's beam.smp (its command line names the instance's spool), or 0. */
export function beamPid(home: string): number {
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').includes(`${home}/ejabberd/spool`)) return Number(d);
    } catch {
      // gone meanwhile
    }
  }
  return 0;
}

/**
 * Waits until `pid` used under 5 % of a core for two 250 ms intervals running (at most 120 s):
 * after "agents registered" the Registry may still answer REGISTERs a host resent (GATED_RETRY)
 * and write its group commits; a query measured then measures that tail too. Returns the wait (ms).
 */
export async function quiet(pid: number, maxMs = 120_000): Promise<number> {
  const t0 = performance.now();
  let calm = 0;
  let last = procCpuUs(pid);
  while (calm < 2 && performance.now() - t0 < maxMs) {
    await new Promise((r) => setTimeout(r, 250));
    const now = procCpuUs(pid);
    calm = now - last < 0.05 * 250_000 ? calm + 1 : 0;
    last = now;
  }
  return Math.round(performance.now() - t0);
}

export const agentsScale: Scenario = {
  name: 'agents-scale',
  description: 'DF candidate query (QUERY-REF NEED) with PARLEY_BENCH_AGENTS (1,000) virtual specialists of one host registered; start/RSS per agent on stderr',
  goal: { p50Ms: 5 },
  optIn: true,
  async setup(instance: TempInstance): Promise<Runner> {
    const n = envNumber('PARLEY_BENCH_AGENTS', process.env, 1000);
    // Heartbeats of a thousand agents are load too: the default lease, as in production.
    const env = { ...process.env, ...instance.env, PARLEY_LOG_LEVEL: 'info' };
    const registry = await start(roleScript(agentsContext(), 'registry'), [], env, 'online');
    const regPid = registry.child.pid ?? 0;
    const beam = beamPid(instance.cfg.home);
    // CPU at the host's "online" (its agents built, before the first REGISTER) and at "agents registered".
    let atOnline = { registry: 0, host: 0, beam: 0 };
    const { baseRss, baseHeap, many } = await (async () => {
      const one = await start('agents/specialist/host.js', ['--host', 'base', '--count', '1', '--role', 'math'], env, 'agents registered');
      await stop(one.child);
      const onLine = (r: Record<string, unknown>, pid: number) => {
        if (r.msg === 'online') atOnline = { registry: procCpuUs(regPid), host: procCpuUs(pid), beam: procCpuUs(beam) };
      };
      return { baseRss: Number(one.line.rss_bytes), baseHeap: Number(one.line.heap_used_bytes), many: await start('agents/specialist/host.js', ['--host', 'bench', '--count', String(n), '--role', 'math'], env, 'agents registered', onLine) };
    })().catch(async (err: unknown) => {
      await stop(registry.child);
      throw err;
    });
    const l = many.line;
    const perAgentKb = (Number(l.rss_bytes) - baseRss) / Math.max(1, n - 1) / 1024;
    // V8's heap in use (live objects and garbage not yet collected): RSS also holds the heap's reserve, which grows in steps.
    const heapKb = (Number(l.heap_used_bytes) - baseHeap) / Math.max(1, n - 1) / 1024;
    process.stderr.write(`\n  ${n} virtual agents started and registered in ${String(l.total_ms)} ms (${(Number(l.total_ms) / n).toFixed(2)} ms/agent; `
      + `keys+enrolment ${String(l.keys_ms)} ms, skills ${String(l.skills_ms)} ms, agents ${String(l.hosted_ms)} ms, connect ${String(l.connect_ms)} ms, registration ${String(l.register_ms)} ms); `
      + `RSS ${(Number(l.rss_bytes) / 2 ** 20).toFixed(1)} MiB, ${perAgentKb.toFixed(1)} kB/agent over a 1-agent host (${(baseRss / 2 ** 20).toFixed(1)} MiB); `
      + `V8 heap used ${heapKb.toFixed(1)} kB/agent over it\n  `);
    const hostPid = many.child.pid ?? 0;
    const perAgent = (us: number) => `${(us / 1000).toFixed(0)} ms (${(us / n).toFixed(0)} µs/agent)`;
    const regCpu = procCpuUs(regPid) - atOnline.registry;
    process.stderr.write(`registration CPU: Registry ${perAgent(regCpu)}, host ${perAgent(procCpuUs(hostPid) - atOnline.host)} `
      + `(${perAgent(procCpuUs(hostPid))} from its start), ejabberd ${beam ? perAgent(procCpuUs(beam) - atOnline.beam) : '(not found)'}\n  `);
    const regBefore = procCpuUs(regPid);
    const waited = await quiet(regPid);
    process.stderr.write(`Registry quiet ${waited} ms after "agents registered" (${((procCpuUs(regPid) - regBefore) / 1000).toFixed(0)} ms of its CPU meanwhile); queries from now\n  `);
    const coord = await runtimeAgent(instance.cfg, 'coordinator', { telemetry: 'memory' });
    await coord.agent.start();
    // The query the Coordinator's expert flow sends with this environment's settings (needContent:
    // NEED max_results = the candidates it would CFP, PARLEY_CFP_MAX_CANDIDATES, unless PARLEY_NEGOTIATE=never).
    const t = loadTunables(process.env, instance.cfg.domain);
    const need = needContent('what is 2 * 3?', { mode: t.negotiate, cfpTimeoutMs: t.cfpTimeoutMs, maxCandidates: t.cfpMaxCandidates, acceptMarginMs: t.offerMarginMs });
    process.stderr.write(`the Coordinator's query: ${JSON.stringify(need)}\n  `);
    // Questions answered per second spread over the virtual agents (each asked in turn), before
    // the DF queries are measured; PARLEY_BENCH_QUESTIONS of them with 100 in flight (0: skipped).
    const questions = envNumber('PARLEY_BENCH_QUESTIONS', process.env, 2000);
    if (questions > 0) {
      const names = generatedLocals('bench', n).map((local) => `${local}@${agentsDomain(instance.cfg.domain)}`);
      const host0 = procCpuUs(hostPid);
      const q = await measureVirtualQuestions({
        coordinator: coord.agent, agents: names,
        bench: { warmup: 20, rounds: Math.min(500, questions), inFlight: 100, total: questions },
      });
      const hostPerQ = (procCpuUs(hostPid) - host0) / (q.sequential.n + questions + 20);
      process.stderr.write(`questions to the virtual agents in turn (${q.asked} agents asked): p50 ${q.sequential.p50.toFixed(2)} ms sequential, `
        + `${q.concurrent.perSecond.toFixed(0)} answered/s at 100 in flight, ${q.failures.sequential + q.failures.concurrent} failures`
        + `${q.failures.examples.length ? ` (${q.failures.examples[0]})` : ''}; host CPU ${hostPerQ.toFixed(0)} µs/question\n  `);
    }
    return {
      async roundTrip() {
        const env2 = makeEnvelope({ performative: 'QUERY-REF', sender: 'Coordinator', receiver: 'Registry', conversation_id: `sess-${Math.random().toString(36).slice(2)}`, content: need });
        const reply = await toPromise(coord.agent.router.start(`${env2.conversation_id}/q`, oneShotQuery, { envelope: env2 }));
        const c = (reply as { content?: { candidates?: unknown[] } }).content;
        if (!c?.candidates || c.candidates.length === 0) throw new Error(`no candidates: ${JSON.stringify(reply).slice(0, 300)}`);
      },
      // The Registry's and ejabberd's CPU per query (the host is idle: nobody asks its agents).
      childCpuUs: () => procCpuUs(regPid) + procCpuUs(beam),
      async close() {
        await coord.agent.stop();
        await stop(many.child);
        await stop(registry.child);
      },
    };
  },
};
