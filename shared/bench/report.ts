// The benchmark's report: a readable table, the runtime/raw ratios and the goal verdicts
// (runtime ≤ 1.5× raw; a scenario's own goal, e.g. the full flow's), printed, never asserted,
// and the JSON written by --json.
import os from 'node:os';
import type { BenchOptions, Goal, ScenarioResult } from './scenario.js';

export const GOAL_RATIO = 1.5;

export interface Comparison {
  scenario: string;
  baseline: string;
  /** scenario p50 / baseline p50 (sequential latency). */
  latencyRatio: number;
  /** baseline round trips/s / scenario round trips/s (100 in flight): > 1 means slower. */
  throughputRatio: number;
  /** scenario / baseline Node CPU per round trip (the load-independent view). */
  cpuRatio: number;
  goalMet: boolean;
}

/** A scenario's own goal (Scenario.goal) against what it measured. */
export interface GoalVerdict {
  scenario: string;
  goal: Goal;
  p50Ms: number;
  perSecond: number;
  failures: number;
  goalMet: boolean;
}

export interface BenchReport {
  at: string;
  /** loadavg: the 1-minute load when the run ended; wall-clock figures mean little when it exceeds the cores. */
  machine: { cpus: number; model: string; node: string; platform: string; loadavg: number };
  options: BenchOptions;
  results: ScenarioResult[];
  comparisons: Comparison[];
  goals: GoalVerdict[];
}

export function compare(results: ScenarioResult[]): Comparison[] {
  const byName = new Map(results.map((r) => [r.name, r]));
  return results.flatMap((r) => {
    const base = r.baseline ? byName.get(r.baseline) : undefined;
    if (!base) return [];
    const latencyRatio = r.sequential.p50 / base.sequential.p50;
    const throughputRatio = base.concurrent.perSecond / r.concurrent.perSecond;
    const cpuRatio = r.concurrent.cpuUs / base.concurrent.cpuUs;
    return [{ scenario: r.name, baseline: base.name, latencyRatio, throughputRatio, cpuRatio, goalMet: latencyRatio <= GOAL_RATIO && throughputRatio <= GOAL_RATIO }];
  });
}

export function judgeGoals(results: ScenarioResult[]): GoalVerdict[] {
  return results.flatMap((r) => {
    if (!r.goal) return [];
    const g = r.goal;
    const failures = r.failures.sequential + r.failures.concurrent;
    const goalMet = (g.p50Ms === undefined || r.sequential.p50 <= g.p50Ms)
      && (g.perSecond === undefined || r.concurrent.perSecond >= g.perSecond)
      && failures <= (g.maxFailures ?? 0);
    return [{ scenario: r.name, goal: g, p50Ms: r.sequential.p50, perSecond: r.concurrent.perSecond, failures, goalMet }];
  });
}

export function buildReport(options: BenchOptions, results: ScenarioResult[]): BenchReport {
  const cpus = os.cpus();
  return {
    at: new Date().toISOString(),
    machine: { cpus: cpus.length, model: cpus[0]?.model ?? '?', node: process.version, platform: `${os.platform()} ${os.release()}`, loadavg: os.loadavg()[0] ?? 0 },
    options,
    results,
    comparisons: compare(results),
    goals: judgeGoals(results),
  };
}

const f = (n: number, d = 3) => (Number.isFinite(n) ? n.toFixed(d) : '-');

function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ');
  return [line(rows[0] ?? []), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n');
}

export function renderReport(r: BenchReport): string {
  const o = r.options;
  const head = `Parley bench — ${r.machine.cpus} × ${r.machine.model}, Node ${r.machine.node}, load ${f(r.machine.loadavg, 1)}\n` +
    `sequential: ${o.rounds} round trips after ${o.warmup} warm-up; concurrent: ${o.total} round trips, ${o.inFlight} in flight\n`;
  const rows = [['scenario', 'p50 ms', 'p95 ms', 'p99 ms', 'mean ms', 'rt/s @' + o.inFlight, 'failures', 'node CPU µs/rt', 'agents CPU µs/rt', 'ejabberd CPU µs/rt']];
  for (const s of r.results) {
    rows.push([s.name, f(s.sequential.p50), f(s.sequential.p95), f(s.sequential.p99), f(s.sequential.mean),
      f(s.concurrent.perSecond, 0), String(s.failures.sequential + s.failures.concurrent), f(s.concurrent.cpuUs, 0),
      s.concurrent.childCpuUs === undefined ? '-' : f(s.concurrent.childCpuUs, 0),
      s.concurrent.serverCpuUs === undefined ? '-' : f(s.concurrent.serverCpuUs, 0)]);
  }
  const verdicts = r.comparisons.map((c) =>
    `${c.scenario} / ${c.baseline}: latency ×${f(c.latencyRatio, 2)}, throughput ×${f(c.throughputRatio, 2)}, ` +
    `CPU ×${f(c.cpuRatio, 2)} — ` +
    `goal ≤ ×${GOAL_RATIO}: ${c.goalMet ? 'MET' : 'NOT MET'}`);
  for (const g of r.goals) {
    const want = [
      g.goal.p50Ms !== undefined ? `p50 ≤ ${g.goal.p50Ms} ms` : '',
      g.goal.perSecond !== undefined ? `≥ ${g.goal.perSecond}/s @${o.inFlight}` : '',
      `${g.goal.maxFailures ?? 0} failures`,
    ].filter(Boolean).join(', ');
    verdicts.push(`${g.scenario}: p50 ${f(g.p50Ms, 2)} ms, ${f(g.perSecond, 0)}/s, ${g.failures} failures — goal ${want}: ${g.goalMet ? 'MET' : 'NOT MET'}`);
  }
  const examples = r.results.filter((s) => s.failures.examples.length > 0)
    .map((s) => `  ${s.name} failures, e.g.: ${s.failures.examples.slice(0, 3).join(' | ')}`);
  const legend = r.results.map((s) => `  ${s.name}: ${s.description}`).join('\n');
  return `${head}\n${table(rows)}\n\n${legend}\n${examples.length ? `${examples.join('\n')}\n` : ''}\n${verdicts.join('\n')}\n`;
}
