import { expect } from 'chai';
import { SimulatedClock } from 'xstate';
import { Directory } from '../../agents/registry/directory.js';
import { expiresAt, isLive, partitionByLease } from '../../agents/registry/lease.js';
import type { AgentProfile } from '../../shared/contracts/index.js';
import { MemoryDirectoryStore, SqliteDirectoryStore } from '../../shared/store/index.js';

const LEASE = 1500;
const profile = (local: string, extra: Partial<AgentProfile> = {}): AgentProfile =>
  ({ jid: `${local}@localhost`, name: local, version: '1.0.0', capabilities: ['ASK_EXPERT'], ...extra });

describe('Registry [lease] pure rules', () => {
  it('is live strictly before last_seen + lease and expired from then on', () => {
    expect(isLive({ last_seen: 1000 }, 2499, LEASE)).to.equal(true);
    expect(isLive({ last_seen: 1000 }, 2500, LEASE)).to.equal(false);
    expect(expiresAt({ last_seen: 1000 }, LEASE)).to.equal(2500);
  });

  it('does not let a last_seen far in the future (clock jump) live forever', () => {
    expect(isLive({ last_seen: 10_000 }, 9_000, LEASE)).to.equal(true);
    expect(isLive({ last_seen: 100_000 }, 9_000, LEASE)).to.equal(false);
  });

  it('partitions records into live and expired', () => {
    const { live, expired } = partitionByLease([{ last_seen: 0 }, { last_seen: 900 }, { last_seen: 1000 }], 2000, LEASE);
    expect(live.map((r) => r.last_seen)).to.deep.equal([900, 1000]);
    expect(expired.map((r) => r.last_seen)).to.deep.equal([0]);
  });
});

describe('Registry [lease] directory over simulated time', () => {
  let clock: SimulatedClock;
  let dir: Directory;
  beforeEach(() => {
    clock = new SimulatedClock();
    clock.set(1_000_000);
    dir = new Directory(new MemoryDirectoryStore(), LEASE);
  });

  it('drops an agent whose heartbeats stop', () => {
    dir.register(profile('specialist-a'), clock.now());
    clock.increment(1000);
    expect(dir.heartbeat('specialist-a@localhost', clock.now())).to.equal(true);
    clock.increment(1000); // 2 s after REGISTER, 1 s after the heartbeat: still live
    expect(dir.candidates('ASK_EXPERT', undefined, clock.now())).to.deep.equal(['specialist-a@localhost']);
    clock.increment(500); // exactly one lease after the last heartbeat
    expect(dir.candidates('ASK_EXPERT', undefined, clock.now())).to.deep.equal([]);
    expect(dir.describe(undefined, clock.now())).to.deep.equal([]);
  });

  it('answers a heartbeat after expiry with "not registered" and forgets the entry until it registers again', () => {
    dir.register(profile('specialist-a'), clock.now());
    clock.increment(LEASE);
    expect(dir.heartbeat('specialist-a@localhost', clock.now())).to.equal(false);
    expect(dir.heartbeat('specialist-a@localhost', clock.now())).to.equal(false);
    dir.register(profile('specialist-a'), clock.now());
    expect(dir.heartbeat('specialist-a@localhost', clock.now())).to.equal(true);
  });

  it('sweeps expired registrations and reports which', () => {
    dir.register(profile('specialist-a'), clock.now());
    clock.increment(1000);
    dir.register(profile('specialist-b'), clock.now());
    clock.increment(600);
    expect(dir.sweep(clock.now()).expired).to.deep.equal(['specialist-a@localhost']);
    expect(dir.sweep(clock.now()).expired).to.deep.equal([]);
    expect(dir.describe(undefined, clock.now()).map((e) => e.profile.jid)).to.deep.equal(['specialist-b@localhost']);
  });

  it('keeps last_seen across a restart, so a stale entry still expires', () => {
    const store = new SqliteDirectoryStore(':memory:');
    const before = new Directory(store, LEASE);
    before.register(profile('specialist-a'), clock.now());
    clock.increment(1000);
    const after = new Directory(store, LEASE); // the Registry restarted on the same database
    expect(after.candidates('ASK_EXPERT', undefined, clock.now())).to.deep.equal(['specialist-a@localhost']);
    clock.increment(500);
    expect(after.candidates('ASK_EXPERT', undefined, clock.now())).to.deep.equal([]);
    store.close();
  });
});

