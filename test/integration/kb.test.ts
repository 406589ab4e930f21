// The KB as a real process against a real ejabberd (seed contract §2.4, §5): STORE_FACT →
// STORED, GET_FACTS newest first, durable across a restart, and it talks to the Coordinator
// only. Test peers are raw XMPP clients (no Agent), so they never answer anything themselves.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { StoredFact } from '../../shared/contracts/index.js';
import { ensureAgentIdentity } from '../../shared/identity/agent-identity.js';
import { type AgentProcess, killAgents, spawnAgent } from '../support/agent-process.js';
import { sharedInstance, type TestInstance } from '../support/ejabberd.js';
import { EnvelopePeer } from '../support/peer.js';

type Peer = EnvelopePeer;

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
    // The test specialist's key is pinned before the KB starts (an agent is provisioned before it
    // talks), so the refusal below is judged by role (FORBIDDEN_SENDER), not by an unknown key.
    ensureAgentIdentity(inst.cfg.home, 'specialist-kbtest', `specialist-kbtest@${inst.cfg.domain}`);
    const t0 = Date.now();
    await startKb();
    console.log(`      (kb online in ${Date.now() - t0} ms)`);
    coord = await EnvelopePeer.connect(inst, 'coordinator', 'KB', 'Coordinator');
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
    const spec = await EnvelopePeer.connect(inst, 'specialist-kbtest', 'KB');
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
