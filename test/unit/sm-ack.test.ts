// XEP-0198 acks only what was handled (issue 12): the real @xmpp/stream-management plugin, driven
// the way @xmpp/connection drives it (each parsed element runs the middleware, then is emitted as
// 'stanza' or 'nonza', synchronously), with XmppTransport's one-stanza-per-turn inbox behind it.
import streamManagement from '@xmpp/stream-management';
import xml from '@xmpp/xml';
import { expect } from 'chai';
import { FakeEntity, recordAcks } from '../support/fake-entity.js';
import { silentLogger } from '../../shared/log/index.js';
import { fixInboundCounter, NS_SM, XmppTransport, type XmppEntity } from '../../shared/transport/index.js';

const tick = () => new Promise((r) => setImmediate(r));
const msg = (i: number) => xml('message', { from: 'coordinator@localhost/parley', id: `m${i}` }, xml('body', {}, `{"n":${i}}`));

function setup(withGate: boolean) {
  const entity = new FakeEntity();
  const sm = streamManagement({ entity, middleware: { use: (fn) => entity.incoming.push(fn), filter: () => undefined } });
  sm.requestAckInterval = 0; // no timers in a unit test
  sm.enabled = true;
  const gate = withGate ? fixInboundCounter(entity, sm) : undefined;
  const t = new XmppTransport({ address: 'specialist-math@localhost', entity: entity as unknown as XmppEntity, logger: silentLogger(), ...(gate ? { gate } : {}) });
  let handled = 0;
  /** h of every <a/> when it was sent, next to what had been handled by then. */
  const seen = recordAcks(entity, () => handled);
  t.onMessage(() => {
    handled += 1;
  });
  return { entity, sm, t, seen, handled: () => handled };
}

describe('sm-fix [XEP-0198] a stanza is acknowledged only once it was handled', () => {
  it('attack: without the gate, xmpp.js acknowledges a burst it has not handled yet', async () => {
    const { entity, seen } = setup(false);
    for (let i = 1; i <= 5; i++) entity.parse(msg(i));
    entity.parse(xml('r', { xmlns: NS_SM }));
    expect(seen).to.deep.equal([{ h: 5, handled: 1 }]); // a kill -9 now loses 4 the server thinks delivered
  });

  it('answers <r/> with the handled count, then acknowledges the rest unasked once the inbox is empty', async () => {
    const { entity, seen, handled } = setup(true);
    for (let i = 1; i <= 5; i++) entity.parse(msg(i));
    entity.parse(xml('r', { xmlns: NS_SM }));
    expect(seen).to.deep.equal([{ h: 1, handled: 1 }]);
    while (handled() < 5) await tick();
    await tick();
    expect(seen.every((a) => a.h <= a.handled), JSON.stringify(seen)).to.equal(true);
    expect(entity.acks().at(-1)).to.equal(5);
    entity.parse(xml('r', { xmlns: NS_SM }));
    expect(entity.acks().at(-1)).to.equal(5);
  });

  it('counts iq and stanzas after a reset correctly, and never reports more than parsed', async () => {
    const { entity, sm, handled } = setup(true);
    entity.parse(xml('iq', { type: 'result', id: 'x' })); // not held: handled by xmpp.js itself
    entity.parse(msg(1));
    entity.parse(msg(2));
    expect(sm.inbound).to.equal(1); // the iq; m1 and m2 wait their turn in the inbox
    entity.emit('nonza', xml('enabled', { xmlns: NS_SM, id: 'new' })); // a fresh stream: m2 belongs to the old one
    sm.inbound = 0; // the library's late reset, ignored
    entity.parse(msg(3));
    while (handled() < 3) await tick();
    expect(sm.inbound).to.equal(1); // m3 only; m1's and m2's releases do not count on the new stream
  });

  it('handles what waits when the stream breaks, so <resume h> covers every parsed stanza', () => {
    const { entity, sm, handled } = setup(true);
    for (let i = 1; i <= 4; i++) entity.parse(msg(i));
    expect(sm.inbound).to.equal(1);
    entity.emit('disconnect');
    expect(handled()).to.equal(4);
    expect(sm.inbound).to.equal(4);
  });
});
