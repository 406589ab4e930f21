import { EventEmitter } from 'node:events';
import xml, { type Element } from '@xmpp/xml';
import { expect } from 'chai';
import { silentLogger } from '../../shared/log/index.js';
import {
  fixInboundCounter, NS_SM, bare, messageStanza, NS_CHATSTATES, NS_DELAY, readMessage, XmppTransport,
  type XmppEntity,
} from '../../shared/transport/index.js';
import { until } from '../support/wait.js';

describe('stanza [wire] <message> carries the envelope (architecture.md wire format)', () => {
  it('puts reply_with in id, conversation_id in <thread> and the JSON in <body>, and reads them back', () => {
    const el = messageStanza({ to: 'kb@localhost', id: 'msg-1', thread: 'sess-1', body: '{"a":1}' });
    expect(el.attrs).to.deep.include({ to: 'kb@localhost', id: 'msg-1', type: 'normal' });
    el.attrs.from = 'coordinator@localhost/agent-9';
    const m = readMessage(el, 42);
    expect(m).to.deep.include({ from: 'coordinator@localhost/agent-9', fromBare: 'coordinator@localhost', toBare: 'kb@localhost',
      id: 'msg-1', thread: 'sess-1', body: '{"a":1}', type: 'normal', delayed: false, receivedAt: 42 });
  });

  it('reads chat states and XEP-0203 delay stamps', () => {
    const el = messageStanza({ to: 'alice@localhost', type: 'chat', chatState: 'composing' });
    el.append(xml('delay', { xmlns: NS_DELAY, stamp: '2025-01-01T00:00:00Z' }));
    const m = readMessage(el);
    expect(m).to.include({ chatState: 'composing', delayed: true, type: 'chat', body: undefined, thread: undefined });
    expect(el.getChild('composing', NS_CHATSTATES)).to.not.equal(undefined);
  });

  it('reads the body in the stanza\'s own language when there is one per language (RFC 6121 §5.2.3)', () => {
    const msg = (attrs: Record<string, string>, ...bodies: Array<[string | undefined, string]>) =>
      readMessage(xml('message', { from: 'alice@localhost/phone', to: 'presenter@localhost', type: 'chat', ...attrs },
        ...bodies.map(([lang, text]) => xml('body', lang ? { 'xml:lang': lang } : {}, text))));
    expect(msg({ 'xml:lang': 'en' }, ['de', 'wie viel ist 2 + 2?'], [undefined, 'what is 2 + 2?']).body, 'no xml:lang: the stanza\'s language').to.equal('what is 2 + 2?');
    expect(msg({ 'xml:lang': 'en' }, ['de', 'wie viel ist 2 + 2?'], ['EN', 'what is 2 + 2?']).body, 'the stanza\'s xml:lang, any case').to.equal('what is 2 + 2?');
    expect(msg({ 'xml:lang': 'fr' }, ['de', 'wie viel ist 2 + 2?'], ['en', 'what is 2 + 2?']).body, 'none in its language: the first').to.equal('wie viel ist 2 + 2?');
    expect(msg({}, ['pl', 'ile to 2 + 2?']).body).to.equal('ile to 2 + 2?');
    expect(msg({}).body).to.equal(undefined);
    expect(msg({}, [undefined, '']).body).to.equal('');
  });

  it('strips the resource for the bare JID', () => {
    expect(bare('a@b/c/d')).to.equal('a@b');
    expect(bare('a@b')).to.equal('a@b');
  });
});

/** Enough of an xmpp.js entity to drive XmppTransport's state machine by hand. */
class FakeEntity extends EventEmitter {
  status = 'offline';
  socket = null;
  options = { service: 'xmpp://127.0.0.1:1', domain: 'localhost' };
  reconnect = { stop: () => undefined };
  sent: Element[] = [];
  connects = 0;
  failSend = false;
  disconnects = 0;
  async start() {
    this.goOnline();
  }
  async stop() {
    this.status = 'offline';
  }
  async connect() {
    this.connects += 1;
  }
  async open() {}
  async disconnect() {
    this.disconnects += 1;
    this.drop();
  }
  async send(el: Element) {
    if (this.failSend) throw new Error('socket closed');
    this.sent.push(el);
  }
  goOnline() {
    this.status = 'online';
    this.emit('online');
  }
  drop() {
    this.status = 'disconnect';
    this.emit('disconnect');
  }
}

const tick = () => new Promise((r) => setImmediate(r));
const ids = (els: Element[]) => els.filter((e) => e.name === 'message').map((e) => e.attrs.id as string);

function transport() {
  const entity = new FakeEntity();
  const t = new XmppTransport({
    address: 'specialist-echo@localhost', entity: entity as unknown as XmppEntity, logger: silentLogger(), maxBackoffMs: 5,
    onOnline: async (tr) => tr.sendRaw(xml('presence')),
  });
  return { entity, t };
}

