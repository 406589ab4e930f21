// Durability (issue #6): a durable router persists each exchange after every transition and a new
// router (the restarted process) restores it from the same SQLite store, timers re-armed from their
// stored deadlines; the inbound ledger drops copies across restarts. SimulatedClock throughout.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { SimulatedClock } from 'xstate';
import { type Envelope, replyTo } from '../../shared/acl/index.js';
import { silentLogger } from '../../shared/log/index.js';
import { identify, Router } from '../../shared/runtime/index.js';
import { ExchangeStore } from '../../shared/store/index.js';
import { userMsgFactory } from '../../agents/coordinator/factory.js';
import { DOMAIN, T, userMsg } from './coordinator-harness.js';

const presenter = identify(`presenter@${DOMAIN}`, DOMAIN);
const registry = identify(`registry@${DOMAIN}`, DOMAIN);
const math = identify(`specialist-math@${DOMAIN}`, DOMAIN);

/** One Coordinator process: a router over `file`, its own clock set to `now` (the restart time). */
function coordinator(file: string, now: number) {
  const clock = new SimulatedClock();
  clock.set(now);
  const store = new ExchangeStore(file, { now: () => clock.now() });
  const sent: Envelope[] = [];
  const crashes: string[] = [];
  const router = new Router({
    logger: silentLogger(), clock, persist: store,
    send: (envelope) => sent.push(envelope), note: () => undefined, crashed: (key) => crashes.push(key),
  });
  router.on('USER_MSG', userMsgFactory({ self: 'Coordinator', domain: DOMAIN, timeouts: T }));
  const restore = () => store.exchanges().map((rec) => router.restore(rec));
  return { clock, store, sent, crashes, router, restore, last: () => sent[sent.length - 1] as Envelope };
}

describe('Durability [snapshots] exchanges survive a restart', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-durable-'));
    file = path.join(dir, 'coordinator-exchanges.sqlite');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('restores an exchange, re-arms its timer for the time left, and routes the late reply to it', () => {
    const a = coordinator(file, 1_000_000);
    const q = userMsg('what is 2 + 2?');
    expect(a.router.deliver(q, 'USER_MSG', presenter).outcome).to.equal('opened');
    const lookup = a.last();
    expect(lookup.receiver).to.equal('Registry');
    a.clock.increment(1000); // 2 s of the 3 s REGISTRY_TIMEOUT left
    const [rec] = a.store.exchanges();
    expect(rec?.timers).to.have.length(1);
    expect(rec?.timers[0]?.deadline).to.equal(1_000_000 + T.registryTimeoutMs);
    a.store.close(); // SIGKILL: nothing else happens in process a

    // Restarted 500 ms later: 1.5 s left on the DF's clock.
    const b = coordinator(file, 1_001_500);
    expect(b.restore().every(Boolean)).to.equal(true);
    expect(b.router.size).to.equal(1);
    b.clock.increment(1499);
    expect(b.sent).to.have.length(0);
    // The DF's answer to the QUERY-REF sent before the crash still finds the exchange.
    const answer = replyTo(lookup, { performative: 'INFORM', content: { candidates: [math.jid] } });
    expect(b.router.deliver(answer, 'INFORM', registry)).to.deep.include({ outcome: 'routed' });
    const ask = b.last();
    expect(ask.receiver).to.equal('specialist-math');
    expect(ask.content.type).to.equal('ASK_EXPERT');
    // The stale REGISTRY_TIMEOUT was cancelled with the state it belonged to: only AGREE_TIMEOUT is pending.
    expect(b.store.exchanges()[0]?.timers.map((t) => t.deadline)).to.deep.equal([1_001_500 + 1499 + T.agreeTimeoutMs]);
    b.store.close();
  });

  it('fires an overdue timer at once after the restart (no AGREE: CANCEL, then the clear FAILURE)', () => {
    const a = coordinator(file, 5_000);
    const q = userMsg('what is 3 + 3?');
    a.router.deliver(q, 'USER_MSG', presenter);
    a.router.deliver(replyTo(a.last(), { performative: 'INFORM', content: { candidates: [math.jid] } }), 'INFORM', registry);
    const ask = a.last();
    a.store.close();

    const b = coordinator(file, 5_000 + T.agreeTimeoutMs + 10_000); // down longer than the AGREE timeout
    b.restore();
    b.clock.increment(0);
    expect(b.sent.map((e) => `${e.performative} ${e.receiver}`)).to.deep.equal(['CANCEL specialist-math', 'FAILURE Presenter']);
    expect(b.sent[0]?.in_reply_to).to.equal(ask.reply_with);
    expect(b.sent[1]?.in_reply_to).to.equal(q.reply_with);
    expect(b.sent[1]?.content.reason).to.equal('SPECIALIST_TIMEOUT');
    expect(b.router.size).to.equal(0);
    expect(b.store.exchanges()).to.have.length(0);
    // Its last words are kept a moment, to be resent if this process died before they left.
    expect(b.store.recentlyFinished().flatMap((f) => f.sends.map((e) => e.performative))).to.deep.equal(['CANCEL', 'FAILURE']);
    b.store.close();
  });

  it('keeps the envelopes of the last second with the snapshot (resent at restore; receivers drop copies)', () => {
    const a = coordinator(file, 0);
    a.router.deliver(userMsg('what is 4 + 4?'), 'USER_MSG', presenter);
    expect(a.store.exchanges()[0]?.recent.map((r) => r.envelope.receiver)).to.deep.equal(['Registry']);
    a.clock.increment(1500);
    a.router.send(a.router.keys()[0] as string, { type: 'noop' }); // any transition re-saves
    expect(a.store.exchanges()[0]?.recent).to.deep.equal([]);
    a.store.close();
  });
});

