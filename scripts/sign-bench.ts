// Round trips with signing on and off: `node dist/scripts/sign-bench.js [--n 2000] [--concurrency 64]`.
// Each mode runs in its own child process (PARLEY_SIGNING=1 / 0, read once by signingFor) on a
// throw-away ejabberd: two runtime Agents (Coordinator → specialist-echo, REQUEST → INFORM) in one
// process, so the numbers include both sides' signing and verification. Until scripts/bench.ts
// grows a scenario flag, `PARLEY_SIGNING=0 npm run bench` gives the same comparison there.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { fromPromise } from 'xstate';
import { echoRequester, echoResponder, type RequesterOutput, runtimeAgent } from '../shared/bench/index.js';
import { startTempInstance } from '../shared/ejabberd/operator.js';
import { benchIdentity } from '../shared/identity/bench.js';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? dflt : Number(process.argv[i + 1]);
};

async function measure(): Promise<object> {
  const inst = await startTempInstance('parley-signbench-');
  try {
    const spec = await runtimeAgent(inst.cfg, 'specialist-echo', { telemetry: 'memory', enrolAs: 'specialist' });
    const coord = await runtimeAgent(inst.cfg, 'coordinator', { telemetry: 'memory' });
    const answer = fromPromise<string, { question: string }>(async ({ input }) => `echo: ${input.question}`);
    spec.agent.router.on('ASK_EXPERT', (request, from) => ({ machine: echoResponder.provide({ actors: { answer } }), input: { request, from, self: spec.agent.name, agree: false } }));
    await spec.agent.start();
    await coord.agent.start();
    const once = (i: number) => new Promise<void>((resolve, reject) => {
      const cid = `sess-signbench-${i}-${Math.random().toString(36).slice(2)}`;
      const a = coord.agent.router.start(`${cid}/ask`, echoRequester, {
        self: 'Coordinator', peer: 'specialist-echo', conversationId: cid, question: `q${i}`, agreeTimeoutMs: 3000, resultTimeoutMs: 30000,
      });
      a.subscribe({ complete: () => ((a.getSnapshot().output as RequesterOutput | undefined)?.ok ? resolve() : reject(new Error('round trip failed'))), error: reject });
    });
    for (let i = 0; i < 200; i++) await once(i); // warm-up: JIT, KeyObject caches
    const n = arg('n', 2000);
    const lat: number[] = [];
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      await once(i);
      lat.push(performance.now() - t);
    }
    lat.sort((a, b) => a - b);
    const q = (p: number) => Number((lat[Math.min(lat.length - 1, Math.floor(p * lat.length))] as number).toFixed(2));
    const c = arg('concurrency', 64);
    const total = 4000;
    let next = 0;
    const t0 = performance.now();
    await Promise.all(Array.from({ length: c }, async () => {
      while (next < total) await once(next++);
    }));
    const perSec = Math.round(total / ((performance.now() - t0) / 1000));
    await coord.agent.stop();
    await spec.agent.stop();
    return { p50_ms: q(0.5), p90_ms: q(0.9), p99_ms: q(0.99), [`round_trips_per_s_c${c}`]: perSec, rejected: { ...coord.agent.counters.rejected, ...spec.agent.counters.rejected } };
  } finally {
    await inst.stop();
  }
}

if (process.env.SIGN_BENCH_CHILD) {
  console.log(JSON.stringify(await measure()));
} else {
  const self = fileURLToPath(import.meta.url);
  const rows: Record<string, unknown> = {};
  for (const mode of ['on', 'off', 'on', 'off']) {
    const out = execFileSync(process.execPath, [self, ...process.argv.slice(2)], {
      env: { ...process.env, SIGN_BENCH_CHILD: '1', PARLEY_SIGNING: mode === 'on' ? '1' : '0', PARLEY_LOG_LEVEL: 'silent' }, encoding: 'utf8',
    });
    rows[`signing ${mode} #${Object.keys(rows).length + 1}`] = JSON.parse(out.trim().split('\n').pop() as string);
  }
  console.table(rows);
  const id = benchIdentity({ durationMs: 1000 });
  console.log(`per core: envelope sign ${id.envelopeSignsPerSec}/s, verify ${id.envelopeVerifiesPerSec}/s (node:crypto, cached KeyObjects)`);
}
