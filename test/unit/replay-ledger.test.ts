// Replay protection that survives a restart and ignores client-supplied delay stamps (issue "Close
// the perimeter" §5): the durable ledger (shared/store/replay-ledger.ts), the agent's own record of
// its absences (shared/identity/offline-gaps.ts), and both wired into Signing and Agent.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import xml from '@xmpp/xml';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import type { Envelope } from '../../shared/acl/index.js';
import { OfflineGaps } from '../../shared/identity/index.js';
import { identify } from '../../shared/runtime/index.js';
import { ExchangeStore, GroupCommit, ReplayLedger } from '../../shared/store/index.js';
import { NS_DELAY } from '../../shared/transport/index.js';
import { DOMAIN, inbound, testAgent } from '../support/fake-transport.js';
import { signAs, testSigning } from '../support/signing.js';
import { userMsg } from './coordinator-harness.js';

const T0 = Date.parse('2026-06-01T12:00:00Z');
const MIN = 60_000;
const presenter = `presenter@${DOMAIN}`;
const presenterId = identify(presenter, DOMAIN);

/** A person's question as the Presenter signed it at `ts` for the Coordinator. */
function signedAt(ts: number): Envelope {
  return signAs(presenter, { ...userMsg('what is 6 * 7?'), timestamp: new Date(ts).toISOString() });
}

describe('Replay [gaps] an envelope older than 60 s passes only if signed while this agent was away', () => {
  const gaps = () => new OfflineGaps({ maxAgeMs: MIN, offlineMaxAgeMs: 60 * MIN, graceMs: 2 * MIN });

  it('admits what was signed during (or just before) a closed gap, until the grace period ends', () => {
    const g = gaps();
    g.opened(T0);
    g.closed(T0 + 10 * MIN);
    expect(g.acceptableUntil(T0 + 5 * MIN, T0 + 10 * MIN + 1000)).to.equal(T0 + 12 * MIN);
    expect(g.acceptableUntil(T0 - 30_000, T0 + 10 * MIN + 1000), 'signed 30 s before going away').to.equal(T0 + 12 * MIN);
    expect(g.acceptableUntil(T0 - 2 * MIN, T0 + 10 * MIN + 1000), 'signed long before the gap').to.equal(undefined);
    expect(g.acceptableUntil(T0 + 5 * MIN, T0 + 12 * MIN + 1), 'after the grace period').to.equal(undefined);
    expect(g.size, 'the spent gap is forgotten').to.equal(0);
  });

  it('never admits anything older than offlineMaxAgeMs, and nothing without a gap', () => {
    const g = gaps();
    expect(g.acceptableUntil(T0, T0 + 2 * MIN)).to.equal(undefined);
    g.opened(T0);
    g.closed(T0 + 90 * MIN);
    expect(g.acceptableUntil(T0 + 10 * MIN, T0 + 90 * MIN)).to.equal(undefined);
    expect(g.acceptableUntil(T0 + 40 * MIN, T0 + 90 * MIN)).to.equal(T0 + 92 * MIN);
  });

  it('treats a gap the transport has not closed yet as ending now (held stanzas arrive before "online")', () => {
    const g = gaps();
    g.opened(T0);
    g.opened(T0 + MIN); // a second report while still away keeps the first start
    expect(g.acceptableUntil(T0 + 30_000, T0 + 5 * MIN)).to.equal(T0 + 7 * MIN);
  });
});

