// Characters XML 1.0 disallows, over a real ejabberd (shared/transport/xml-safe.ts): ejabberd ends
// the stream of whoever sends one. Before the fix, one message from an ordinary account with the
// performative "REQUEST\uffff" (a JSON escape) made the Coordinator's NOT-UNDERSTOOD, which
// repeated it, close the Coordinator's stream; it reconnected and resent that reply, over and over,
// and answered no one meanwhile.
import { xml } from '@xmpp/client';
import type { Element } from '@xmpp/xml';
import { expect } from 'chai';
import { type EchoPair, echoPair, type RuntimeAgent } from '../../shared/bench/index.js';
import { sharedInstance, type TestInstance } from '../support/ejabberd.js';
import { type RawClient, rawClient } from '../support/raw-client.js';
import { until } from '../support/wait.js';

describe('transport [xml-safe] text XML disallows never takes an agent\'s stream down, over a real ejabberd', function () {
  this.timeout(90000);
  let inst: TestInstance;
  let pair: EchoPair;
  let coord: RuntimeAgent;
  let mallory: RawClient;
  const got: Element[] = [];
  let offline = 0;

  before(async () => {
    inst = await sharedInstance();
    pair = await echoPair(inst.cfg, 'xmlsafe');
    coord = pair.coord;
    coord.transport.on('offline', () => (offline += 1));
    // An ordinary account: no enrolment, no signing key.
    const { jid, password } = await inst.account('mallory-xml');
    mallory = rawClient(inst.cfg, jid, password, 'x');
    mallory.on('error', () => undefined);
    mallory.on('stanza', (st: Element) => st.name === 'message' && got.push(st));
    await mallory.start();
    await mallory.send(xml('presence'));
  });

  after(async () => {
    await mallory?.stop().catch(() => undefined);
    await pair?.close();
  });

  it('an envelope whose performative and conversation_id hold U+FFFF (JSON escapes) gets its NOT-UNDERSTOOD, and the agent stays online', async () => {
    const body = String.raw`{"performative":"REQUEST\uffff","sender":"mallory\uffff","receiver":"Coordinator","conversation_id":"sess-x\uffff","reply_with":"msg-\ufffe1","content":{"type":"USER_MSG"}}`;
    await mallory.send(xml('message', { to: coord.transport.address, type: 'normal', id: 'm1' }, xml('thread', {}, 'sess-x-thread'), xml('body', {}, body)));
    await until(() => got.length > 0, 'an answer to mallory', 20000);
    const reply = JSON.parse(got[0]?.getChildText('body') ?? '{}') as { performative?: string; content?: { detail?: string } };
    expect(reply.performative).to.equal('NOT-UNDERSTOOD');
    // The reason quotes the bad performative losslessly (a JSON escape on the wire).
    expect(reply.content?.detail).to.include('REQUEST\uffff');
    expect(coord.transport.status).to.equal('online');
    expect(offline, 'times the Coordinator lost its stream').to.equal(0);
    const out = await pair.ask('still there?');
    expect(out).to.include({ ok: true, answer: 'still there?' });
    expect(offline).to.equal(0);
  });

  it('a chat line and a <thread> with C0 controls and U+FFFE/U+FFFF leave with U+FFFD in their place; the stream stays up', async () => {
    got.length = 0;
    coord.transport.send({ to: `mallory-xml@${inst.cfg.domain}`, type: 'chat', id: 'line-\u0001', thread: 'sess-\uffff', body: 'an answer \u0001\u001b[31m with \ufffe and \uffff' });
    await until(() => got.length > 0, 'the chat line at mallory', 20000);
    expect(got[0]?.getChildText('body')).to.equal('an answer \uFFFD\uFFFD[31m with \uFFFD and \uFFFD');
    expect(got[0]?.getChildText('thread')).to.equal('sess-\uFFFD');
    expect(coord.transport.status).to.equal('online');
    expect(offline).to.equal(0);
    expect(await pair.ask('and now?')).to.include({ ok: true, answer: 'and now?' });
  });

  it('a stanza over ejabberd\'s max_stanza_size is not sent (it would end the stream); the next line and exchange go through', async () => {
    got.length = 0;
    // 1.1 MB of text: before shared/transport/guarded-send.ts ejabberd closed the stream of its sender.
    coord.transport.send({ to: `mallory-xml@${inst.cfg.domain}`, type: 'chat', id: 'line-huge', body: 'la '.repeat(370_000) });
    coord.transport.send({ to: `mallory-xml@${inst.cfg.domain}`, type: 'chat', id: 'line-after', body: 'the line after it' });
    await until(() => got.some((m) => m.attrs.id === 'line-after'), 'the line after the oversized one at mallory', 20000);
    expect(got.map((m) => m.attrs.id)).to.deep.equal(['line-after']);
    expect(coord.transport.status).to.equal('online');
    expect(offline, 'times the Coordinator lost its stream').to.equal(0);
    expect(await pair.ask('and after that?')).to.include({ ok: true, answer: 'and after that?' });
  });
});
