// Telemetry's clock (shared/runtime/telemetry.ts preciseClock): sub-millisecond, and within about
// a millisecond of the wall clock even after the wall clock stepped, so records of several
// processes order as the events did (a CI run's Presenter was 10 ms ahead of the other agents).
import { expect } from 'chai';
import { preciseClock, preciseNow } from '../../shared/runtime/index.js';

describe('telemetry [clock] precise, and agreeing with the wall clock across processes', () => {
  it('keeps the monotonic clock\'s sub-millisecond readings while the wall clock agrees', () => {
    let mono = 100.123;
    let wall = 1_000_100;
    const now = preciseClock(() => mono, () => wall, 1_000_000);
    expect(now()).to.be.closeTo(1_000_100.123, 1e-6);
    mono += 0.4;
    expect(now()).to.be.closeTo(1_000_100.523, 1e-6);
    mono += 5.2;
    wall += 5;
    expect(now()).to.be.closeTo(1_000_105.723, 1e-6);
  });

  it('attack on trace order: a wall-clock step of 10 ms after the start is followed within a millisecond', () => {
    let mono = 100;
    let wall = 1_000_100;
    const stale = preciseClock(() => mono, () => wall, 1_000_000);
    expect(stale()).to.equal(1_000_100);
    wall += 10; // NTP stepped the clock: a process started now reads the new time
    const fresh = preciseClock(() => mono, () => wall, 1_000_010);
    const a = stale();
    const b = fresh();
    expect(Math.abs(a - b)).to.be.at.most(1.25);
    mono += 0.3;
    expect(stale()).to.be.closeTo(fresh(), 1.25);
    wall -= 10; // and back
    expect(stale()).to.be.within(wall - 0.25, wall + 1.25);
  });

  it('preciseNow reads the real clocks: within a millisecond and a half of Date.now()', () => {
    for (let i = 0; i < 1000; i++) {
      const d = Date.now();
      const p = preciseNow();
      expect(p).to.be.within(d - 0.25, Date.now() + 1.25);
    }
  });
});