describe('Replay [ledger] accepted envelopes stay refused across a restart; delay stamps count for nothing', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-replay-'));
    file = path.join(dir, 'coordinator-replay.sqlite');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** One Coordinator process: its Signing over the ledger file, clock at `now`. */
  const kb = (clock: { now: number }) => testSigning(`coordinator@${DOMAIN}`, DOMAIN, { ledger: new ReplayLedger(file), now: () => clock.now });

  it('refuses a copy after a restart (REPLAYED), and keeps entries only while a copy could pass', () => {
    const clock = { now: T0 + 1000 };
    const first = kb(clock);
    const env = signedAt(T0);
    const check = first.check(env, presenterId, 'USER_MSG');
    expect(check).to.deep.include({ ok: true });
    first.commit(check);
    first.close();
    clock.now = T0 + 20_000; // restarted 19 s later
    const second = kb(clock);
    expect(second.check(env, presenterId, 'USER_MSG')).to.deep.include({ ok: false, code: 'REPLAYED' });
    second.close();
    const ledger = new ReplayLedger(file);
    expect(ledger.live(T0 + 59_000).length).to.equal(1);
    expect(ledger.live(T0 + MIN + 1).length, 'expired with the envelope itself').to.equal(0);
    ledger.close();
  });

  it('does not make an envelope durable before it was handled (a kill in between leaves the redelivery acceptable)', () => {
    const clock = { now: T0 + 1000 };
    const first = kb(clock);
    const env = signedAt(T0);
    expect(first.check(env, presenterId, 'USER_MSG')).to.deep.include({ ok: true });
    // killed here: no commit
    const second = kb(clock);
    expect(second.check(env, presenterId, 'USER_MSG')).to.deep.include({ ok: true });
    first.close();
    second.close();
  });

  it('admits, once, what was signed while the Coordinator was down, also across a second restart', () => {
    const clock = { now: T0 };
    const first = kb(clock);
    first.cameOnline(); // heartbeat at T0
    first.close(); // killed (the last heartbeat stays T0)
    clock.now = T0 + 10 * MIN;
    const env = signedAt(T0 + 3 * MIN); // sent to it while it was away, held by the server
    const second = kb(clock);
    second.cameOnline();
    const check = second.check(env, presenterId, 'USER_MSG');
    expect(check, 'held through the outage').to.deep.include({ ok: true });
    second.commit(check);
    expect(second.check(env, presenterId, 'USER_MSG')).to.deep.include({ ok: false, code: 'REPLAYED' });
    second.close();
    clock.now += 1000;
    const third = kb(clock);
    third.cameOnline();
    // Its gap now starts after the envelope was signed: STALE by the time rules, and still in the ledger.
    expect(third.check(env, presenterId, 'USER_MSG'), 'after another restart').to.deep.include({ ok: false });
    expect(third.replay.check(check.ok && check.replay ? check.replay.key : '', T0 + 3 * MIN, T0 + 12 * MIN)).to.equal('replay');
    third.close();
  });

  it('refuses a 146 s old envelope carrying a forged <delay from="<domain>"> (STALE_MESSAGE), at a real Agent', async () => {
    const clock = { now: T0 + 146_000 };
    const { agent, transport } = testAgent('coordinator', { signing: kb(clock) });
    await agent.start();
    transport.setStatus('online');
    const env = signedAt(T0);
    const msg = inbound(presenter, env);
    msg.stanza.append(xml('delay', { xmlns: NS_DELAY, from: DOMAIN, stamp: new Date(T0 + 1000).toISOString() }));
    msg.delayed = true;
    transport.deliver(msg);
    const [reply] = transport.envelopes();
    expect(reply?.performative).to.equal('REFUSE');
    expect((reply?.content as { reason?: string }).reason).to.equal('STALE_MESSAGE');
    agent.signing?.close();
  });

  it('at a real Agent: a copy delivered to the restarted agent is dropped (REPLAYED), not handled again', async () => {
    const clock = { now: T0 + 1000 };
    const a = testAgent('coordinator', { signing: kb(clock) });
    await a.agent.start();
    a.transport.setStatus('online');
    const env = signedAt(T0);
    a.transport.deliver(inbound(presenter, env));
    expect(a.agent.counters.rejected.REPLAYED ?? 0).to.equal(0);
    a.agent.signing?.close();
    const b = testAgent('coordinator', { signing: kb(clock) });
    await b.agent.start();
    b.transport.setStatus('online');
    b.transport.deliver(inbound(presenter, env));
    expect(b.agent.counters.rejected.REPLAYED).to.equal(1);
    expect(b.transport.envelopes(), 'a copy is not answered').to.deep.equal([]);
    b.agent.signing?.close();
  });

  it('upgrades a ledger written in the keyed format (before issue 15): its entries still refuse their copies', () => {
    const clock = { now: T0 + 1000 };
    const first = kb(clock);
    const env = signedAt(T0);
    const check = first.check(env, presenterId, 'USER_MSG');
    first.commit(check);
    first.close();
    // The file as the earlier code wrote it: the same rows in a WITHOUT ROWID table keyed by key.
    const old = new Database(file);
    const rows = old.prepare('SELECT key, expires_at FROM seen').all() as Array<{ key: string; expires_at: number }>;
    expect(rows).to.have.length(1);
    old.exec(`DROP TABLE seen;
      CREATE TABLE seen (key TEXT PRIMARY KEY, expires_at INTEGER NOT NULL) WITHOUT ROWID;
      CREATE INDEX seen_expiry ON seen(expires_at);`);
    const put = old.prepare('INSERT INTO seen (key, expires_at) VALUES (?, ?)');
    for (const r of rows) put.run(r.key, r.expires_at);
    put.run('expired-entry', T0 - MIN);
    old.close();
    clock.now = T0 + 20_000;
    const second = kb(clock);
    expect(second.check(env, presenterId, 'USER_MSG')).to.deep.include({ ok: false, code: 'REPLAYED' });
    second.close();
    const after = new Database(file, { readonly: true });
    expect((after.prepare("SELECT sql FROM sqlite_master WHERE name = 'seen'").get() as { sql: string }).sql).to.not.match(/WITHOUT ROWID/);
    expect(after.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'seen_keyed'").get()).to.deep.equal({ n: 0 });
    after.close();
  });
});

