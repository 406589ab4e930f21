import { expect } from 'chai';
import { DirectoryIndex } from '../../agents/registry/directory-index.js';
import { Directory, MAX_CANDIDATES } from '../../agents/registry/directory.js';
import { isLive } from '../../agents/registry/lease.js';
import { exampleScore, featureScore, prepareHint, rankCandidates, rankFeatures, topicScore } from '../../agents/registry/ranking.js';
import type { AgentProfile } from '../../shared/contracts/index.js';
import { type DirectoryRecord, MemoryDirectoryStore, SOFT_FLUSH_MS, SqliteDirectoryStore } from '../../shared/store/index.js';

const LEASE = 15_000;
const TOPICS = [['arithmetic'], ['time zones', 'clock'], ['meeting'], [], ['unit conversion']];
const EXAMPLES = [['what is 17 * 23?'], ['what time is it in Tokyo?', 'time in Paris'], ['book a meeting on 2026-01-02'], [], ['how many km in 3 miles']];
const HINTS = [undefined, '', 'what is 391 * 7?', 'what time is it in Lima', 'meetings next week', 'convert 3 miles to km please', 'clock arithmetic'];

/** A deterministic pseudo-random sequence (tests must not depend on Math.random). */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

function randomRecord(i: number, rnd: () => number, now: number): DirectoryRecord {
  const kind = Math.floor(rnd() * TOPICS.length);
  const profile: AgentProfile = {
    jid: `a-${String(Math.floor(rnd() * 1e6)).padStart(6, '0')}-${i}@agents.localhost`, name: `a${i}`, version: '1.0.0',
    capabilities: rnd() < 0.8 ? ['ASK_EXPERT'] : ['AGORA_REQUEST'],
    role: rnd() < 0.5 ? 'math' : 'general', topics: TOPICS[kind], examples: EXAMPLES[kind],
  };
  return { profile, registered_at: now - Math.floor(rnd() * 5) * 1000, last_seen: now - Math.floor(rnd() * 2 * LEASE), last_used: rnd() < 0.3 ? Math.floor(rnd() * 4) : 0 };
}

describe('Registry [index] ranking features', () => {
  it('scores exactly as topicScore + exampleScore, for every hint', () => {
    for (let k = 0; k < TOPICS.length; k++) {
      const f = rankFeatures(TOPICS[k], EXAMPLES[k]);
      for (const h of HINTS) expect(featureScore(f, prepareHint(h))).to.equal(topicScore(TOPICS[k], h) + exampleScore(EXAMPLES[k], h));
    }
  });
});

