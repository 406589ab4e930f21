// The benchmark's scenario registry and driver. A scenario knows how to set up its endpoints on
// a running instance and perform one round trip; the driver measures it the same way for all:
// sequential latency (p50/p95/p99 after warm-up) and throughput with N round trips in flight.
// Round trips that fail (a wrong answer, an error, a timeout) are counted, not fatal, up to
// `maxFailures`; a scenario may carry its own goal (full-flow.ts), judged in report.ts.
import type { TempInstance } from '../ejabberd/operator.js';

export interface Runner {
  /** One complete round trip; resolves when the reply has been received and handled, rejects when it failed. */
  roundTrip(): Promise<void>;
  /** Cumulative CPU µs of the processes the scenario started (agent processes), if any. */
  childCpuUs?(): number;
  close(): Promise<void>;
}

/** What a scenario must reach (printed, never asserted). */
export interface Goal {
  p50Ms?: number;
  perSecond?: number;
  maxFailures?: number;
}

export interface Scenario {
  name: string;
  description: string;
  /** Name of the scenario this one is compared with (ratio = this p50 / baseline p50). */
  baseline?: string;
  goal?: Goal;
  /** Runs only when named in --only (heavy scenarios such as agents-scale). */
  optIn?: boolean;
  setup(instance: TempInstance): Promise<Runner>;
}

export interface BenchOptions {
  warmup: number;
  rounds: number;
  inFlight: number;
  total: number;
  /** The run stops with an error once this many round trips failed (a broken setup must not run for hours). */
  maxFailures?: number;
}

export interface Latency {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  mean: number;
  max: number;
}

export interface ScenarioResult {
  name: string;
  description: string;
  baseline?: string;
  goal?: Goal;
  sequential: Latency;
  /** Failed round trips (sequential + concurrent) and the first few reasons. */
  failures: { sequential: number; concurrent: number; examples: string[] };
  /**
   * cpuUs: this process's CPU (user + system, both endpoints) per round trip. Unlike wall-clock
   * figures it hardly moves when other work shares the machine, so it compares runs fairly.
   */
  concurrent: { inFlight: number; total: number; seconds: number; perSecond: number; cpuUs: number; childCpuUs?: number; serverCpuUs?: number };
}

const registry = new Map<string, Scenario>();

export function registerScenario(s: Scenario): void {
  if (registry.has(s.name)) throw new Error(`bench scenario ${s.name} registered twice`);
  registry.set(s.name, s);
}

export function scenarios(): Scenario[] {
  return [...registry.values()];
}

/** Milliseconds between two process.hrtime.bigint() readings. */
const ms = (a: bigint, b: bigint) => Number(b - a) / 1e6;

export function latency(samples: number[]): Latency {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))] ?? NaN;
  return { n: s.length, p50: at(0.5), p95: at(0.95), p99: at(0.99), mean: s.reduce((x, y) => x + y, 0) / (s.length || 1), max: s[s.length - 1] ?? NaN };
}

/** A lost message must fail the round trip with a reason, not hang it. */
export function bounded(runner: Runner, timeoutMs: number): () => Promise<void> {
  return () => new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`a round trip took over ${timeoutMs} ms (message lost?)`)), timeoutMs);
    runner.roundTrip().then(() => {
      clearTimeout(timer);
      resolve();
    }, (err: unknown) => {
      clearTimeout(timer);
      reject(err as Error);
    });
  });
}

/**
 * `serverCpuUs`: the private ejabberd's cumulative CPU (µs), read around the concurrent phase as
 * the agents' is (issue 15: "ejabberd's CPU per conversation ≤ 2 ms").
 */
export async function measure(scenario: Scenario, runner: Runner, opts: BenchOptions, timeoutMs = 15000, serverCpuUs?: () => number): Promise<ScenarioResult> {
  const bounded1 = bounded(runner, timeoutMs);
  const failures = { sequential: 0, concurrent: 0, examples: [] as string[] };
  const maxFailures = opts.maxFailures ?? 100;
  /** true when it succeeded; a failure is counted and remembered. */
  const roundTrip = async (phase: 'sequential' | 'concurrent'): Promise<boolean> => {
    try {
      await bounded1();
      return true;
    } catch (err) {
      failures[phase] += 1;
      if (failures.examples.length < 5) failures.examples.push((err as Error).message);
      if (failures.sequential + failures.concurrent > maxFailures) {
        throw new Error(`${scenario.name}: over ${maxFailures} failed round trips, e.g. ${failures.examples.join(' | ')}`);
      }
      return false;
    }
  };
  for (let i = 0; i < opts.warmup; i++) await roundTrip('sequential');
  failures.sequential = 0; // warm-up failures (e.g. a cold first answer) are not the measure
  const samples: number[] = [];
  for (let i = 0; i < opts.rounds; i++) {
    const t0 = process.hrtime.bigint();
    if (await roundTrip('sequential')) samples.push(ms(t0, process.hrtime.bigint()));
  }
  // Keep `inFlight` round trips outstanding until `total` have completed.
  let started = 0;
  const cpu0 = process.cpuUsage();
  const child0 = runner.childCpuUs?.();
  const server0 = serverCpuUs?.();
  const t0 = process.hrtime.bigint();
  const lane = async () => {
    while (started < opts.total) {
      started += 1;
      await roundTrip('concurrent');
    }
  };
  await Promise.all(Array.from({ length: Math.min(opts.inFlight, opts.total) }, lane));
  const seconds = ms(t0, process.hrtime.bigint()) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const childCpuUs = child0 === undefined ? undefined : ((runner.childCpuUs?.() ?? child0) - child0) / opts.total;
  const server = server0 === undefined ? undefined : ((serverCpuUs?.() ?? server0) - server0) / opts.total;
  return {
    name: scenario.name,
    description: scenario.description,
    ...(scenario.baseline ? { baseline: scenario.baseline } : {}),
    ...(scenario.goal ? { goal: scenario.goal } : {}),
    sequential: latency(samples),
    failures,
    concurrent: {
      inFlight: opts.inFlight, total: opts.total, seconds, perSecond: (opts.total - failures.concurrent) / seconds,
      cpuUs: (cpu.user + cpu.system) / opts.total, ...(childCpuUs !== undefined ? { childCpuUs } : {}),
      ...(server !== undefined ? { serverCpuUs: server } : {}),
    },
  };
}
