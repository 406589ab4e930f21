// XEP-0198 answers to <r/> after PARLEY_SM_ACK_DELAY_MS (sm-fix.ts point 3): one <a/> per window
// instead of one write per inbound stanza, still counting only what was handled, never sent on a
// stream that broke, sent at once on a graceful close. The real @xmpp/stream-management plugin on
// a FakeEntity, with XmppTransport's inbox behind it, as in sm-ack.test.ts.
import streamManagement from '@xmpp/stream-management';
import xml from '@xmpp/xml';
import { expect } from 'chai';
import { FakeEntity, recordAcks } from '../support/fake-entity.js';
import { until } from '../support/wait.js';
import { silentLogger } from '../../shared/log/index.js';
import { fixInboundCounter, NS_SM, XmppTransport, type XmppEntity } from '../../shared/transport/index.js';

const DELAY_MS = 30;
const msg = (i: number) => xml('message', { from: 'coordinator@localhost/parley', id: `m${i}` }, xml('body', {}, `{"n":${i}}`));
const r = () => xml('r', { xmlns: NS_SM });

function setup(delayMs = DELAY_MS) {
  const entity = new FakeEntity();
  const closeHooks: Array<() => unknown> = [];
  // The library registers its close hook (a last <a/>) on the entity it is given, before ours.
  (entity as unknown as { hook(event: string, handler: () => unknown): void }).hook = (_event, handler) => {
    closeHooks.push(handler);
  };
  const sm = streamManagement({ entity, middleware: { use: (fn) => entity.incoming.push(fn), filter: () => undefined } });
  sm.requestAckInterval = 0;
  sm.enabled = true;
  let handled = 0;
  // What is written (below the deferral, which wraps entity.send), next to what was handled then.
  const seen = recordAcks(entity, () => handled);
  const gate = fixInboundCounter(entity, sm, delayMs);
  const t = new XmppTransport({ address: 'registry@localhost', entity: entity as unknown as XmppEntity, logger: silentLogger(), gate });
  t.onMessage(() => {
    handled += 1;
  });
  const close = () => Promise.all(closeHooks.map((h) => h()));
  return { entity, sm, seen, handled: () => handled, close };
}

describe('sm-fix [XEP-0198 §4] answers to <r/> wait a short window and cover it whole', () => {
  it('many <r/> in one window get one <a/>, with every stanza handled by then', async () => {
    const { entity, seen, handled } = setup();
    const t0 = Date.now();
    for (let i = 1; i <= 4; i++) {
      entity.parse(msg(i));
      entity.parse(r());
    }
    expect(seen, 'nothing is written in the turn the <r/> arrived').to.deep.equal([]);
    await until(() => seen.length > 0, 'the deferred <a/>', 2000, 2);
    expect(Date.now() - t0).to.be.at.least(DELAY_MS - 2);
    expect(handled()).to.equal(4);
    expect(seen).to.deep.equal([{ h: 4, handled: 4 }]);
    expect(entity.acks()).to.deep.equal([4]);
  });

  it('never acknowledges a stanza still waiting in the inbox when the window closes, and owes it', async () => {
    const { entity, seen, handled } = setup(1);
    for (let i = 1; i <= 50; i++) entity.parse(msg(i));
    entity.parse(r());
    await until(() => handled() === 50 && entity.acks().at(-1) === 50, 'all 50 handled and acknowledged', 3000, 1);
    expect(seen.every((a) => a.h <= a.handled), JSON.stringify(seen)).to.equal(true);
  });

  it('attack on crash safety: a stream that breaks inside the window sends no <a/> on it', async () => {
    const { entity, sm, handled } = setup();
    entity.parse(msg(1));
    entity.parse(r());
    entity.emit('disconnect');
    sm.enabled = false;
    await until(() => handled() === 1, 'the stanza handled', 2000, 2);
    await new Promise((res) => setTimeout(res, DELAY_MS * 3)); // past the window: nothing may follow
    expect(entity.acks()).to.deep.equal([]);
    expect(sm.inbound, '<resume h> still counts it').to.equal(1);
  });

  it('a graceful close answers at once, without waiting for the window', async () => {
    const { entity, handled, close } = setup(60_000);
    entity.parse(msg(1));
    await until(() => handled() === 1, 'the stanza handled', 2000, 2);
    entity.parse(r());
    expect(entity.acks()).to.deep.equal([]);
    await close();
    expect(entity.acks()).to.deep.equal([1]);
  });

  it('PARLEY_SM_ACK_DELAY_MS=0 keeps the immediate answer', () => {
    const { entity } = setup(0);
    entity.parse(r());
    expect(entity.acks()).to.deep.equal([0]);
  });
});