describe('XmppTransport [outbox] nothing sent while the server is away is lost', () => {
  it('resolves start() only after the presence hook ran', async () => {
    const { entity, t } = transport();
    await t.start();
    expect(t.status).to.equal('online');
    expect(entity.sent.map((e) => e.name)).to.deep.equal(['presence']);
  });

  it('queues while disconnected and flushes in order on reconnect, unacked stanzas first', async () => {
    const { entity, t } = transport();
    await t.start();
    entity.drop();
    expect(t.status).to.equal('connecting');
    t.send({ to: 'coordinator@localhost', id: 'queued-1', body: 'x' });
    t.send({ to: 'coordinator@localhost', id: 'queued-2', body: 'y' });
    t.requeue([messageStanza({ to: 'coordinator@localhost', id: 'unacked-1', body: 'z' })]); // XEP-0198 'fail'
    expect(t.queued).to.equal(3);
    entity.goOnline();
    await tick();
    expect(ids(entity.sent)).to.deep.equal(['unacked-1', 'queued-1', 'queued-2']);
    expect(t.queued).to.equal(0);
  });

  it('keeps a stanza whose write failed for the next connection', async () => {
    const { entity, t } = transport();
    await t.start();
    entity.failSend = true;
    t.send({ to: 'coordinator@localhost', id: 'lost-write', body: 'x' });
    await tick();
    expect(t.queued).to.equal(1);
    entity.failSend = false;
    entity.drop();
    entity.goOnline();
    await tick();
    expect(ids(entity.sent)).to.deep.equal(['lost-write']);
  });

  it('flushes the outbox after a XEP-0198 resume, which emits no online event', async () => {
    const { entity, t } = transport();
    await t.start();
    entity.drop();
    t.send({ to: 'coordinator@localhost', id: 'during-blip', body: 'x' });
    entity.status = 'online'; // what xmpp.js does on <resumed/>
    t.resumed();
    await tick();
    expect(t.status).to.equal('online');
    expect(ids(entity.sent)).to.deep.equal(['during-blip']);
    expect(entity.sent.filter((e) => e.name === 'presence')).to.have.length(1); // the session kept it
  });
});

describe('XmppTransport [reconnect] retries with back-off', () => {
  it('reconnects after a drop and stops retrying once stopped', async () => {
    const { entity, t } = transport();
    await t.start();
    entity.drop();
    await until(() => entity.connects > 0, 'a reconnect after the drop', 2000, 5);
    await t.stop();
    const n = entity.connects;
    entity.drop();
    // Asserts that nothing happens: a retry would come after the first back-off (50 ms); 150 ms is three of them.
    await new Promise((r) => setTimeout(r, 150));
    expect(entity.connects).to.equal(n);
    expect(t.status).to.equal('offline');
  });

  it('drops a connection whose login was refused while reconnecting, so the next attempt comes soon', async () => {
    const { entity, t } = transport();
    await t.start();
    entity.drop();
    const sasl = Object.assign(new Error('not-authorized'), { name: 'SASLError' });
    entity.emit('error', sasl);
    expect(entity.disconnects).to.equal(1);
    entity.emit('error', new Error('ECONNREFUSED'));
    expect(entity.disconnects).to.equal(1);
    await t.stop();
  });

  it('rejects start() when the first connection fails and leaves nothing retrying', async () => {
    const { entity, t } = transport();
    entity.start = async () => {
      entity.drop();
      throw new Error('connect ECONNREFUSED');
    };
    let err: Error | undefined;
    await t.start().catch((e: Error) => (err = e));
    expect(err?.message).to.match(/ECONNREFUSED/);
    // Asserts that nothing happens: a retry would come after the first back-off (50 ms); 150 ms is three of them.
    await new Promise((r) => setTimeout(r, 150));
    expect(entity.connects).to.equal(0);
    expect(t.status).to.equal('offline');
  });
});

describe('sm-fix [XEP-0198] the inbound counter after <enabled/>', () => {
  it('counts from zero at <enabled/> and ignores the library reset that comes a microtask later', () => {
    const entity = new EventEmitter();
    const sm = { inbound: 7 }; // stale count from the previous stream
    fixInboundCounter(entity, sm);
    entity.emit('nonza', xml('enabled', { xmlns: NS_SM, id: 'x' }));
    sm.inbound += 1; // a presence in the same TCP chunk
    expect(sm.inbound).to.equal(1);
    sm.inbound = 0; // xmpp.js's late enabled() reset
    expect(sm.inbound).to.equal(1);
    sm.inbound = 0; // a later genuine reset (offline) still works
    expect(sm.inbound).to.equal(0);
  });
});
