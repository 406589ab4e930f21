// npm run bench [-- --start N] [--json FILE] [--compare OLD.json] [--from NEW.json] [--rounds N] [--warmup N] [--in-flight N] [--total N] [--only a,b] [--cpu-prof DIR] [--console [--paired N]] [--repeat N]
// Starts its own ejabberd (temporary home, free ports), measures every registered scenario the
// same way, prints a table, the runtime/raw ratio against the goal (≤ 1.5×) and the full flow
// against its own goal (never asserted).
import fs from 'node:fs';
import { Command } from 'commander';
import { closeApiAgent } from '../shared/ejabberd/index.js';
import { startTempInstance } from '../shared/ejabberd/operator.js';
import {
  rawEcho, asBenchReport, compareRuns, renderComparison, consoleWatcher, prepareConsoleBench,
  fullFlow, fullFlowWatched, llmDirect, llmSkill, agentsScale, calendarsScale, type BenchReport,
  buildReport, renderReport, runtimeAskExpert, runtimeRequestReply, type BenchOptions, measure,
  registerScenario, type ScenarioResult, scenarios, measurePaired, measureScale, renderScale, type ScaleResult,
  beamPid, procCpuUs, exchangeSteadyScenario, measureStart, renderStart, staleBundles, type StartRun,
} from '../shared/bench/index.js';

registerScenario(rawEcho);
registerScenario(runtimeRequestReply);
registerScenario(runtimeAskExpert);
registerScenario(fullFlow);
registerScenario(llmDirect);
registerScenario(llmSkill);
registerScenario(agentsScale);
registerScenario(exchangeSteadyScenario);
registerScenario(calendarsScale);

const int = (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new Error(`expected a positive integer, got ${v}`);
  return n;
};

const program = new Command('bench')
  .description('Measure XMPP round trips: raw @xmpp/client echo, runtime Agents, and the full person → Presenter → … → reply flow')
  .option('--json <file>', 'write the figures as JSON')
  .option('--rounds <n>', 'sequential round trips measured', int, 2000)
  .option('--warmup <n>', 'sequential warm-up round trips', int, 300)
  .option('--in-flight <n>', 'round trips kept in flight for throughput', int, 100)
  .option('--total <n>', 'round trips in the throughput run', int, 10000)
  .option('--only <names>', `comma-separated scenarios (${scenarios().map((s) => s.name).join(', ')})`)
  .option('--max-failures <n>', 'stop a scenario once this many round trips failed', int, 100)
  .option('--cpu-prof <dir>', 'full-flow: run the agent processes with node --cpu-prof, profiles written to DIR')
  .option('--compare <file>', 'print each scenario as a ratio against an earlier --json run')
  .option('--from <file>', 'with --compare: take the new figures from this --json file instead of measuring')
  .option('--repeat <n>', 'run the chosen scenarios n times in turn (A B A B …): comparisons pair each round and give the median', int, 1)
  .option('--keep-home', 'keep the temporary PARLEY_HOME (telemetry databases) for inspection')
  .option('--console', 'also run the full flow with the console running and a headless Chromium watching its sniffer, and compare (goal: within 5 %)')
  .option('--scale [sizes]', 'start-up to ready and memory for N agents (7 = npm start\'s; beyond, virtual specialists of one host), default 7,100,1000')
  .option('--start <n>', "npm start's ready line with ejabberd running, timed n times (scripts/start.sh: the supervisor, its agents and the console)", int)
  .option('--paired <blocks>', 'with --console: measure both on the same agents in one run, in alternating blocks (ABBA), this many per side', int);

