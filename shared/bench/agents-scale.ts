// `npm run bench -- --only agents-scale` (issue 14 §3): a Registry process and one specialist host
// (agents/specialist/host.ts) serving PARLEY_BENCH_AGENTS virtual agents (default 1,000). Reports
// the time to start and register them all, RSS per agent (host with N minus host with 1, over
// N − 1), then measures the round trip: one DF candidate query (QUERY-REF NEED) with N registered.
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { toPromise } from 'xstate';
import { makeEnvelope } from '../acl/index.js';
import { envNumber, envString } from '../config/index.js';
import type { TempInstance } from '../ejabberd/operator.js';
import { repoRoot } from '../runtime/repo-root.js';
import { oneShotQuery } from './one-shot-query.js';
import { runtimeAgent } from './runtime-agent.js';
import type { Runner, Scenario } from './scenario.js';

export function start(script: string, args: string[], env: NodeJS.ProcessEnv, ready: string): Promise<{ child: ChildProcess; line: Record<string, unknown> }> {
  // `npm run bench -- --cpu-prof DIR` profiles these processes too (the flags go on the command line).
  const nodeArgs = (envString('PARLEY_BENCH_AGENT_NODE_ARGS') ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, path.join(repoRoot(), 'dist', script), ...args], { env, stdio: ['ignore', 'pipe', 'inherit'] });
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

export const agentsScale: Scenario = {
  name: 'agents-scale',
  description: 'DF candidate query (QUERY-REF NEED) with PARLEY_BENCH_AGENTS (1,000) virtual specialists of one host registered; start/RSS per agent on stderr',
  goal: { p50Ms: 5 },
  optIn: true,
  async setup(instance: TempInstance): Promise<Runner> {
    const n = envNumber('PARLEY_BENCH_AGENTS', process.env, 1000);
    // Heartbeats of a thousand agents are load too: the default lease, as in production.
    const env = { ...process.env, ...instance.env, PARLEY_LOG_LEVEL: 'info' };
    const registry = await start('agents/registry/main.js', [], env, 'online');
    const { baseRss, many } = await (async () => {
      const one = await start('agents/specialist/host.js', ['--host', 'base', '--count', '1', '--role', 'math'], env, 'agents registered');
      await stop(one.child);
      return { baseRss: Number(one.line.rss_bytes), many: await start('agents/specialist/host.js', ['--host', 'bench', '--count', String(n), '--role', 'math'], env, 'agents registered') };
    })().catch(async (err: unknown) => {
      await stop(registry.child);
      throw err;
    });
    const l = many.line;
    const perAgentKb = (Number(l.rss_bytes) - baseRss) / Math.max(1, n - 1) / 1024;
    process.stderr.write(`\n  ${n} virtual agents started and registered in ${String(l.total_ms)} ms (${(Number(l.total_ms) / n).toFixed(2)} ms/agent; `
      + `keys+enrolment ${String(l.keys_ms)} ms, skills ${String(l.skills_ms)} ms, agents ${String(l.hosted_ms)} ms, connect ${String(l.connect_ms)} ms, registration ${String(l.register_ms)} ms); `
      + `RSS ${(Number(l.rss_bytes) / 2 ** 20).toFixed(1)} MiB, ${perAgentKb.toFixed(1)} kB/agent over a 1-agent host (${(baseRss / 2 ** 20).toFixed(1)} MiB)\n  `);
    const coord = await runtimeAgent(instance.cfg, 'coordinator', { telemetry: 'memory' });
    await coord.agent.start();
    return {
      async roundTrip() {
        const env2 = makeEnvelope({ performative: 'QUERY-REF', sender: 'Coordinator', receiver: 'Registry', conversation_id: `sess-${Math.random().toString(36).slice(2)}`, content: { need: 'ASK_EXPERT', hint: 'what is 2 * 3?' } });
        const reply = await toPromise(coord.agent.router.start(`${env2.conversation_id}/q`, oneShotQuery, { envelope: env2 }));
        const c = (reply as { content?: { candidates?: unknown[] } }).content;
        if (!c?.candidates || c.candidates.length === 0) throw new Error(`no candidates: ${JSON.stringify(reply).slice(0, 300)}`);
      },
      async close() {
        await coord.agent.stop();
        await stop(many.child);
        await stop(registry.child);
      },
    };
  },
};
