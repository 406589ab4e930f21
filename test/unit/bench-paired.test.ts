// npm run bench -- --console --paired N (shared/bench/paired.ts): both sides measured in one run,
// blocks in ABBA order, each round trip counted for the side that was switched on when it ran.
import { expect } from 'chai';
import { blockOrder, measurePaired } from '../../shared/bench/index.js';
import type { Scenario } from '../../shared/bench/index.js';

const scenario = (name: string): Scenario => ({ name, description: name, setup: () => Promise.reject(new Error('not used')) });

describe('bench [paired] the console\'s overhead measured in alternating blocks of one run', () => {
  it('settles after each switch for at least settleMs, in round trips that are not measured', async () => {
    let trips = 0;
    const runner = { roundTrip: () => new Promise<void>((r) => setImmediate(() => { trips += 1; r(); })), close: async () => undefined };
    const toggle = { on: async () => undefined, off: async () => undefined };
    const opts = { warmup: 1, rounds: 2, inFlight: 1, total: 2, maxFailures: 0 };
    const t0 = performance.now();
    const [plain, watched] = await measurePaired(scenario('a'), scenario('b'), runner, opts, toggle, 1, { settleMs: 30 });
    // Switches: on (warm-up), off, on, and off for the throughput blocks (reversed order): four settles.
    expect(performance.now() - t0, 'four settles of ≥ 30 ms each').to.be.at.least(4 * 30);
    const measured = plain.sequential.n + watched.sequential.n + 2 * opts.total;
    expect(measured).to.equal(2 * opts.rounds + 2 * opts.total);
    expect(trips - measured - opts.warmup, 'round trips spent settling').to.be.greaterThan(4);
  });

  it('orders the blocks A B B A A B B A (a steady drift weighs on both sides alike)', () => {
    expect(blockOrder(4)).to.deep.equal(['off', 'on', 'on', 'off', 'off', 'on', 'on', 'off']);
    expect(blockOrder(1)).to.deep.equal(['off', 'on']);
  });

  it('runs every measured round trip on the side switched on, and counts rounds, totals and failures per side', async () => {
    let side: 'on' | 'off' | undefined;
    const switches: string[] = [];
    const ran = { on: 0, off: 0 };
    let n = 0;
    const runner = {
      async roundTrip() {
        if (!side) throw new Error('no side yet');
        ran[side] += 1;
        // Every 7th round trip on the watched side fails: counted there, not on the plain side.
        if (side === 'on' && ++n % 7 === 0) throw new Error('boom');
      },
      close: async () => undefined,
    };
    const toggle = { on: async () => { side = 'on'; switches.push('on'); }, off: async () => { side = 'off'; switches.push('off'); } };
    const opts = { warmup: 5, rounds: 40, inFlight: 4, total: 100, maxFailures: 1000 };
    const [plain, watched] = await measurePaired(scenario('full-flow'), scenario('full-flow+console'), runner, opts, toggle, 2, { settleMs: 0 });
    expect(plain.name).to.equal('full-flow');
    expect(watched.name).to.equal('full-flow+console');
    expect(plain.failures).to.deep.include({ sequential: 0, concurrent: 0 });
    expect(watched.failures.sequential + watched.failures.concurrent).to.be.greaterThan(0);
    expect(plain.sequential.n, 'every plain sequential round trip succeeded').to.equal(40);
    expect(watched.sequential.n + watched.failures.sequential).to.equal(40);
    // Throughput per side: total round trips, the successful ones per second.
    expect(plain.concurrent.total).to.equal(100);
    // Switches: on (warm-up), then the blocks off on (on) off, then the throughput blocks reversed: (off) on (on) off.
    expect(switches).to.deep.equal(['on', 'off', 'on', 'off', 'on', 'off']);
    // Warm-up 5 + settle 5 per switch (min(30, warmup)) + 40 + 100 per side.
    expect(ran.off).to.equal(40 + 100 + 5 * 3);
    expect(ran.on).to.equal(5 + 40 + 100 + 5 * 3);
  });
});
