import { expect } from 'chai';
import { Directory } from '../../agents/registry/directory.js';
import type { AgentProfile } from '../../shared/contracts/index.js';
import { LeaseGroup } from '../../shared/runtime/component-host.js';
import { MemoryDirectoryStore, SqliteDirectoryStore } from '../../shared/store/index.js';

const LEASE = 15_000;
const GROUP = 'g-0123456789abcdef';
const profile = (jid: string, group?: string): AgentProfile =>
  ({ jid, name: jid.split('@')[0] as string, version: '1', capabilities: ['ASK_EXPERT'], ...(group ? { lease_group: group } : {}) });
const listed = (dir: Directory, now: number) => dir.describe(undefined, now).map((e) => e.profile.jid).sort();

describe('Registry [lease group] one HEARTBEAT for a host', () => {
  for (const [label, make] of [['memory', () => new MemoryDirectoryStore()], ['sqlite', () => new SqliteDirectoryStore(':memory:')]] as const) {
    it(`renews every live member with one member's HEARTBEAT, and the lease survives a restart (${label})`, () => {
      const store = make();
      const dir = new Directory(store, LEASE);
      for (let i = 1; i <= 3; i++) dir.register(profile(`h-${i}@agents.x`, GROUP), 1000);
      dir.register(profile('alone@agents.x'), 1000);
      expect(dir.heartbeat('h-1@agents.x', 10_000)).to.equal(true);
      // 1000 + LEASE has passed: only the group (renewed at 10,000) is still listed.
      expect(listed(dir, 16_500)).to.deep.equal(['h-1@agents.x', 'h-2@agents.x', 'h-3@agents.x']);
      const again = new Directory(store, LEASE); // the Registry restarted on the same database
      expect(listed(again, 16_500)).to.deep.equal(['h-1@agents.x', 'h-2@agents.x', 'h-3@agents.x']);
      expect(again.heartbeat('h-2@agents.x', 20_000)).to.equal(true);
      expect(listed(again, 34_000)).to.deep.equal(['h-1@agents.x', 'h-2@agents.x', 'h-3@agents.x']);
      store.close();
    });
  }

  it('a host that dies (no more HEARTBEATs) drops all its agents within one lease', () => {
    const dir = new Directory(new MemoryDirectoryStore(), LEASE);
    for (let i = 1; i <= 3; i++) dir.register(profile(`h-${i}@agents.x`, GROUP), 1000);
    dir.heartbeat('h-1@agents.x', 5000);
    expect(listed(dir, 5000 + LEASE - 1)).to.have.length(3);
    expect(listed(dir, 5000 + LEASE)).to.deep.equal([]);
    expect(dir.sweep(5000 + LEASE).expired.sort()).to.deep.equal(['h-1@agents.x', 'h-2@agents.x', 'h-3@agents.x']);
  });

  it('attack: an expired member is not brought back by the group', () => {
    const dir = new Directory(new MemoryDirectoryStore(), LEASE);
    dir.register(profile('old@agents.x', GROUP), 1000);
    dir.register(profile('new@agents.x', GROUP), 10_000);
    expect(dir.heartbeat('new@agents.x', 17_000)).to.equal(true); // old expired at 16,000
    expect(listed(dir, 17_000)).to.deep.equal(['new@agents.x']);
    expect(dir.heartbeat('old@agents.x', 17_000)).to.equal(false); // it must REGISTER again
  });

  it('attack: an agent of another domain naming the same group keeps none of them alive (memory and SQL)', () => {
    const store = new SqliteDirectoryStore(':memory:');
    const dir = new Directory(store, LEASE);
    dir.register(profile('h-1@agents.x', GROUP), 1000);
    dir.register(profile('mallory@calendars.x', GROUP), 1000);
    for (let t = 5000; t <= 30_000; t += 5000) expect(dir.heartbeat('mallory@calendars.x', t)).to.equal(true);
    expect(listed(dir, 30_000)).to.deep.equal(['mallory@calendars.x']);
    expect(listed(new Directory(store, LEASE), 30_000)).to.deep.equal(['mallory@calendars.x']);
    store.close();
  });

  it('never lists the group: not in DESCRIBE, not in the store\'s profile', () => {
    const store = new SqliteDirectoryStore(':memory:');
    const dir = new Directory(store, LEASE);
    dir.register(profile('h-1@agents.x', GROUP), 1000);
    expect(JSON.stringify(dir.describe(undefined, 1000))).not.to.include(GROUP);
    expect(store.get('h-1@agents.x')?.profile).not.to.have.property('lease_group');
    expect(store.get('h-1@agents.x')?.lease_group).to.equal(GROUP);
    store.close();
  });
});

describe('Host [lease group] beats and losses', () => {
  /** Timers run by hand: `fire()` runs the pending one. */
  function manual() {
    let pending: { fn: () => void; ms: number } | undefined;
    const timers = {
      set: ((fn: () => void, ms: number) => ((pending = { fn, ms }), { unref() {} })) as unknown as typeof setTimeout,
      clear: (() => (pending = undefined)) as unknown as typeof clearTimeout,
    };
    return { timers, fire: () => { const p = pending; pending = undefined; p?.fn(); }, get ms() { return pending?.ms; } };
  }

  it('sends one BEAT per interval from one registered member, never faster than half the lease', () => {
    const t = manual();
    const g = new LeaseGroup(5000, t.timers);
    const got: string[] = [];
    for (const k of ['a', 'b', 'c']) g.join(k, (e) => got.push(`${k}:${e.type}`));
    expect(t.ms).to.equal(undefined); // nobody registered: nothing to renew
    g.registered('b', 6000);
    g.registered('c', 6000);
    expect(t.ms).to.equal(3000);
    t.fire();
    t.fire();
    expect(got).to.deep.equal(['b:BEAT', 'b:BEAT']);
    expect(g.id).to.match(/^[A-Za-z0-9_-]{16,64}$/);
    g.close();
    expect(t.ms).to.equal(undefined);
  });

  it('when the beating member is answered NOT_REGISTERED, every other registered member is told LOST once (no cascade)', () => {
    const t = manual();
    const g = new LeaseGroup(5000, t.timers);
    const got: string[] = [];
    for (const k of ['a', 'b', 'c']) g.join(k, (e) => got.push(`${k}:${e.type}`));
    for (const k of ['a', 'b', 'c']) g.registered(k, LEASE);
    g.unregistered('a'); // its machine went back to `queued` on FAILURE NOT_REGISTERED
    expect(got).to.deep.equal(['b:LOST', 'c:LOST']);
    g.unregistered('b'); // their machines go back to `queued` because they were told
    g.unregistered('c');
    expect(got).to.deep.equal(['b:LOST', 'c:LOST']);
    expect(g.losses).to.equal(1);
    g.registered('c', LEASE);
    t.fire();
    expect(got.at(-1)).to.equal('c:BEAT');
    g.leave('c');
    t.fire();
    expect(got.at(-1)).to.equal('c:BEAT'); // nobody registered: no BEAT
  });
});