describe('Resend [reconnect] what was sent just before the server went away is sent again, and dropped as a copy where it had arrived', () => {
  it('resends the last envelopes (same reply_with, signed again) after a reconnect; the receiver handles them once', async () => {
    const coordinator = testAgent('coordinator');
    await coordinator.agent.start();
    const question = userMsg('what is 6 * 7?');
    const forward = { ...question, sender: 'Coordinator', receiver: 'KB', reply_with: `r-${question.reply_with}` };
    coordinator.agent.send(forward);
    expect(coordinator.transport.sent).to.have.length(1);
    coordinator.transport.setStatus('offline');
    coordinator.transport.setStatus('online');
    const sent = coordinator.transport.envelopes();
    expect(sent.map((e) => e.reply_with)).to.deep.equal([forward.reply_with, forward.reply_with]);
    // At the receiver the first copy is handled, the second dropped as REPLAYED (never answered).
    const kb = testAgent('kb');
    await kb.agent.start();
    for (const m of coordinator.transport.sent) kb.transport.deliver(inbound(`coordinator@${DOMAIN}`, JSON.parse(m.body ?? '{}') as Envelope));
    expect(kb.agent.counters.rejected.REPLAYED).to.equal(1);
  });
  it('resends each envelope once per outage, never the copies of an earlier reconnect (no resend storm)', async () => {
    // Measured before: an ejabberd stop/start broke every stream four times, and the Coordinator
    // resent 441, 847, 1,596 and 2,339 envelopes: each reconnect also resent the last one's copies.
    const coordinator = testAgent('coordinator');
    await coordinator.agent.start();
    const sends = ['a', 'b', 'c'].map((x) => ({ ...userMsg(`q ${x}`), sender: 'Coordinator', receiver: 'KB', reply_with: `r-${x}` }));
    for (const e of sends) coordinator.agent.send(e);
    for (let outage = 0; outage < 4; outage += 1) {
      coordinator.transport.setStatus('offline');
      coordinator.transport.setStatus('online');
    }
    const counts = new Map<string, number>();
    for (const e of coordinator.transport.envelopes()) counts.set(e.reply_with, (counts.get(e.reply_with) ?? 0) + 1);
    // Sent once, then once again after each of the four outages (all within the 5 s window).
    expect(Object.fromEntries(counts)).to.deep.equal({ 'r-a': 5, 'r-b': 5, 'r-c': 5 });
  });
});

