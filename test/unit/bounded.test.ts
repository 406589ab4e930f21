// shared/runtime/bounded.ts: the bounded memories forget exactly what the Map/Set idiom they
// replace forgot (oldest added first; set() refreshes, reads do not), and a RecentMap's queue
// stays bounded however its keys are used.
import { expect } from 'chai';
import { BoundedSet, RecentMap } from '../../shared/runtime/index.js';

describe('bounded [BoundedSet] the oldest added member goes first', () => {
  it('keeps at most max members, forgetting in the order they were added', () => {
    const s = new BoundedSet(3);
    for (const k of ['a', 'b', 'c', 'd']) s.add(k);
    expect(s.size).to.equal(3);
    expect(['a', 'b', 'c', 'd'].map((k) => s.has(k))).to.deep.equal([false, true, true, true]);
    s.add('e');
    s.add('f');
    expect(['b', 'c', 'd', 'e', 'f'].map((k) => s.has(k))).to.deep.equal([false, false, true, true, true]);
  });

  it('neither has() nor adding a member again makes it younger', () => {
    const s = new BoundedSet(2);
    s.add('a');
    s.add('b');
    expect(s.has('a')).to.equal(true);
    s.add('a');
    s.add('c');
    expect(s.has('a'), 'a was still the oldest').to.equal(false);
    expect(s.has('b') && s.has('c')).to.equal(true);
  });

  it('goes round its ring many times over and still holds the last max members', () => {
    const s = new BoundedSet(1000);
    for (let i = 0; i < 25_000; i++) s.add(`msg-${i}`);
    expect(s.size).to.equal(1000);
    expect(s.has('msg-24000') && s.has('msg-24999')).to.equal(true);
    expect(s.has('msg-23999')).to.equal(false);
  });

  it('refuses a capacity below one', () => {
    expect(() => new BoundedSet(0)).to.throw(RangeError);
  });
});

describe('bounded [RecentMap] the entry set longest ago goes first', () => {
  it('set() makes a key the newest, get() and has() do not', () => {
    const m = new RecentMap<number>(3);
    m.set('a', 1);
    m.set('b', 2);
    m.set('c', 3);
    m.set('a', 10); // a is now the newest
    expect(m.get('b')).to.equal(2); // a read: b stays the oldest
    m.set('d', 4);
    expect(m.has('b')).to.equal(false);
    expect([m.get('a'), m.get('c'), m.get('d')]).to.deep.equal([10, 3, 4]);
    expect(m.size).to.equal(3);
  });

  it('a deleted key frees its place and comes back as the newest', () => {
    const m = new RecentMap<string>(2);
    m.set('a', 'x');
    m.set('b', 'y');
    expect(m.delete('a')).to.equal(true);
    m.set('c', 'z');
    expect([m.has('a'), m.has('b'), m.has('c')]).to.deep.equal([false, true, true]);
    m.set('a', 'again');
    expect([m.has('b'), m.get('c'), m.get('a')]).to.deep.equal([false, 'z', 'again']);
  });

  it('keeps its queue bounded when one key is set over and over, and when it evicts for ever', () => {
    const one = new RecentMap<number>(100);
    for (let i = 0; i < 100_000; i++) one.set('same', i);
    expect(one.get('same')).to.equal(99_999);
    expect(one.backlog).to.be.at.most(2 * 100 + 1024 + 1);
    const churn = new RecentMap<number>(100);
    for (let i = 0; i < 100_000; i++) churn.set(`k${i}`, i);
    expect(churn.size).to.equal(100);
    expect(churn.has('k99900') && churn.has('k99999') && !churn.has('k99899')).to.equal(true);
    expect(churn.backlog).to.be.at.most(2 * 100 + 1024 + 1);
  });

  it('matches the Map it replaces (delete, set, drop the first key beyond max) over a random run', () => {
    const max = 50;
    const m = new RecentMap<number>(max);
    const ref = new Map<string, number>();
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 20_000; i++) {
      const key = `k${Math.floor(rnd() * 120)}`;
      const op = rnd();
      if (op < 0.6) {
        m.set(key, i);
        ref.delete(key);
        ref.set(key, i);
        if (ref.size > max) ref.delete(ref.keys().next().value as string);
      } else if (op < 0.8) {
        expect(m.delete(key)).to.equal(ref.delete(key));
      } else {
        expect(m.get(key)).to.equal(ref.get(key));
      }
    }
    expect(m.size).to.equal(ref.size);
    for (const [k, v] of ref) expect(m.get(k)).to.equal(v);
  });
});
