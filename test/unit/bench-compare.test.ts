// Bench [compare]: `npm run bench -- --compare OLD.json` reads a change's effect as ratios.
import { expect } from 'chai';
import {
  asBenchReport, compareRuns, renderComparison, type BenchReport, type ScenarioResult,
} from '../../shared/bench/index.js';

const result = (name: string, p50: number, perSecond: number, cpuUs: number, childCpuUs?: number, failed = 0, serverCpuUs?: number): ScenarioResult => ({
  name, description: name,
  sequential: { p50, p95: p50, p99: p50, mean: p50 },
  failures: { sequential: 0, concurrent: failed, examples: [] },
  concurrent: { inFlight: 100, total: 1000, seconds: 1, perSecond, cpuUs, ...(childCpuUs !== undefined ? { childCpuUs } : {}), ...(serverCpuUs !== undefined ? { serverCpuUs } : {}) },
} as unknown as ScenarioResult);

const report = (results: ScenarioResult[], rounds = 2000): BenchReport => ({
  at: '2026-11-23T00:00:00.000Z',
  machine: { cpus: 2, model: 'x', node: 'v20', platform: 'linux', loadavg: 0 },
  options: { rounds, warmup: 300, inFlight: 100, total: 10000, maxFailures: 100 },
  results, comparisons: [], goals: [],
});

describe('Bench [compare] ratios against an earlier --json run', () => {
  const old = report([result('raw-echo', 0.4, 8000, 90), result('full-flow', 12, 170, 400, 8000, 0, 2400), result('gone', 1, 1, 1)]);
  const cur = report([result('raw-echo', 0.4, 8000, 90), result('full-flow', 6, 340, 200, 4000, 2, 1800), result('added', 1, 1, 1)]);

  it('gives new/old for p50, throughput, CPU, agents CPU and ejabberd CPU per scenario in both runs', () => {
    const c = compareRuns(old, cur);
    expect(c.ratios.map((r) => r.scenario)).to.deep.equal(['raw-echo', 'full-flow']);
    const flow = c.ratios[1]!;
    expect(flow.p50).to.equal(0.5);
    expect(flow.throughput).to.equal(2);
    expect(flow.cpu).to.equal(0.5);
    expect(flow.agentsCpu).to.equal(0.5);
    expect(flow.serverCpu).to.equal(0.75);
    expect(flow.failures).to.equal(2);
    expect(c.ratios[0]!.agentsCpu).to.equal(undefined);
    expect(c.ratios[0]!.serverCpu).to.equal(undefined);
  });

  it('lists scenarios present in only one run and flags different options', () => {
    const c = compareRuns(old, report(cur.results, 500));
    expect(c.onlyOld).to.deep.equal(['gone']);
    expect(c.onlyNew).to.deep.equal(['added']);
    expect(c.optionsDiffer).to.equal(true);
    expect(compareRuns(old, cur).optionsDiffer).to.equal(false);
    const text = renderComparison(c, old.at);
    expect(text).to.match(/full-flow: p50 ×0\.50, throughput ×2\.00, CPU ×0\.50, agents CPU ×0\.50, ejabberd CPU ×0\.75, 2 failures/);
    expect(text).to.include('only in the old run: gone');
    expect(text).to.include('different options');
  });

  it('refuses a file that is not a bench report with a clear error', () => {
    expect(() => asBenchReport({ hello: 1 }, 'x.json')).to.throw(/x\.json is not a bench report/);
    expect(() => asBenchReport(null, 'y.json')).to.throw(/y\.json/);
  });
});
