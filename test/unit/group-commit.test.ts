// Group commit (issue 15; shared/store/group-commit.ts, transport/burst.ts): one SQLite
// transaction per inbound burst. Driven like sm-ack.test.ts (the real @xmpp/stream-management
// plugin, XmppTransport's inbox) over a real ExchangeStore and ReplayLedger on disk; a second
// connection to each file sees only what is committed, i.e. what a kill -9 would leave.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import streamManagement from '@xmpp/stream-management';
import xml from '@xmpp/xml';
import { expect } from 'chai';
import { FakeEntity } from '../support/fake-entity.js';
import { silentLogger } from '../../shared/log/index.js';
import { AnsweredRequests, ExchangeStore, GroupCommit, type Grouped, groupOn, openDb, ReplayLedger } from '../../shared/store/index.js';
import { BurstSends, fixInboundCounter, MAX_BURST, NS_SM, XmppTransport, type XmppEntity } from '../../shared/transport/index.js';

const tick = () => new Promise((r) => setImmediate(r));
const msg = (i: number) => xml('message', { from: 'presenter@localhost/parley', id: `m${i}` }, xml('body', {}, `{"n":${i}}`));

function setup(opts: { failCommit?: boolean } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-group-'));
  const store = new ExchangeStore(path.join(dir, 'x-exchanges.sqlite'));
  const ledger = new ReplayLedger(path.join(dir, 'x-replay.sqlite'));
  // A file of the handling's effects, as the sessions agent's (agents/sessions/wire.ts): a step and its stored answer.
  const effectsDb = openDb(path.join(dir, 'x-effects.sqlite'));
  const effects = new AnsweredRequests(effectsDb);
  // What survives a kill -9: another connection reads only committed rows.
  const outside = {
    inbound: () => (new Database(path.join(dir, 'x-exchanges.sqlite'), { readonly: true }).prepare('SELECT count(*) AS n FROM inbound').get() as { n: number }).n,
    answered: () => (new Database(path.join(dir, 'x-effects.sqlite'), { readonly: true }).prepare('SELECT count(*) AS n FROM answered').get() as { n: number }).n,
    seen: () => (new Database(path.join(dir, 'x-replay.sqlite'), { readonly: true }).prepare('SELECT count(*) AS n FROM seen').get() as { n: number }).n,
  };
  const entity = new FakeEntity();
  const sm = streamManagement({ entity, middleware: { use: (fn) => entity.incoming.push(fn), filter: () => undefined } });
  sm.requestAckInterval = 0;
  sm.enabled = true;
  const gate = fixInboundCounter(entity, sm);
  const t = new XmppTransport({ address: 'coordinator@localhost', entity: entity as unknown as XmppEntity, logger: silentLogger(), gate });
  entity.emit('online');
  let commits = 0;
  const storeGroup = store.group();
  const counted: Grouped = {
    begin: () => storeGroup.begin(),
    commit: () => {
      commits += 1;
      if (opts.failCommit) throw new Error('disk I/O error');
      storeGroup.commit();
    },
    rollback: () => storeGroup.rollback(),
  };
  const group = new GroupCommit([counted], ledger.group());
  group.add(groupOn(effectsDb));
  t.useGroupCommit(group);
  // What an agent does per envelope: the router's transaction (firstTime + snapshot), the ledger entry, an answer.
  let handled = 0;
  t.onMessage((m) => {
    handled += 1;
    const n = (JSON.parse(m.body ?? "{}") as { n: number }).n;
    try {
      store.atomically(() => {
        store.firstTime(`presenter ${String(m.id)}`);
        store.save(`conv-${n}`, { key: `conv-${n}` } as never);
        if (n === 3) throw new Error('handler failed');
      });
    } catch {
      // the error boundary answers; its writes were undone (savepoint)
    }
    effects.once(`presenter|${String(m.id)}`, () => ({ step: n }));
    ledger.record(`did:key:z ${String(m.id)}`, Date.now() + 60000, Date.now());
    t.send({ to: 'presenter@localhost', type: 'normal', id: `r${n}`, thread: `c${n}`, body: `{"answer":${n}}` });
  });
  return { dir, store, ledger, entity, sm, t, outside, handled: () => handled, commits: () => commits };
}

