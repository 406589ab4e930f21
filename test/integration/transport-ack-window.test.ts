// XEP-0198 on a busy stream, over a real ejabberd (shared/transport/sm-fix.ts point 4): xmpp.js
// asks the server for an ack only after a pause in sending, so an agent that never pauses kept
// every stanza it had sent in its unacknowledged queue. The transport now asks every 100.
import { expect } from 'chai';
import { silentLogger } from '../../shared/log/index.js';
import { type ClientTransport, clientTransport } from '../../shared/transport/index.js';
import { sharedInstance, type TestInstance } from '../support/ejabberd.js';
import { until } from '../support/wait.js';

describe('transport [wire] the unacknowledged queue of a stream that never pauses, over a real ejabberd', function () {
  this.timeout(90000);
  let inst: TestInstance;
  const open: Array<{ stop(): Promise<unknown> }> = [];
  before(async () => {
    inst = await sharedInstance();
  });
  after(async () => {
    for (const o of open.reverse()) await o.stop().catch(() => undefined);
  });

  it('1,000 messages sent without a pause leave fewer than 100 unacknowledged, with the pause-driven ask switched off', async () => {
    const sender = await inst.account('ackwin-sender');
    const receiver = await inst.account('ackwin-receiver');
    const into = (a: { jid: string; password: string }, debounce?: number) =>
      clientTransport({ jid: a.jid, password: a.password, host: inst.cfg.host, port: inst.cfg.c2sPort, logger: silentLogger(), ...(debounce ? { ackDebounceMs: debounce } : {}) });
    const rx = into(receiver);
    open.push(rx);
    let got = 0;
    rx.onMessage(() => {
      got += 1;
    });
    await rx.start();
    // The library's own ask after a pause: 10 minutes, i.e. never within this test.
    const tx: ClientTransport = into(sender, 600_000);
    open.push(tx);
    await tx.start();
    expect(await tx.streamManaged(), 'XEP-0198 enabled').to.equal(true);
    const N = 1000;
    // As an agent sends: a few stanzas per turn of the event loop, turn after turn.
    for (let i = 0; i < N; i++) {
      tx.send({ to: receiver.jid, type: 'chat', body: `line ${i}` });
      if (i % 10 === 9) await new Promise((r) => setImmediate(r));
    }
    await until(() => got >= N, `all ${N} delivered`, 60000);
    // Without the transport's own asks the library would hold all 1,000 for 10 minutes.
    await until(() => tx.awaitingAck < 100, `the queue back under 100 (now ${tx.awaitingAck})`, 30000);
    expect(tx.awaitingAck).to.be.below(100);
  });
});