describe('Replay [ledger views] the virtual agents of one host share one ledger file, each with its own entries', () => {
  it('keeps each view to its own entries and heartbeat; closing a view leaves the file open', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-ledger-views-'));
    const owner = new ReplayLedger(path.join(dir, 'host-replay.sqlite'));
    const a = new ReplayLedger({ share: owner, scope: 'a@agents.localhost' });
    const b = new ReplayLedger({ share: owner, scope: 'b@agents.localhost' });
    a.record('did:key:x|r-1', T0 + MIN, T0);
    b.record('did:key:x|r-2', T0 + MIN, T0);
    a.heartbeat(T0 + 5);
    expect(a.live(T0)).to.deep.equal([{ key: 'did:key:x|r-1', expiresAt: T0 + MIN }]);
    expect(b.live(T0).map((e) => e.key)).to.deep.equal(['did:key:x|r-2']);
    expect(a.aliveAt()).to.equal(T0 + 5);
    expect(b.aliveAt()).to.equal(undefined);
    a.close();
    b.record('did:key:x|r-3', T0 + MIN, T0);
    expect(b.live(T0)).to.have.length(2);
    owner.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('writes the views\' heartbeats in one commit when the event loop turns, and none is lost at close', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-ledger-beats-'));
    const file = path.join(dir, 'host-replay.sqlite');
    const owner = new ReplayLedger(file);
    const views = ['a', 'b', 'c'].map((n) => new ReplayLedger({ share: owner, scope: `${n}@agents.localhost` }));
    views.forEach((v, i) => v.heartbeat(T0 + i));
    const reader = new ReplayLedger(file); // another connection: sees only what was committed
    const seen = () => ['a', 'b', 'c'].map((n) => new ReplayLedger({ share: reader, scope: `${n}@agents.localhost` }).aliveAt());
    expect(seen()).to.deep.equal([undefined, undefined, undefined]);
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(seen()).to.deep.equal([T0, T0 + 1, T0 + 2]);
    views[0]?.heartbeat(T0 + 100);
    expect(views[0]?.aliveAt()).to.equal(T0 + 100); // a read writes what waits first
    views[1]?.heartbeat(T0 + 200);
    owner.close();
    expect(seen()[1]).to.equal(T0 + 200);
    reader.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('Replay [ledger within] a durable role keeps its ledger in its exchange store\'s file', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-within-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  const record = (key: string) => ({ key, machineId: 'm', conversationId: 'c', outbound: [], snapshot: {}, timers: [], recent: [] });

  it('moves the former ledger file in, and commits entries with the snapshots in one transaction', () => {
    const now = Date.now(); // moving in keeps what is live now
    const former = path.join(dir, 'coordinator-replay.sqlite');
    const old = new ReplayLedger(former);
    old.record('k-before', now + 10 * MIN, now);
    old.heartbeat(now);
    old.close();
    const store = new ExchangeStore(path.join(dir, 'coordinator-exchanges.sqlite'));
    const ledger = new ReplayLedger({ within: store.connection, formerFile: former });
    expect(fs.existsSync(former), 'the former file is gone').to.equal(false);
    expect(ledger.live(now).map((e) => e.key)).to.deep.equal(['k-before']);
    expect(ledger.aliveAt()).to.equal(now);
    // One burst: one transaction over both (the ledger's group finds it open and writes through it).
    const group = new GroupCommit([store.group()], ledger.group());
    expect(group.begin()).to.equal(true);
    store.save('c/msg-1', record('c/msg-1'));
    ledger.record('k-1', now + 10 * MIN, now);
    group.commit();
    // A burst rolled back takes both back: never an entry without the snapshot it vouches for.
    expect(group.begin()).to.equal(true);
    store.save('c/msg-2', record('c/msg-2'));
    ledger.record('k-2', now + 10 * MIN, now);
    (store.group() as { rollback(): void }).rollback();
    ledger.close();
    expect(store.connection.open, 'the ledger leaves the store\'s connection open').to.equal(true);
    store.close();
    const again = new ExchangeStore(path.join(dir, 'coordinator-exchanges.sqlite'));
    const ledger2 = new ReplayLedger({ within: again.connection, formerFile: former });
    expect(ledger2.live(now).map((e) => e.key).sort()).to.deep.equal(['k-1', 'k-before']);
    expect(again.exchanges().map((r) => r.key)).to.deep.equal(['c/msg-1']);
    ledger2.close();
    again.close();
  });
});