describe('Registry [index] top-k selection', () => {
  it('gives the order of rankCandidates over every live, admitted, capable agent (randomised directories)', () => {
    const rnd = prng(7);
    const now = 1_000_000;
    for (let round = 0; round < 20; round++) {
      const records = Array.from({ length: 300 }, (_, i) => randomRecord(i, rnd, now));
      const index = new DirectoryIndex(records);
      const banned = new Set(records.filter(() => rnd() < 0.1).map((r) => r.profile.jid));
      const admits = (jid: string) => !banned.has(jid);
      for (const hint of HINTS) {
        for (const role of [undefined, 'math']) {
          for (const k of [1, 5, 100]) {
            const expected = rankCandidates(records.filter((r) => r.profile.capabilities.includes('ASK_EXPERT') && isLive(r, now, LEASE)
              && (role === undefined || r.profile.role === role) && admits(r.profile.jid)), hint).slice(0, k);
            const got = index.top('ASK_EXPERT', hint, { now, leaseMs: LEASE, k, admits, ...(role ? { role } : {}) });
            expect(got.map((r) => r.profile.jid), `round ${round} hint ${String(hint)} role ${String(role)} k ${k}`).to.deep.equal(expected.map((r) => r.profile.jid));
          }
        }
      }
    }
  });

  it('keeps that order while heads are marked used and agents register again or leave (turns over many queries)', () => {
    const rnd = prng(11);
    const now = 1_000_000;
    const records = Array.from({ length: 200 }, (_, i) => randomRecord(i, rnd, now));
    const index = new DirectoryIndex(records);
    let live = [...records];
    let used = 10;
    for (let q = 0; q < 300; q++) {
      const hint = HINTS[q % HINTS.length];
      const role = q % 3 === 0 ? 'math' : undefined;
      const expected = rankCandidates(live.filter((r) => r.profile.capabilities.includes('ASK_EXPERT') && isLive(r, now, LEASE)
        && (role === undefined || r.profile.role === role)), hint).slice(0, 20);
      const got = index.top('ASK_EXPERT', hint, { now, leaseMs: LEASE, k: 20, admits: () => true, ...(role ? { role } : {}) });
      expect(got.map((r) => r.profile.jid), `query ${q}`).to.deep.equal(expected.map((r) => r.profile.jid));
      if (got[0]) expect(index.markUsed(got[0].profile.jid, (used += 1))).to.equal(true);
      if (q % 7 === 0) {
        // One registers again (a fresh record: last_used 0), one leaves.
        const again = { ...(live[q % live.length] as DirectoryRecord), registered_at: now + q, last_used: 0 };
        index.set(again);
        live = live.map((r) => (r.profile.jid === again.profile.jid ? again : r));
        const gone = live[(q * 13) % live.length] as DirectoryRecord;
        expect(index.delete(gone.profile.jid)).to.equal(true);
        live = live.filter((r) => r !== gone);
      }
    }
    expect(index.markUsed('nobody@agents.localhost', 1)).to.equal(false);
  });

  it('reads only what it lists: 10,000 agents of one skill set, a list of 100 from a query whose cost does not grow with them', () => {
    const now = 1_000_000;
    const make = (n: number) => new DirectoryIndex(Array.from({ length: n }, (_, i) => ({
      profile: { jid: `m-${String(i).padStart(5, '0')}@agents.localhost`, name: `m${i}`, version: '1', capabilities: ['ASK_EXPERT'], topics: ['arithmetic'], examples: ['what is 17 * 23?'] },
      registered_at: now, last_seen: now, last_used: 0,
    })));
    const big = make(10_000);
    let leaseChecks = 0;
    // isLive reads last_seen: count the reads through a getter on every record.
    for (const r of big.records()) {
      const seen = r.last_seen;
      Object.defineProperty(r, 'last_seen', { get: () => ((leaseChecks += 1), seen), configurable: true });
    }
    const top = big.top('ASK_EXPERT', 'what is 2 * 3?', { now, leaseMs: LEASE, k: MAX_CANDIDATES, admits: () => true });
    expect(top.map((r) => r.profile.jid)).to.deep.equal(Array.from({ length: MAX_CANDIDATES }, (_, i) => `m-${String(i).padStart(5, '0')}@agents.localhost`));
    expect(leaseChecks).to.be.at.most(MAX_CANDIDATES + 1);
  });

  it('asks `admits` only about agents that make the list, and parses one feature set per distinct skills', () => {
    const now = 1_000_000;
    const index = new DirectoryIndex(Array.from({ length: 5000 }, (_, i) => ({
      profile: { jid: `m-${String(i).padStart(5, '0')}@agents.localhost`, name: `m${i}`, version: '1', capabilities: ['ASK_EXPERT'], topics: ['arithmetic'], examples: ['what is 17 * 23?'] },
      registered_at: now - 5000 + i, last_seen: now, last_used: 0,
    })));
    expect(index.featureSets).to.equal(1);
    let asked = 0;
    const top = index.top('ASK_EXPERT', 'what is 2 * 3?', { now, leaseMs: LEASE, k: MAX_CANDIDATES, admits: () => (asked += 1) > 0 });
    expect(top).to.have.length(MAX_CANDIDATES);
    expect(top[0]?.profile.jid).to.equal('m-00000@agents.localhost');
    expect(asked).to.equal(MAX_CANDIDATES);
  });

  it('keeps the capability index and shared features right through replace and delete', () => {
    const index = new DirectoryIndex();
    const rec = (caps: string[], topics: string[]): DirectoryRecord => ({ profile: { jid: 'a@x', name: 'a', version: '1', capabilities: caps, topics }, registered_at: 1, last_seen: 1, last_used: 0 });
    index.set(rec(['ASK_EXPERT'], ['math']));
    index.set(rec(['AGORA_REQUEST'], ['time']));
    const q = (need: string) => index.top(need, undefined, { now: 2, leaseMs: LEASE, k: 10, admits: () => true }).map((r) => r.profile.jid);
    expect(q('ASK_EXPERT')).to.deep.equal([]);
    expect(q('AGORA_REQUEST')).to.deep.equal(['a@x']);
    expect(index.featureSets).to.equal(1);
    expect(index.delete('a@x')).to.equal(true);
    expect(index.delete('a@x')).to.equal(false);
    expect(q('AGORA_REQUEST')).to.deep.equal([]);
    expect(index.featureSets).to.equal(0);
    expect(index.size).to.equal(0);
  });
});

