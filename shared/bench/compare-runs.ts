// `npm run bench -- --compare FILE` (issue "The hot path" §"Also in the bench"): a change's effect
// read as a ratio against an earlier `--json` run of the same bench, not as an absolute time on a
// noisy machine. Ratios are new / old for costs (latency, CPU: < 1 is better) and new / old for
// throughput (> 1 is better); a scenario present in only one run is listed as such.
import type { BenchReport } from './report.js';

export interface RunRatio {
  scenario: string;
  /** new p50 / old p50 (sequential): < 1 is faster. */
  p50: number;
  /** new / old round trips per second with N in flight: > 1 is more throughput. */
  throughput: number;
  /** new / old Node CPU per round trip of the bench process. */
  cpu: number;
  /** new / old CPU per round trip of the agent processes, when both runs measured it. */
  agentsCpu?: number;
  /** new / old CPU per round trip of the private ejabberd, when both runs measured it. */
  serverCpu?: number;
  /** Failures in the new run (a faster run that fails is no improvement). */
  failures: number;
}

export interface RunComparison {
  ratios: RunRatio[];
  onlyOld: string[];
  onlyNew: string[];
  /** The two runs' options differ (rounds, in flight, …): ratios are then less meaningful. */
  optionsDiffer: boolean;
}

/** Checks that a parsed JSON file is a bench report (`--json` output), with a clear error otherwise. */
export function asBenchReport(value: unknown, file: string): BenchReport {
  const r = value as Partial<BenchReport> | null;
  if (!r || typeof r !== 'object' || !Array.isArray(r.results) || typeof r.options !== 'object') {
    throw new Error(`${file} is not a bench report written by --json (no results/options)`);
  }
  return r as BenchReport;
}

export function compareRuns(old: BenchReport, cur: BenchReport): RunComparison {
  const before = new Map(old.results.map((r) => [r.name, r]));
  const ratios: RunRatio[] = [];
  for (const r of cur.results) {
    const o = before.get(r.name);
    if (!o) continue;
    const agentsCpu = r.concurrent.childCpuUs !== undefined && o.concurrent.childCpuUs
      ? r.concurrent.childCpuUs / o.concurrent.childCpuUs : undefined;
    const serverCpu = r.concurrent.serverCpuUs !== undefined && o.concurrent.serverCpuUs
      ? r.concurrent.serverCpuUs / o.concurrent.serverCpuUs : undefined;
    ratios.push({
      scenario: r.name,
      p50: r.sequential.p50 / o.sequential.p50,
      throughput: r.concurrent.perSecond / o.concurrent.perSecond,
      cpu: r.concurrent.cpuUs / o.concurrent.cpuUs,
      ...(agentsCpu !== undefined ? { agentsCpu } : {}),
      ...(serverCpu !== undefined ? { serverCpu } : {}),
      failures: r.failures.sequential + r.failures.concurrent,
    });
  }
  const now = new Set(cur.results.map((r) => r.name));
  return {
    ratios,
    onlyOld: old.results.map((r) => r.name).filter((n) => !now.has(n)),
    onlyNew: cur.results.map((r) => r.name).filter((n) => !before.has(n)),
    optionsDiffer: JSON.stringify(old.options) !== JSON.stringify(cur.options),
  };
}

const x = (n: number | undefined) => (n === undefined || !Number.isFinite(n) ? '-' : `×${n.toFixed(2)}`);

export function renderComparison(c: RunComparison, oldAt: string): string {
  const lines = [`against the run of ${oldAt} (new / old; p50 and CPU: < 1 is better; throughput: > 1 is better)`];
  for (const r of c.ratios) {
    lines.push(`  ${r.scenario}: p50 ${x(r.p50)}, throughput ${x(r.throughput)}, CPU ${x(r.cpu)}, agents CPU ${x(r.agentsCpu)}, ejabberd CPU ${x(r.serverCpu)}` +
      (r.failures ? `, ${r.failures} failures in the new run` : ''));
  }
  if (c.onlyOld.length) lines.push(`  only in the old run: ${c.onlyOld.join(', ')}`);
  if (c.onlyNew.length) lines.push(`  only in the new run: ${c.onlyNew.join(', ')}`);
  if (c.optionsDiffer) lines.push('  note: the two runs used different options (rounds, in flight, total): compare with care');
  return lines.join('\n');
}