async function main(): Promise<void> {
  program.parse();
  const o = program.opts<{
    json?: string; compare?: string; from?: string; rounds: number; warmup: number; inFlight: number; total: number; only?: string; repeat: number; keepHome?: boolean; maxFailures: number; cpuProf?: string; console?: boolean; paired?: number; scale?: boolean | string; start?: number;
  }>();
  if (o.paired && !o.console) throw new Error('--paired needs --console');
  const readReport = (file: string) => asBenchReport(JSON.parse(fs.readFileSync(file, 'utf8')), file);
  const old = o.compare ? readReport(o.compare) : undefined;
  if (o.from) {
    if (!old) throw new Error('--from needs --compare OLD.json');
    console.log(renderComparison(compareRuns(old, readReport(o.from)), old.at));
    return;
  }
  const watching = o.console ? (await prepareConsoleBench(), consoleWatcher()) : undefined;
  if (watching) registerScenario(fullFlowWatched(watching.watcher, watching.what));
  const opts: BenchOptions = { rounds: o.rounds, warmup: o.warmup, inFlight: o.inFlight, total: o.total, maxFailures: o.maxFailures };
  if (o.cpuProf) {
    fs.mkdirSync(o.cpuProf, { recursive: true });
    process.env.PARLEY_BENCH_AGENT_NODE_ARGS = `--cpu-prof --cpu-prof-dir=${fs.realpathSync(o.cpuProf)}`;
  }
  const wanted = o.only?.split(',').map((s) => s.trim());
  // --paired measures full-flow and full-flow+console together (shared/bench/paired.ts).
  const pairedNames = new Set(['full-flow', 'full-flow+console']);
  // --scale or --start alone measures only the start-up; with --only, both.
  const chosen = scenarios().filter((s) => (wanted ? wanted.includes(s.name) : !s.optIn && !o.scale && !o.start) && !(o.paired && pairedNames.has(s.name)));
  if (chosen.length === 0 && !o.paired && !o.scale && !o.start) throw new Error(`no such scenario: ${o.only}`);
  const scaleSizes = o.scale ? (o.scale === true ? '7,100,1000' : o.scale).split(',').map((x) => Number(x.trim())) : [];
  const scaled: ScaleResult[] = [];
  const starts: StartRun[] = [];

  process.stderr.write('starting a private ejabberd… ');
  const instance = await startTempInstance();
  process.stderr.write(`up on 127.0.0.1:${instance.cfg.c2sPort} (${instance.cfg.home})\n`);
  // ejabberd's CPU per round trip beside the agents' (issue 15's goal for it: ≤ 2 ms per conversation).
  const beam = beamPid(instance.cfg.home);
  const serverCpuUs = beam ? () => procCpuUs(beam) : undefined;
  // Ctrl-C or a kill must not leave the scenario's agents or the private ejabberd running.
  let current: { close(): Promise<void> } | undefined;
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.once(sig, () => {
      process.stderr.write(`\n${sig}: stopping the agents and the private ejabberd…\n`);
      void Promise.resolve(current?.close())
        .catch(() => undefined)
        .then(() => instance.stop())
        .finally(() => process.exit(130));
    });
  }
  const results: ScenarioResult[] = [];
  try {
    // Interleaved rounds: a machine whose speed drifts (other work, a VM's neighbours) shifts both
    // sides of a comparison alike instead of only the one that ran later.
    for (const s of Array.from({ length: o.repeat }, () => chosen).flat()) {
      process.stderr.write(`${s.name}: `);
      const runner = await s.setup(instance);
      current = runner;
      try {
        const r = await measure(s, runner, opts, undefined, serverCpuUs);
        results.push(r);
        const failed = r.failures.sequential + r.failures.concurrent;
        process.stderr.write(`p50 ${r.sequential.p50.toFixed(3)} ms, ${r.concurrent.perSecond.toFixed(0)} rt/s${failed ? `, ${failed} failed` : ''}\n`);
      } finally {
        current = undefined;
        await runner.close();
      }
    }
    for (const n of Array.from({ length: o.repeat }, () => scaleSizes).flat()) {
      process.stderr.write(`scale: ${n} agents… `);
      const r = await measureScale(instance, n);
      scaled.push(r);
      process.stderr.write(`ready in ${r.readyMs.toFixed(0)} ms, ${r.kbPerAgent.toFixed(1)} kB/agent\n`);
    }
    if (o.start) {
      process.stderr.write(`npm start: ${o.start} starts after one untimed… `);
      starts.push(...(await measureStart(instance, o.start)));
      process.stderr.write(`${starts.map((r) => r.readyMs.toFixed(0)).join(' / ')} ms\n`);
    }
    for (let round = 0; watching && o.paired && round < o.repeat; round++) {
      const watched = fullFlowWatched(watching.watcher, watching.what);
      process.stderr.write(`full-flow and full-flow+console, paired (${o.paired} blocks each): `);
      const runner = await watched.setup(instance);
      current = runner;
      try {
        const [p, w] = await measurePaired(fullFlow, watched, runner, opts, watching.toggle, o.paired);
        results.push(p, w);
        process.stderr.write(`p50 ${p.sequential.p50.toFixed(3)} → ${w.sequential.p50.toFixed(3)} ms, ${p.concurrent.perSecond.toFixed(0)} → ${w.concurrent.perSecond.toFixed(0)} rt/s\n`);
      } finally {
        current = undefined;
        await runner.close();
      }
    }
  } finally {
    await instance.stop({ keep: o.keepHome ?? false });
    closeApiAgent();
  }
  const report: BenchReport = { ...buildReport(opts, results), ...(scaled.length ? { scale: scaled } : {}) };
  if (results.length > 0) console.log(renderReport(report));
  if (scaled.length > 0) console.log(renderScale(scaled));
  // Agents started from dist/ (a build without `npm run bundle`) are not what npm start runs.
  const stale = staleBundles();
  if (starts.length > 0) console.log(renderStart(starts, stale));
  else if (stale.length > 0) console.log(`WARNING: stale bundles (${stale.join(', ')}): agent processes started from dist/, not as npm start runs them; run npm run bundle and measure again`);
  if (old) console.log(renderComparison(compareRuns(old, report), old.at));
  const plain = results.filter((r) => r.name === 'full-flow');
  const watched = results.filter((r) => r.name === 'full-flow+console');
  if (plain.length > 0 && watched.length > 0) {
    const pairs = watched.map((w, i) => [plain[Math.min(i, plain.length - 1)]!, w] as const);
    const slower = pairs.map(([p, w]) => (w.sequential.p50 / p.sequential.p50 - 1) * 100);
    const fewer = pairs.map(([p, w]) => (1 - w.concurrent.perSecond / p.concurrent.perSecond) * 100);
    const pct = (v: number, sign: (v: number) => string) => `${sign(v)}${Math.abs(v).toFixed(1)} %`;
    const up = (v: number) => (v >= 0 ? '+' : '-');
    const down = (v: number) => (v >= 0 ? '-' : '+');
    if (pairs.length > 1) pairs.forEach((_, i) => console.log(`console overhead, round ${i + 1}: p50 ${pct(slower[i]!, up)}, throughput ${pct(fewer[i]!, down)}`));
    const s = median(slower);
    const f = median(fewer);
    console.log(`console overhead${pairs.length > 1 ? `, median of ${pairs.length} rounds` : ''}: p50 ${pct(s, up)}, throughput ${pct(f, down)} — goal within 5 %: ${s <= 5 && f <= 5 ? 'MET' : 'NOT MET'}`);
  }
  const direct = results.find((r) => r.name === 'llm-direct');
  const skill = results.find((r) => r.name === 'llm-skill');
  if (direct && skill) {
    const per = (r: ScenarioResult) => r.concurrent.cpuUs / 1000;
    console.log(`llm skill overhead per model call: p50 +${(skill.sequential.p50 - direct.sequential.p50).toFixed(3)} ms (${direct.sequential.p50.toFixed(3)} → ${skill.sequential.p50.toFixed(3)} ms), bench-process CPU +${(per(skill) - per(direct)).toFixed(3)} ms`);
  }
  if (o.json) {
    fs.writeFileSync(o.json, JSON.stringify(report, null, 2) + '\n');
    console.log(`figures written to ${o.json}`);
  }
}

function median(xs: number[]): number {
  const v = [...xs].sort((a, b) => a - b);
  const m = Math.floor(v.length / 2);
  return v.length % 2 ? v[m]! : (v[m - 1]! + v[m]!) / 2;
}

main().then(
  () => process.exit(0),
  (err: Error) => {
    console.error(`bench: ${err.stack ?? err.message}`);
    process.exit(1);
  },
);
