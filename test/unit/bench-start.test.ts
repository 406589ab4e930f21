// `npm run bench -- --start N`'s report (shared/bench/start-line.ts): each start, the spread, and
// the goal of issue 15 (≤ 1.5 s) judged on the slowest start and on the median.
import { expect } from 'chai';
import { renderStart } from '../../shared/bench/index.js';

describe('bench --start report', () => {
  const run = (readyMs: number, busyMs = 2400) => ({ readyMs, lineS: Math.round(readyMs / 100) / 10 - 0.1, busyMs });

  it('lists every start and the min / median / max, and says the goal is met only when every start met it', () => {
    const text = renderStart([run(1312), run(1464), run(1303)]);
    expect(text).to.contain('3 starts after one untimed');
    expect(text).to.contain('start 2: ready line 1464 ms after the spawn ("ready in 1.4 s"), machine busy 2400 ms');
    expect(text).to.contain('min / median / max 1303 / 1312 / 1464 ms');
    expect(text).to.match(/goal ≤ 1,500 ms: MET in every start$/);
  });

  it('tells a median under the goal from a start over it, and a median over it from both', () => {
    expect(renderStart([run(1300), run(1400), run(1700)])).to.match(/MET at the median, not in every start$/);
    expect(renderStart([run(1600), run(1700), run(1400)])).to.match(/goal ≤ 1,500 ms: NOT MET$/);
  });
});