describe('group commit [issue 15] one transaction per inbound burst; acks and answers after it', () => {
  it('attack: in the middle of a burst nothing is committed, sent or acknowledged, so a kill -9 there loses nothing', async () => {
    const s = setup();
    for (let i = 1; i <= 6; i++) s.entity.parse(msg(i));
    while (s.handled() < 4) await tick();
    // A crash here: ejabberd still holds all six (h = 0) and delivers them again; no answer left.
    s.entity.parse(xml('r', { xmlns: NS_SM }));
    expect(s.sm.inbound).to.equal(0);
    expect(s.entity.messages()).to.equal(0);
    expect(s.outside.inbound()).to.equal(0);
    expect(s.outside.answered()).to.equal(0); // no session step applied that the person could be told timed out
    expect(s.outside.seen()).to.equal(0);
    while (s.handled() < 6 || s.entity.messages() < 6) await tick();
    expect(s.commits()).to.equal(1);
    expect(s.outside.inbound()).to.equal(5); // stanza 3's own writes were rolled back to its savepoint
    expect(s.outside.seen()).to.equal(6);
    expect(s.outside.answered()).to.equal(6);
    s.entity.parse(xml('r', { xmlns: NS_SM }));
    expect(s.sm.inbound).to.equal(6);
  });

  it('a lone stanza is committed, answered and acknowledged within its own burst', async () => {
    const s = setup();
    s.entity.parse(msg(1));
    while (s.entity.messages() < 1) await tick();
    expect(s.commits()).to.equal(1);
    expect(s.outside.inbound()).to.equal(1);
    s.entity.parse(xml('r', { xmlns: NS_SM }));
    expect(s.sm.inbound).to.equal(1);
  });

  it(`a long burst commits every ${MAX_BURST} stanzas`, async () => {
    const s = setup();
    const n = MAX_BURST + 6;
    for (let i = 10; i < 10 + n; i++) s.entity.parse(msg(i));
    while (s.entity.messages() < n) await tick();
    expect(s.commits()).to.equal(2);
    expect(s.outside.inbound()).to.equal(n);
  });

  it('a failed commit rolls the burst back, logs, and still answers and acknowledges (the process goes on)', async () => {
    const s = setup({ failCommit: true });
    for (let i = 1; i <= 2; i++) s.entity.parse(msg(i));
    while (s.entity.messages() < 2) await tick();
    expect(s.outside.seen()).to.equal(0); // the ledger after the failed store was rolled back too
    s.entity.parse(xml('r', { xmlns: NS_SM }));
    expect(s.sm.inbound).to.equal(2);
  });

  it('the transport stopping in a burst commits and answers what was handled; the rest stays unacknowledged for the next process', async () => {
    const s = setup();
    for (let i = 4; i <= 7; i++) s.entity.parse(msg(i));
    while (s.handled() < 2) await tick();
    await s.t.stop();
    for (let i = 0; i < 5; i++) await tick();
    expect(s.handled()).to.equal(2);
    expect(s.outside.inbound()).to.equal(2);
    expect(s.entity.messages()).to.equal(2);
    expect(s.sm.inbound).to.equal(2); // 6 and 7 are the server's to deliver again
  });

  it('a file of effects added later (the sessions, the KB\'s facts) commits first, before the exchange store and the replay ledger; a failure there rolls them back', () => {
    const order: string[] = [];
    const part = (name: string, fail = false): Grouped => ({
      begin: () => true,
      commit: () => {
        if (fail) throw new Error(`${name} failed`);
        order.push(`commit ${name}`);
      },
      rollback: () => order.push(`rollback ${name}`),
    });
    const ok = new GroupCommit([part('exchanges')], part('ledger'));
    ok.add(part('facts'));
    expect(ok.begin()).to.equal(true);
    ok.commit();
    expect(order).to.deep.equal(['commit facts', 'commit exchanges', 'commit ledger']);
    order.length = 0;
    const bad = new GroupCommit([part('exchanges')], part('ledger'));
    bad.add(part('facts', true));
    bad.begin();
    expect(() => bad.commit()).to.throw('facts failed');
    expect(order).to.deep.equal(['rollback facts', 'rollback exchanges', 'rollback ledger']);
  });

  it('an IQ result waits for the messages held in the burst: the chat line its handling sent goes first', async () => {
    const sent: string[] = [];
    const burst = new BurstSends(silentLogger(), (st) => sent.push(String(st.attrs.id)));
    let active = false;
    burst.use({ begin: () => (active = true), get active() { return active; }, commit: () => { active = false; } });
    await burst.afterHeld(); // nothing held: at once
    expect(burst.begin()).to.equal(true);
    expect(burst.hold(xml('message', { id: 'chat-copy' }))).to.equal(true);
    const iqResult = burst.afterHeld().then(() => sent.push('iq-result'));
    await tick();
    expect(sent).to.deep.equal([]);
    burst.end();
    await iqResult;
    expect(sent).to.deep.equal(['chat-copy', 'iq-result']);
  });
});
