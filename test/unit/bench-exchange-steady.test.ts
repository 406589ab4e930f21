// The bench's exchange-steady scenario (shared/bench/exchange-steady.ts) drives the real
// Coordinator expert exchange to its end: each round trip must see ASK_EXPERT, then STORE_FACT,
// and leave no exchange open (else it throws, and the bench would count a failure).
import { expect } from 'chai';
import { exchangeSteady } from '../../shared/bench/index.js';

describe('bench [exchange-steady] the in-process Coordinator exchange', () => {
  it('runs whole conversations through the router and its durable store, and cleans up', async () => {
    const runner = await exchangeSteady(30);
    let done = 0;
    for (let i = 0; i < 20; i++) {
      await runner.roundTrip();
      done += 1;
    }
    await runner.close();
    expect(done).to.equal(20);
  });
});
