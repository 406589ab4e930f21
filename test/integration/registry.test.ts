// The Registry (DF) as a real process against a real ejabberd (seed contract §2.2): register,
// rank, lease expiry with a 1.5 s lease, re-registration, deregistration, restart durability.
// Test peers are raw XMPP clients (no Agent), so they never answer anything themselves.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { AgentProfile, DirectoryEntry } from '../../shared/contracts/index.js';
import { type AgentProcess, killAgents, spawnAgent } from '../support/agent-process.js';
import { sharedInstance, type TestInstance } from '../support/ejabberd.js';
import { EnvelopePeer } from '../support/peer.js';
import type { Envelope } from '../../shared/acl/index.js';
import { until } from '../support/wait.js';

const LEASE_MS = 1500;

type Peer = EnvelopePeer;

const CAP = `REGTEST_${randomUUID().slice(0, 8)}`;
const profileOf = (p: Peer, extra: Partial<AgentProfile> = {}): AgentProfile =>
  ({ jid: p.jid, name: p.name, version: '1.0.0', capabilities: [CAP], description: 'test agent', ...extra });

describe('Registry [integration] registry process on a real ejabberd', function () {
  this.timeout(60000);
  let inst: TestInstance;
  let registry: AgentProcess;
  let coord: Peer;
  let a: Peer;
  let b: Peer;
  const startRegistry = async (leaseMs = LEASE_MS) => {
    registry = spawnAgent('agents/registry/main.js', { ...inst.env, PARLEY_LEASE_MS: String(leaseMs) });
    return registry.waitFor('online');
  };
  const candidates = async (hint?: string) =>
    ((await coord.ask('QUERY-REF', { need: CAP, ...(hint ? { hint } : {}) })).content as { candidates: string[] }).candidates;
  const directory = async () =>
    ((await coord.ask('QUERY-REF', { type: 'DESCRIBE', capability: CAP })).content as { agents: DirectoryEntry[] }).agents;
  const register = (p: Peer, extra: Partial<AgentProfile> = {}) => p.ask('REQUEST', { type: 'REGISTER', profile: profileOf(p, extra) });
  const heartbeat = (p: Peer) => p.send('INFORM', { type: 'HEARTBEAT', jid: p.jid });

  before(async () => {
    inst = await sharedInstance();
    const t0 = Date.now();
    const online = await startRegistry();
    expect(online).to.include({ jid: `registry@${inst.cfg.domain}`, leaseMs: LEASE_MS });
    console.log(`      (registry online in ${Date.now() - t0} ms)`);
    coord = await EnvelopePeer.connect(inst, 'coordinator', 'Registry', 'Coordinator');
    a = await EnvelopePeer.connect(inst, 'specialist-regtest-a', 'Registry');
    b = await EnvelopePeer.connect(inst, 'specialist-regtest-b', 'Registry');
  });

  after(async () => {
    for (const p of [coord, a, b]) await p?.stop().catch(() => undefined);
    await registry?.stop();
    killAgents();
  });

  it('registers an agent (INFORM REGISTERED with the lease) and lists it as a candidate', async () => {
    const reply = await register(a);
    expect(reply).to.deep.include({ performative: 'INFORM', sender: 'Registry', receiver: a.name });
    expect(reply.content).to.deep.equal({ type: 'REGISTERED', jid: a.jid, lease_ms: LEASE_MS });
    expect(await candidates()).to.deep.equal([a.jid]);
    const times: number[] = [];
    for (let i = 0; i < 50; i++) {
      const t = performance.now();
      await candidates('a hint');
      times.push(performance.now() - t);
    }
    times.sort((x, y) => x - y);
    console.log(`      (50 sequential QUERY-REF need round trips: p50 ${times[25]?.toFixed(2)} ms, max ${times[49]?.toFixed(2)} ms)`);
  });

  it('refuses a profile for another JID (SENDER_MISMATCH) and a candidate query from a specialist (FORBIDDEN_SENDER)', async () => {
    const mismatch = await a.ask('REQUEST', { type: 'REGISTER', profile: profileOf(a, { jid: b.jid }) });
    expect(mismatch.performative).to.equal('REFUSE');
    expect(mismatch.content).to.include({ reason: 'SENDER_MISMATCH' });
    const forbidden = await a.ask('QUERY-REF', { need: CAP });
    expect(forbidden.performative).to.equal('REFUSE');
    expect(forbidden.content).to.include({ reason: 'FORBIDDEN_SENDER' });
  });

  it('ranks agents whose topics match the hint first, and rotates equal agents across queries', async () => {
    await register(a, { topics: ['astronomy'] });
    await register(b, { topics: ['cooking'] });
    expect(await candidates('an astronomy question')).to.deep.equal([a.jid, b.jid]);
    expect(await candidates('what should I be cooking tonight')).to.deep.equal([b.jid, a.jid]);
    const heads = [];
    for (let i = 0; i < 4; i++) heads.push((await candidates('no topic here'))[0]);
    expect(heads[0]).not.to.equal(heads[1]);
    expect(heads).to.deep.equal([heads[0], heads[1], heads[0], heads[1]]);
  });

  it('replaces the old entry when an agent registers again, and removes it on DEREGISTER', async () => {
    await register(a, { version: '1.0.0' });
    await register(a, { version: '2.0.0', topics: ['again'] });
    const mine = (await directory()).filter((e) => e.profile.jid === a.jid);
    expect(mine.map((e) => e.profile.version)).to.deep.equal(['2.0.0']);
    const bye = await a.ask('REQUEST', { type: 'DEREGISTER', jid: a.jid });
    expect(bye).to.deep.include({ performative: 'INFORM' });
    expect(bye.content).to.deep.equal({ type: 'DEREGISTERED', jid: a.jid });
    expect(await candidates()).not.to.include(a.jid);
  });

  it('tells the Coordinator of every change (INFORM DF_CHANGED): a REGISTER, a DEREGISTER, a lease run out', async () => {
    const told = (jid: string, after: number) => coord.inbox.slice(after).some((e) =>
      e.performative === 'INFORM' && e.sender === 'Registry' && (e.content as { type?: string; jids?: string[] }).type === 'DF_CHANGED'
      && ((e.content as { jids?: string[] }).jids ?? [jid]).includes(jid));
    let mark = coord.inbox.length;
    await register(b);
    await until(() => told(b.jid, mark), 'DF_CHANGED after the REGISTER', 5000);
    mark = coord.inbox.length;
    await b.ask('REQUEST', { type: 'DEREGISTER', jid: b.jid });
    await until(() => told(b.jid, mark), 'DF_CHANGED after the DEREGISTER', 5000);
    mark = coord.inbox.length;
    await register(b);
    await until(() => told(b.jid, mark), 'DF_CHANGED after the second REGISTER', 5000);
    mark = coord.inbox.length;
    // No heartbeat: the sweep drops the entry once its 1.5 s lease ran out, and says so.
    await until(() => told(b.jid, mark), 'DF_CHANGED after the lease ran out', 10000);
    expect(await candidates()).not.to.include(b.jid);
  });

  it('[lease] keeps an agent while it heartbeats, drops it after the lease once heartbeats stop, and asks it to register again', async () => {
    await register(a);
    const beats: Envelope[] = [];
    let lastBeat = 0;
    const until2lease = Date.now() + 2 * LEASE_MS;
    while (Date.now() < until2lease) {
      beats.push(heartbeat(a));
      lastBeat = Date.now();
      // Fixed on purpose: heartbeats at a quarter lease for two leases; time passing is the test.
      await new Promise((r) => setTimeout(r, LEASE_MS / 4));
    }
    expect(await candidates(), 'alive after two leases of heartbeats').to.include(a.jid);
    expect(beats.flatMap((hb) => a.repliesTo(hb)), 'a renewed lease gets no answer').to.deep.equal([]);

    await until(async () => !(await candidates()).includes(a.jid), 'the lease to expire', 10000, 100);
    const droppedAfter = Date.now() - lastBeat;
    console.log(`      (dropped ${droppedAfter} ms after the last heartbeat, lease ${LEASE_MS} ms)`);
    expect(droppedAfter).to.be.within(LEASE_MS - 100, LEASE_MS + 1500);
    // The periodic sweep (every lease/2) removes it from the database and says so.
    await until(() => registry.lines.some((l) => l.includes('"lease expired"') && l.includes(a.jid)), 'the sweep to log the drop', LEASE_MS);

    const late = await a.ask('INFORM', { type: 'HEARTBEAT', jid: a.jid });
    expect(late).to.deep.include({ performative: 'FAILURE' });
    expect(late.content).to.include({ reason: 'NOT_REGISTERED' });
    expect((await register(a)).content).to.include({ type: 'REGISTERED' });
    expect(await candidates()).to.include(a.jid);
  });

  it('keeps registrations across a registry restart (registered_at unchanged), while stale entries still expire', async () => {
    // A longer lease here: a restart (stop + start + login ≈ 1–1.5 s) must fit inside it.
    const lease = 4000;
    await registry.stop();
    await startRegistry(lease);
    await register(a);
    await register(b);
    const registeredB = Date.now();
    const first = new Map((await directory()).map((e) => [e.profile.jid, e.registered_at]));
    const beats: Envelope[] = [];
    const beating = setInterval(() => beats.push(heartbeat(a)), lease / 4); // b stops heartbeating
    try {
      await registry.stop();
      const t0 = Date.now();
      await startRegistry(lease);
      console.log(`      (registry restarted in ${Date.now() - t0} ms)`);
      const second = new Map((await directory()).map((e) => [e.profile.jid, e.registered_at]));
      expect(second.get(a.jid), 'a, from disk').to.equal(first.get(a.jid));
      await until(async () => !(await candidates()).includes(b.jid), 'b to expire after the restart', 10000, 100);
      expect(Date.now() - registeredB).to.be.at.least(lease - 100);
      expect(await candidates()).to.deep.equal([a.jid]);
      expect(beats.flatMap((hb) => a.repliesTo(hb)).map((e) => e.content), 'every heartbeat renewed the lease').to.deep.equal([]);
    } finally {
      clearInterval(beating);
    }
  });
});
