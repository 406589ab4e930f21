// Characters split across socket reads, over a real ejabberd (shared/transport/utf8-reads.ts):
// a burst of long non-ASCII messages makes the kernel cut reads inside characters. Before the fix a
// plain @xmpp/client saw 20 of 200 such messages altered, and a signed envelope so altered fails its
// signature check and is lost.
import { xml } from '@xmpp/client';
import { expect } from 'chai';
import { type EchoPair, echoPair } from '../../shared/bench/index.js';
import { silentLogger } from '../../shared/log/index.js';
import { clientTransport, type XmppTransport } from '../../shared/transport/index.js';
import { sharedInstance, type TestInstance } from '../support/ejabberd.js';
import { rawClient } from '../support/raw-client.js';
import { until } from '../support/wait.js';

// Two- to four-byte characters only: almost any cut falls inside one.
const LINE = 'żółć€😀ПриветΩ'.repeat(1000);

describe('transport [wire] non-ASCII text split across socket reads, over a real ejabberd', function () {
  this.timeout(90000);
  let inst: TestInstance;
  const open: Array<{ stop(): Promise<unknown> }> = [];
  before(async () => {
    inst = await sharedInstance();
  });
  after(async () => {
    for (const o of open.reverse()) await o.stop().catch(() => undefined);
  });

  it("an agent's transport receives a burst of 200 long chat lines from a person's client unaltered", async () => {
    const agent = await inst.account('utf8-agent');
    const person = await inst.account('utf8-person');
    const transport: XmppTransport = clientTransport({ jid: agent.jid, password: agent.password, host: inst.cfg.host, port: inst.cfg.c2sPort, logger: silentLogger() });
    open.push(transport);
    const bodies: string[] = [];
    transport.onMessage((m) => bodies.push(m.body ?? ''));
    await transport.start();
    const xmpp = rawClient(inst.cfg, person.jid, person.password, 'utf8');
    xmpp.on('error', () => undefined);
    open.push(xmpp);
    await xmpp.start();
    const N = 200;
    for (let i = 0; i < N; i++) void xmpp.send(xml('message', { to: agent.jid, type: 'chat', id: `u${i}` }, xml('body', {}, `${i} ${LINE}`)));
    await until(() => bodies.length >= N, `all ${N} messages delivered`, 60000);
    const altered = bodies.filter((b) => b !== `${b.split(' ')[0]} ${LINE}`);
    expect(altered, `${altered.length} of ${bodies.length} bodies altered`).to.have.length(0);
  });

  describe('signed envelopes', () => {
    let pair: EchoPair;
    before(async () => {
      pair = await echoPair(inst.cfg, 'utf8');
      open.push({ stop: () => pair.close() });
    });

    it('80 REQUESTs with a long non-ASCII question in flight at once all verify and come back word for word', async () => {
      const question = LINE.slice(0, 12000);
      const outs = await Promise.all(Array.from({ length: 80 }, () => pair.ask(question, 30000)));
      const failed = outs.map((o) => (!o.ok ? o.reason : o.answer !== question ? 'altered answer' : '')).filter(Boolean);
      expect(failed, `${failed.length} of 80 failed`).to.deep.equal([]);
    });
  });
});