describe('Registry [index] directory over the index', () => {
  const profile = (local: string): AgentProfile => ({ jid: `${local}@localhost`, name: local, version: '1.0.0', capabilities: ['ASK_EXPERT'] });

  it('says how many at the head rank alike (`lead`, the agents that take turns)', () => {
    const store = new SqliteDirectoryStore(':memory:');
    const dir = new Directory(store, LEASE);
    for (const l of ['a', 'b', 'c']) dir.register(profile(l), 1000);
    dir.register({ ...profile('m'), topics: ['multiply'] }, 1000);
    expect(dir.rank('ASK_EXPERT', undefined, 1001).lead, 'no hint: all alike').to.equal(4);
    const r = dir.rank('ASK_EXPERT', 'multiply 3 by 4', 1002);
    expect(r.jids[0]).to.equal('m@localhost');
    expect(r.lead, 'the topic match ranks alone').to.equal(1);
    store.close();
  });

  it('a list cut at max_results among agents that rank alike: all of them took their turn, the next query gives the next ones', () => {
    const store = new SqliteDirectoryStore(':memory:');
    const dir = new Directory(store, LEASE);
    for (const l of ['a', 'b', 'c', 'd', 'e']) dir.register(profile(l), 1000);
    expect(dir.rank('ASK_EXPERT', undefined, 1001, undefined, 2)).to.deep.equal({ jids: ['a@localhost', 'b@localhost'], lead: 2 });
    expect(dir.rank('ASK_EXPERT', undefined, 1002, undefined, 2).jids).to.deep.equal(['c@localhost', 'd@localhost']);
    expect(dir.rank('ASK_EXPERT', undefined, 1003, undefined, 2).jids).to.deep.equal(['e@localhost', 'a@localhost']);
    store.close();
  });

  it('takes turns (round-robin) and remembers the turn across a restart on the same database', () => {
    const store = new SqliteDirectoryStore(':memory:');
    const dir = new Directory(store, LEASE);
    for (const l of ['a', 'b', 'c']) dir.register(profile(l), 1000);
    expect([1, 2, 3, 4].map(() => dir.candidates('ASK_EXPERT', undefined, 1001)[0])).to.deep.equal(['a@localhost', 'b@localhost', 'c@localhost', 'a@localhost']);
    const again = new Directory(store, LEASE);
    expect(again.candidates('ASK_EXPERT', undefined, 1002)[0]).to.equal('b@localhost');
    store.close();
  });

  it('a revoked agent leaves the next lookup at once (admits is asked at query time)', () => {
    const revoked = new Set<string>();
    const dir = new Directory(new MemoryDirectoryStore(), LEASE, (jid) => !revoked.has(jid));
    dir.register(profile('a'), 1000);
    dir.register(profile('b'), 1000);
    revoked.add('a@localhost');
    expect(dir.candidates('ASK_EXPERT', undefined, 1001)).to.deep.equal(['b@localhost']);
    expect(dir.describe(undefined, 1001).map((e) => e.profile.jid)).to.deep.equal(['b@localhost']);
  });

  it('lists at most max_results (FIPA SC00023 max-results), never more than its limit', () => {
    const dir = new Directory(new MemoryDirectoryStore(), LEASE);
    for (let i = 0; i < 120; i++) dir.register(profile(`s${String(i).padStart(3, '0')}`), 1000);
    expect(dir.candidates('ASK_EXPERT', undefined, 1001, undefined, 8)).to.deep.equal(Array.from({ length: 8 }, (_, i) => `s${String(i).padStart(3, '0')}@localhost`));
    // Cut among agents that rank alike: all 8 took their turn (issue 15, a reused answer rotates
    // them), so the next 8 are the next ones.
    expect(dir.candidates('ASK_EXPERT', undefined, 1002, undefined, 8)[0]).to.equal('s008@localhost');
    expect(dir.candidates('ASK_EXPERT', undefined, 1003, undefined, 1000)).to.have.length(MAX_CANDIDATES);
    expect(dir.candidates('ASK_EXPERT', undefined, 1004)).to.have.length(MAX_CANDIDATES);
  });

  it('deregister removes from the index and the store', () => {
    const store = new SqliteDirectoryStore(':memory:');
    const dir = new Directory(store, LEASE);
    dir.register(profile('a'), 1000);
    expect(dir.deregister('a@localhost')).to.equal(true);
    expect(dir.deregister('a@localhost')).to.equal(false);
    expect(dir.candidates('ASK_EXPERT', undefined, 1001)).to.deep.equal([]);
    expect(store.all()).to.deep.equal([]);
    store.close();
  });
});

describe('store [directory] sqlite group commit', () => {
  it('queues put until the event loop turns and coalesces renew/markUsed per JID until SOFT_FLUSH_MS; writes in order, reads see them', async () => {
    const store = new SqliteDirectoryStore(':memory:');
    const rec: DirectoryRecord = { profile: { jid: 'a@x', name: 'a', version: '1', capabilities: ['ASK_EXPERT'] }, registered_at: 1, last_seen: 1, last_used: 0 };
    store.put(rec);
    store.renew('a@x', 4);
    expect(store.pending).to.equal(2); // the put, and a soft write
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(store.pending).to.equal(0); // the soft write rode with the put's commit
    store.renew('a@x', 5);
    store.markUsed('a@x', 6);
    expect(store.pending).to.equal(1); // coalesced: one per JID
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(store.pending).to.equal(1); // no commit of its own at the turn: it waits for its timer
    const deadline = Date.now() + SOFT_FLUSH_MS * 20;
    while (store.softPending > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10)); // the condition, not a fixed sleep
    expect(store.pending).to.equal(0);
    expect(store.get('a@x')).to.deep.include({ last_seen: 5, last_used: 6 }); // the latest of each
    store.markUsed('a@x', 30);
    store.put({ ...rec, last_used: 40 }); // a later put wins over an earlier soft write
    expect(store.get('a@x')).to.deep.include({ last_used: 40 });
    store.renew('a@x', 9);
    expect(store.get('a@x')).to.deep.include({ last_seen: 9, last_used: 40 }); // a read writes the queue first
    store.put({ ...rec, last_seen: 20 });
    expect(store.remove('a@x')).to.equal(true); // in order: the put lands before the remove
    expect(store.all()).to.deep.equal([]);
    store.close();
  });
});