describe('Durability [ledger] an inbound envelope is processed once, across restarts', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-ledger-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('drops a copy of a USER_MSG redelivered after the restart (same sender + reply_with)', () => {
    const file = path.join(dir, 'c.sqlite');
    const a = coordinator(file, 0);
    const q = userMsg('what is 5 + 5?');
    expect(a.router.deliver(q, 'USER_MSG', presenter).outcome).to.equal('opened');
    a.store.close();
    const b = coordinator(file, 10);
    b.restore();
    expect(b.router.deliver(q, 'USER_MSG', presenter)).to.deep.equal({ outcome: 'duplicate' });
    expect(b.sent).to.have.length(0);
    expect(b.router.size).to.equal(1);
    // Another sender may use the same reply_with: that is a different message.
    expect(b.store.firstTime(`bob@${DOMAIN} ${q.reply_with}`)).to.equal(true);
    b.store.close();
  });

  it('forgets ledger entries older than its retention', () => {
    let now = 0;
    const store = new ExchangeStore(path.join(dir, 'l.sqlite'), { ledgerMs: 1000, now: () => now });
    expect(store.firstTime('x r1')).to.equal(true);
    expect(store.firstTime('x r1')).to.equal(false);
    now = 5000;
    store.prune();
    expect(store.firstTime('x r1')).to.equal(true);
    store.close();
  });

  it('keeps the views of one shared file apart (many agents of a host: exchanges, ledger, clean-stop mark)', () => {
    let now = 100;
    const file = new ExchangeStore(path.join(dir, 'shared.sqlite'), { now: () => now });
    const a = new ExchangeStore({ share: file, scope: 'a@calendars.example' });
    const b = new ExchangeStore({ share: file, scope: 'b@calendars.example' });
    const rec = (key: string) => ({ key, machineId: 'm', conversationId: 'c', outbound: [], snapshot: {}, timers: [], recent: [] }) as unknown as Parameters<ExchangeStore['save']>[1];
    a.save('c/1', rec('c/1'));
    now = 200;
    b.save('c/1', rec('c/1'));
    expect(a.exchanges().map((r) => r.key)).to.deep.equal(['c/1']);
    expect(a.lastWrite()).to.equal(100);
    expect(b.lastWrite()).to.equal(200);
    a.remove('c/1');
    expect(a.exchanges()).to.have.length(0);
    expect(b.exchanges()).to.have.length(1);
    // The same (sender, reply_with) at two agents is two envelopes.
    expect(a.firstTime('x r1')).to.equal(true);
    expect(b.firstTime('x r1')).to.equal(true);
    expect(a.firstTime('x r1')).to.equal(false);
    a.markCleanStop();
    expect(b.takeCleanStop()).to.equal(false);
    expect(a.takeCleanStop()).to.equal(true);
    a.close(); // a view leaves the file open
    expect(b.exchanges()).to.have.length(1);
    file.close();
  });

  it('commits a ledger entry only with the snapshot it caused (one transaction)', () => {
    const store = new ExchangeStore(path.join(dir, 't.sqlite'));
    expect(() => store.atomically(() => {
      store.firstTime('x r2');
      throw new Error('crash before the snapshot');
    })).to.throw('crash before the snapshot');
    expect(store.firstTime('x r2')).to.equal(true);
    store.close();
  });
});
