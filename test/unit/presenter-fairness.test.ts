// Fairness at the Presenter (issue "Close the perimeter" §6; agents/presenter/fairness.ts): a
// token bucket per person, a per-person cap on questions under way, round-robin between people,
// and a plain notice to the person whose lines were set aside. A fake clock drives it.
import { expect } from 'chai';
import { FairGate, type FairnessOptions, type Job } from '../../agents/presenter/fairness.js';

function gate(over: Partial<FairnessOptions> = {}) {
  const clock = { now: 0 };
  const notices: Array<{ person: string; setAside: number; at: number }> = [];
  const started: string[] = [];
  const open = new Map<string, () => void>();
  const timers: Array<() => void> = [];
  const g = new FairGate(
    { ratePerS: 2, burst: 10, inFlightPerPerson: 4, inFlightTotal: 100, queuePerPerson: 20, noticeEveryMs: 10_000, noticeDelayMs: 500, now: () => clock.now, later: (_ms, fn) => timers.push(fn), ...over },
    (person, setAside) => notices.push({ person, setAside, at: clock.now }),
  );
  const line = (person: string, id: string): ReturnType<FairGate['admit']> => {
    const job: Job = (done) => {
      started.push(id);
      open.set(id, done);
    };
    return g.admit(person, job);
  };
  const finish = (id: string) => {
    open.get(id)?.();
    open.delete(id);
  };
  const fire = () => timers.splice(0).forEach((fn) => fn());
  return { g, clock, notices, started, line, finish, fire };
}

describe('Presenter [fairness] a flood is bounded per person and never starves anyone else', () => {
  it('takes a burst, sets the rest aside and tells the flooder once per flood, then with the running count', () => {
    const t = gate();
    const outcomes = Array.from({ length: 2000 }, (_, i) => t.line('mallory@localhost', `m${i}`));
    // The first line costs nothing (nothing under way), the next 10 the burst: 4 running, 7 waiting.
    expect(outcomes.filter((o) => o === 'started')).to.have.length(4);
    expect(outcomes.filter((o) => o === 'queued')).to.have.length(7);
    expect(outcomes.filter((o) => o === 'set-aside')).to.have.length(1989);
    expect(t.notices, 'not before the notice delay').to.deep.equal([]);
    t.fire();
    expect(t.notices, 'once, with the whole count').to.deep.equal([{ person: 'mallory@localhost', setAside: 1989, at: 0 }]);
    t.clock.now = 10_000;
    t.line('mallory@localhost', 'late'); // 20 tokens' worth refilled, but the queue holds 6 + 4 running: admitted
    for (let i = 0; i < 30; i++) t.line('mallory@localhost', `again${i}`);
    t.fire();
    expect(t.notices.length, 'told again after noticeEveryMs').to.equal(2);
    expect(t.notices[1]?.setAside).to.be.greaterThan(1989);
  });

  it('starts a person\'s waiting lines as their earlier questions end, in order', () => {
    const t = gate();
    for (let i = 0; i < 6; i++) t.line('alice@localhost', `a${i}`);
    expect(t.started).to.deep.equal(['a0', 'a1', 'a2', 'a3']);
    expect(t.g.waiting('alice@localhost')).to.equal(2);
    t.finish('a1');
    expect(t.started).to.deep.equal(['a0', 'a1', 'a2', 'a3', 'a4']);
    t.finish('a1'); // a second done() for the same question counts once
    expect(t.g.running('alice@localhost')).to.equal(4);
  });

  it('serves people round-robin when everyone together is at the cap: a newcomer goes before a backlog', () => {
    const t = gate({ inFlightTotal: 4, inFlightPerPerson: 4 });
    for (let i = 0; i < 10; i++) t.line('mallory@localhost', `m${i}`);
    expect(t.line('bob@localhost', 'b0')).to.equal('queued');
    t.finish('m0');
    expect(t.started.at(-1), 'bob first, though mallory queued earlier').to.equal('b0');
    t.finish('m1');
    expect(t.started.at(-1)).to.equal('m4');
  });

  it('refills the bucket over time and forgets a person who went quiet', () => {
    const t = gate({ burst: 2, ratePerS: 1 });
    const burst = ['c0', 'c1', 'c2', 'c3'].map((id) => t.line('carol@localhost', id));
    expect(burst).to.deep.equal(['started', 'started', 'started', 'set-aside']);
    t.clock.now = 1000;
    expect(t.line('carol@localhost', 'c4')).to.equal('started');
    for (const id of ['c0', 'c1', 'c2', 'c4']) t.finish(id);
    t.clock.now = 20_000;
    expect(t.line('carol@localhost', 'c5')).to.equal('started');
    t.finish('c5');
    expect(t.g.running()).to.equal(0);
  });

  it('never slows someone who waits for each answer, however fast the answers come', () => {
    const t = gate({ burst: 2, ratePerS: 1 });
    for (let i = 0; i < 500; i++) {
      expect(t.line('script@localhost', `s${i}`)).to.equal('started');
      t.finish(`s${i}`);
    }
    expect(t.notices).to.deep.equal([]);
  });
});
