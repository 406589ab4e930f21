// The KB as a real process against a real ejabberd (seed contract §2.4, §5): STORE_FACT →
// STORED, GET_FACTS newest first, durable across a restart, and it talks to the Coordinator
// only. Test peers are raw XMPP clients (no Agent), so they never answer anything themselves.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { type Envelope, makeEnvelope } from '../../shared/acl/envelope.js';
import type { StoredFact } from '../../shared/contracts/types.gen.js';
import { silentLogger } from '../../shared/log/index.js';
import { clientTransport } from '../../shared/transport/client.js';
import type { XmppTransport } from '../../shared/transport/xmpp-transport.js';
import { type AgentProcess, killAgents, spawnAgent } from '../support/agent-process.js';
import { sharedInstance, type TestInstance } from '../support/ejabberd.js';
import { signWithAccount } from '../support/signing.js';

class Peer {
  readonly inbox: Envelope[] = [];
  /** in_reply_to → resolver: replies are awaited by event, not by polling (latency is measured). */
  private readonly waiting = new Map<string, (env: Envelope) => void>();
  private constructor(readonly name: string, private readonly t: XmppTransport, private readonly domain: string, private readonly sign: (env: Envelope) => Envelope) {
    t.onMessage((m) => {
      let env: Envelope;
      try {
        env = JSON.parse(m.body ?? '') as Envelope;
      } catch {
        return; // not an envelope: ignore
      }
      this.inbox.push(env);
      if (env.in_reply_to) this.waiting.get(env.in_reply_to)?.(env);
    });
  }
  protected reply(env: Envelope, what: string, timeoutMs = 5000): Promise<Envelope> {
    const known = this.inbox.find((e) => e.in_reply_to === env.reply_with);
    if (known) return Promise.resolve(known);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(env.reply_with);
        reject(new Error(`no reply within ${timeoutMs} ms to ${what}`));
      }, timeoutMs);
      this.waiting.set(env.reply_with, (r) => {
        clearTimeout(timer);
        this.waiting.delete(env.reply_with);
        resolve(r);
      });
    });
  }
  static async connect(inst: TestInstance, account: string, name = account): Promise<Peer> {
    const { jid, password } = await inst.account(account);
    const t = clientTransport({ jid, password, host: inst.cfg.host, port: inst.cfg.c2sPort, logger: silentLogger(), resource: `kb-test-${randomUUID().slice(0, 8)}` });
    await t.start();
    return new Peer(name, t, inst.cfg.domain, (env) => signWithAccount(inst.cfg, account, env));
  }
  /** Sends to the KB and waits for the reply correlated by in_reply_to. */
  async ask(performative: Envelope['performative'], content: object, conversation_id: string, body?: (env: Envelope) => string): Promise<Envelope> {
    const env = this.sign(makeEnvelope({ performative, sender: this.name, receiver: 'KB', conversation_id, content }));
    this.t.send({ to: `kb@${this.domain}`, type: 'normal', id: env.reply_with, thread: conversation_id, body: body ? body(env) : JSON.stringify(env) });
    return this.reply(env, performative);
  }
  stop(): Promise<void> {
    return this.t.stop();
  }
}