describe('Registry [directory] registration and lookup', () => {
  const now = 5_000_000;
  let dir: Directory;
  beforeEach(() => (dir = new Directory(new MemoryDirectoryStore(), LEASE)));

  it('registers under the bare JID and answers the lease', () => {
    expect(dir.register(profile('specialist-a', { jid: 'specialist-a@localhost/agent-7' }), now)).to.deep.equal({ jid: 'specialist-a@localhost', lease_ms: LEASE });
    expect(dir.describe(undefined, now)[0]?.profile.jid).to.equal('specialist-a@localhost');
  });

  it('replaces the old entry on re-registration', () => {
    dir.register(profile('specialist-a', { version: '1.0.0', capabilities: ['ASK_EXPERT'] }), now);
    dir.register(profile('specialist-a', { version: '2.0.0', capabilities: ['TRANSLATE'] }), now + 10);
    const entries = dir.describe(undefined, now + 10);
    expect(entries).to.have.length(1);
    expect(entries[0]?.profile.version).to.equal('2.0.0');
    expect(entries[0]?.registered_at).to.equal(new Date(now + 10).toISOString());
    expect(dir.candidates('ASK_EXPERT', undefined, now + 10)).to.deep.equal([]);
    expect(dir.candidates('TRANSLATE', undefined, now + 10)).to.deep.equal(['specialist-a@localhost']);
  });

  it('returns only agents offering the capability, and an empty list when none does', () => {
    dir.register(profile('specialist-a'), now);
    dir.register(profile('calendar-bob', { capabilities: ['CALENDAR'] }), now);
    expect(dir.candidates('CALENDAR', undefined, now)).to.deep.equal(['calendar-bob@localhost']);
    expect(dir.candidates('NOBODY_DOES_THIS', undefined, now)).to.deep.equal([]);
  });

  it('takes turns: equal candidates rotate across queries, even within one millisecond', () => {
    for (const a of ['specialist-a', 'specialist-b', 'specialist-c']) dir.register(profile(a), now);
    const heads = Array.from({ length: 6 }, () => dir.candidates('ASK_EXPERT', undefined, now)[0]);
    expect(heads).to.deep.equal(['a', 'b', 'c', 'a', 'b', 'c'].map((x) => `specialist-${x}@localhost`));
    expect(dir.candidates('ASK_EXPERT', undefined, now)).to.have.members(['specialist-a@localhost', 'specialist-b@localhost', 'specialist-c@localhost']);
  });

  it('ranks topic matches first, then rotates among them', () => {
    dir.register(profile('specialist-general'), now);
    dir.register(profile('specialist-math1', { topics: ['math'] }), now);
    dir.register(profile('specialist-math2', { topics: ['math'] }), now);
    const first = dir.candidates('ASK_EXPERT', 'a math question', now);
    const second = dir.candidates('ASK_EXPERT', 'a math question', now);
    expect(first.slice(0, 2)).to.have.members(['specialist-math1@localhost', 'specialist-math2@localhost']);
    expect(second[0]).to.equal(first[1]);
    expect(first[2]).to.equal('specialist-general@localhost');
  });

  it('deregisters and says whether the agent was registered', () => {
    dir.register(profile('specialist-a'), now);
    expect(dir.deregister('specialist-a@localhost')).to.equal(true);
    expect(dir.deregister('specialist-a@localhost')).to.equal(false);
    expect(dir.candidates('ASK_EXPERT', undefined, now)).to.deep.equal([]);
  });

  it('describes the live directory by name, filtered by capability, within 64 kB', () => {
    dir.register(profile('specialist-b', { examples: ['hello'] }), now);
    dir.register(profile('specialist-a'), now);
    dir.register(profile('calendar-x', { capabilities: ['CALENDAR'] }), now);
    expect(dir.describe(undefined, now).map((e) => e.profile.name)).to.deep.equal(['calendar-x', 'specialist-a', 'specialist-b']);
    expect(dir.describe('ASK_EXPERT', now).map((e) => e.profile.name)).to.deep.equal(['specialist-a', 'specialist-b']);
    const big = new Directory(new MemoryDirectoryStore(), LEASE);
    for (let i = 0; i < 60; i++) big.register(profile(`specialist-${i}`, { description: 'x'.repeat(1900) }), now);
    const entries = big.describe(undefined, now);
    expect(entries.length).to.be.within(1, 59);
    expect(Buffer.byteLength(JSON.stringify({ type: 'DIRECTORY', agents: entries }))).to.be.at.most(64 * 1024);
  });
});
