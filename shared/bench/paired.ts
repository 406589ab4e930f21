// `npm run bench -- --console --paired N` (issue 13: the console within 5 %): the plain and the
// watched full flow measured on the same agents in one run, in alternating blocks A B B A A B …,
// instead of two runs minutes apart. On the shared 2-core machine the plain run alone moved
// 21.6 → 27.1 ms p50 from one run to the next, as much as the effect being measured; blocks a
// minute or less apart, in an order that cancels a steady drift (ABBA), leave the watcher's own
// cost. "Off" is the console and the browser frozen (SIGSTOP, freeze.ts: no CPU, as if absent);
// "on" is both thawed, the browser watching the sniffer. After each switch round trips settle,
// not measured, for at least `settleMs` (2 s) and 30 round trips, so neither side carries the
// switch (the console's catch-up after a thaw). Stopping and restarting them each block instead
// put the console's start, JIT warm-up and a page load, which happen once in a deployment, into
// every watched block.
import type { Runner, Scenario, ScenarioResult, BenchOptions } from './scenario.js';
import { bounded, latency } from './scenario.js';

export interface Toggle {
  /** The console running and the browser watching the sniffer; resolves once it shows the live flow. */
  on(): Promise<void>;
  /** The console and the browser taking no CPU (frozen). */
  off(): Promise<void>;
}

type Side = 'off' | 'on';

/** ABBA order over 2 × blocks blocks: off on on off off on on off … */
export function blockOrder(blocks: number): Side[] {
  return Array.from({ length: 2 * blocks }, (_, i) => ((i % 4 === 0 || i % 4 === 3) ? 'off' : 'on'));
}

const msSince = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;

/**
 * Measures `plain` (toggle off) and `watched` (toggle on) in `blocks` blocks each. Sequential:
 * opts.rounds round trips per side; throughput: opts.total per side at opts.inFlight. Failures
 * are counted per side, as in measure().
 */
export async function measurePaired(
  plain: Scenario, watched: Scenario, runner: Runner, opts: BenchOptions, toggle: Toggle, blocks: number, { timeoutMs = 15000, settleMs = 2000 } = {},
): Promise<[ScenarioResult, ScenarioResult]> {
  const order = blockOrder(blocks);
  const settle = Math.min(30, opts.warmup);
  const sides = {
    off: { samples: [] as number[], failures: { sequential: 0, concurrent: 0, examples: [] as string[] }, seconds: 0, done: 0, cpuUs: 0, childUs: 0 },
    on: { samples: [] as number[], failures: { sequential: 0, concurrent: 0, examples: [] as string[] }, seconds: 0, done: 0, cpuUs: 0, childUs: 0 },
  };
  let failed = 0;
  const once = bounded(runner, timeoutMs);
  const roundTrip = async (side: Side, phase: 'sequential' | 'concurrent' | 'settle'): Promise<boolean> => {
    try {
      await once();
      return true;
    } catch (err) {
      if (phase === 'settle') return false;
      const f = sides[side].failures;
      f[phase] += 1;
      if (f.examples.length < 5) f.examples.push((err as Error).message);
      if (++failed > (opts.maxFailures ?? 100)) throw new Error(`paired console bench: over ${opts.maxFailures ?? 100} failed round trips, e.g. ${f.examples.join(' | ')}`);
      return false;
    }
  };
  let current: Side | undefined;
  const switchTo = async (side: Side) => {
    if (side === current) return;
    await (side === 'on' ? toggle.on() : toggle.off());
    current = side;
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < settle || msSince(t0) < settleMs; i++) await roundTrip(side, 'settle');
  };
  // Warm-up with the watcher on (its first start is the costly one), then the blocks.
  await switchTo('on');
  for (let i = 0; i < opts.warmup; i++) await roundTrip('on', 'settle');
  const perBlock = (n: number, b: number) => Math.floor(n / blocks) + (b < n % blocks ? 1 : 0);
  const seen = { off: 0, on: 0 };
  for (const side of order) {
    await switchTo(side);
    const n = perBlock(opts.rounds, seen[side]++);
    for (let i = 0; i < n; i++) {
      const t0 = process.hrtime.bigint();
      if (await roundTrip(side, 'sequential')) sides[side].samples.push(msSince(t0));
    }
  }
  const thrSeen = { off: 0, on: 0 };
  for (const side of [...order].reverse()) {
    await switchTo(side);
    const n = perBlock(opts.total, thrSeen[side]++);
    let started = 0;
    const cpu0 = process.cpuUsage();
    const child0 = runner.childCpuUs?.() ?? 0;
    const t0 = process.hrtime.bigint();
    const lane = async () => {
      while (started < n) {
        started += 1;
        if (await roundTrip(side, 'concurrent')) sides[side].done += 1;
      }
    };
    await Promise.all(Array.from({ length: Math.min(opts.inFlight, n) }, lane));
    sides[side].seconds += msSince(t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    sides[side].cpuUs += cpu.user + cpu.system;
    sides[side].childUs += (runner.childCpuUs?.() ?? child0) - child0;
  }
  const result = (s: Scenario, side: Side): ScenarioResult => {
    const x = sides[side];
    return {
      name: s.name,
      description: `${s.description}; paired: ${blocks} blocks per side in one run (ABBA), the console ${side === 'on' ? 'running and watched' : 'and the browser frozen (SIGSTOP)'}`,
      ...(s.goal ? { goal: s.goal } : {}),
      sequential: latency(x.samples),
      failures: x.failures,
      concurrent: {
        inFlight: opts.inFlight, total: opts.total, seconds: x.seconds, perSecond: x.done / x.seconds,
        cpuUs: x.cpuUs / opts.total, ...(runner.childCpuUs ? { childCpuUs: x.childUs / opts.total } : {}),
      },
    };
  };
  return [result(plain, 'off'), result(watched, 'on')];
}