describe('KB [integration] kb process on a real ejabberd', function () {
  this.timeout(60000);
  let inst: TestInstance;
  let kb: AgentProcess;
  let coord: Peer;
  const session = `sess-kbtest-${randomUUID()}`;
  const ts = (s: number) => new Date(Date.UTC(2025, 10, 7, 19, 55, s)).toISOString();
  const fact = (s: number, value: unknown) => ({ session_id: session, slot: 'answer', value, confidence: 0.9, ts: ts(s), subject: 'alice@localhost' });
  const store = (f: object) => coord.ask('INFORM', { type: 'STORE_FACT', fact: f }, session);
  const facts = async (filter: object) => ((await coord.ask('QUERY-REF', { type: 'GET_FACTS', filter }, session)).content as { facts: StoredFact[] }).facts;
  const startKb = async () => {
    kb = spawnAgent('agents/kb/main.js', inst.env);
    await kb.waitFor('online');
  };

  before(async () => {
    inst = await sharedInstance();
    const t0 = Date.now();
    await startKb();
    console.log(`      (kb online in ${Date.now() - t0} ms)`);
    coord = await Peer.connect(inst, 'coordinator', 'Coordinator');
  });

  after(async () => {
    await coord?.stop().catch(() => undefined);
    await kb?.stop();
    killAgents();
  });

  it('answers STORE_FACT with INFORM STORED count 1 in_reply_to it, and GET_FACTS newest first', async () => {
    const t0 = performance.now();
    const stored = await store(fact(1, 'Paris is the capital of France'));
    console.log(`      (STORE_FACT → STORED round trip ${(performance.now() - t0).toFixed(1)} ms)`);
    expect(stored).to.deep.include({ performative: 'INFORM', sender: 'KB', receiver: 'Coordinator', conversation_id: session });
    expect(stored.content).to.deep.equal({ type: 'STORED', count: 1 });
    await store(fact(3, { answer: 'forty-two', unit: null }));
    await store(fact(2, 'Berlin is the capital of Germany'));
    expect((await facts({ session_id: session })).map((f) => f.ts)).to.deep.equal([ts(3), ts(2), ts(1)]);
    expect(await facts({ session_id: session, text: 'PARIS' })).to.deep.equal([fact(1, 'Paris is the capital of France')]);
    expect(await facts({ session_id: session, text: 'forty' })).to.have.length(1);
    expect(await facts({ session_id: session, limit: 1 })).to.have.length(1);
    expect(await facts({ subject: 'nobody@localhost', session_id: session })).to.deep.equal([]);
    const times: number[] = [];
    for (let i = 0; i < 50; i++) {
      const t = performance.now();
      await store(fact(10 + i, `bulk ${i}`));
      times.push(performance.now() - t);
    }
    times.sort((x, y) => x - y);
    console.log(`      (50 sequential STORE_FACT round trips: p50 ${times[25]?.toFixed(2)} ms, max ${times[49]?.toFixed(2)} ms)`);
    expect(await facts({ session_id: session, text: 'bulk', limit: 100 })).to.have.length(50);
  });

  it('keeps facts across a KB restart', async () => {
    await kb.stop();
    await startKb();
    expect((await facts({ session_id: session, text: 'capital' })).map((f) => f.ts)).to.deep.equal([ts(2), ts(1)]);
    expect(await facts({ session_id: session, limit: 1000 })).to.have.length(53);
  });

  it('refuses a specialist (FORBIDDEN_SENDER) and stores nothing for it', async () => {
    const spec = await Peer.connect(inst, 'specialist-kbtest');
    try {
      const refused = await spec.ask('INFORM', { type: 'STORE_FACT', fact: fact(9, 'from a specialist') }, session);
      expect(refused.performative).to.equal('REFUSE');
      expect(refused.content).to.include({ reason: 'FORBIDDEN_SENDER' });
      const query = await spec.ask('QUERY-REF', { type: 'GET_FACTS', filter: { session_id: session } }, session);
      expect(query.content).to.include({ reason: 'FORBIDDEN_SENDER' });
      expect(await facts({ session_id: session, text: 'from a specialist' })).to.deep.equal([]);
    } finally {
      await spec.stop();
    }
  });

  it('answers a malformed fact with NOT-UNDERSTOOD SCHEMA_VIOLATION naming the field', async () => {
    const { confidence: _c, ...noConfidence } = fact(4, 'no confidence');
    const reply = await store(noConfidence);
    expect(reply.performative).to.equal('NOT-UNDERSTOOD');
    expect(reply.content).to.include({ reason: 'SCHEMA_VIOLATION' });
    expect(JSON.stringify(reply.content)).to.contain('confidence');
  });
});
