// Perimeter §5 (issue "Close the perimeter"): replay through a forged delay stamp, and replay after
// a restart, against a real KB process on a real ejabberd. The attacker holds a captured signed
// envelope and a connection from the JID it was signed for (the strongest position: the
// unauthenticated HTTP API that once let anyone send as any address is closed, see
// perimeter-ejabberd.test.ts), so only the KB's own defences stand between the copy and the store.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import xml from '@xmpp/xml';
import { expect } from 'chai';
import { type Envelope, makeEnvelope } from '../../shared/acl/index.js';
import type { StoredFact } from '../../shared/contracts/index.js';
import { signEnvelope } from '../../shared/identity/index.js';
import { silentLogger } from '../../shared/log/index.js';
import { openDb } from '../../shared/store/index.js';
import { clientTransport, NS_DELAY, type XmppTransport } from '../../shared/transport/index.js';
import { type AgentProcess, killAgents, spawnAgent } from '../support/agent-process.js';
import { sharedInstance, type TestInstance } from '../support/ejabberd.js';
import { enrolTestAgent } from '../support/signing.js';
import { until } from '../support/wait.js';

describe('Perimeter [replay] a copied envelope is refused by a real KB, also after a kill -9, whatever delay stamp it carries', function () {
  this.timeout(60000);
  let inst: TestInstance;
  let kb: AgentProcess;
  let rogue: XmppTransport;
  const inbox: Envelope[] = [];
  const session = `sess-replay-${randomUUID()}`;
  const startKb = async () => {
    kb = spawnAgent('agents/kb/main.js', inst.env);
    await kb.waitFor('online');
  };
  const storeFact = (value: string, timestamp = new Date()): Envelope =>
    signEnvelope({
      ...makeEnvelope({
        performative: 'INFORM', sender: 'Coordinator', receiver: 'KB', conversation_id: session,
        content: { type: 'STORE_FACT', fact: { session_id: session, slot: 'answer', value, confidence: 0.9, ts: new Date().toISOString(), subject: 'alice@localhost' } },
      }),
      timestamp: timestamp.toISOString(),
    }, enrolTestAgent(inst.cfg, 'coordinator'));
  /** Puts `env` on the wire exactly as given, with extra children (a forged <delay/>). */
  const sendRaw = (env: Envelope, children: ReturnType<typeof xml>[] = []) =>
    rogue.send({ to: `kb@${inst.cfg.domain}`, type: 'normal', id: env.reply_with, thread: env.conversation_id, body: JSON.stringify(env), children });
  const repliesTo = (env: Envelope) => inbox.filter((e) => e.in_reply_to === env.reply_with);
  const decisions = (replyWith: string): string[] => {
    const db = openDb(path.join(inst.cfg.home, 'telemetry', 'KB.sqlite'), { readonly: true });
    try {
      return (db.prepare("SELECT decision FROM envelopes WHERE direction = 'in' AND reply_with = ?").all(replyWith) as Array<{ decision: string }>).map((r) => r.decision);
    } finally {
      db.close();
    }
  };
  const storedValues = async (): Promise<unknown[]> => {
    const query = signEnvelope(makeEnvelope({ performative: 'QUERY-REF', sender: 'Coordinator', receiver: 'KB', conversation_id: session, content: { type: 'GET_FACTS', filter: { session_id: session, limit: 100 } } }), enrolTestAgent(inst.cfg, 'coordinator'));
    sendRaw(query);
    await until(() => repliesTo(query).length > 0, 'the facts', 5000);
    return ((repliesTo(query)[0]?.content as { facts: StoredFact[] }).facts ?? []).map((f) => f.value);
  };

  before(async () => {
    inst = await sharedInstance();
    await startKb();
    const { jid, password } = await inst.account('coordinator');
    rogue = clientTransport({ jid, password, host: inst.cfg.host, port: inst.cfg.c2sPort, logger: silentLogger(), resource: `rogue-${randomUUID().slice(0, 8)}` });
    rogue.onMessage((m) => {
      try {
        inbox.push(JSON.parse(m.body ?? '') as Envelope);
      } catch {
        // not an envelope
      }
    });
    await rogue.start();
  });

  after(async () => {
    await rogue?.stop().catch(() => undefined);
    await kb?.stop();
    killAgents();
  });

  it('stores a fact once; the same envelope after a kill -9 and restart is dropped as REPLAYED, not stored again', async () => {
    const env = storeFact('the original');
    sendRaw(env);
    await until(() => repliesTo(env).length === 1, 'STORED', 5000);
    expect(repliesTo(env)[0]?.content).to.deep.equal({ type: 'STORED', count: 1 });
    await until(() => decisions(env.reply_with).length > 0, 'the KB recorded it', 5000);
    kb.child.kill('SIGKILL');
    await new Promise((resolve) => kb.child.once('exit', resolve));
    await startKb();
    sendRaw(env);
    await until(() => decisions(env.reply_with).includes('rejected:REPLAYED'), 'the copy recorded as REPLAYED', 10000);
    expect(repliesTo(env), 'answered once, never again').to.have.length(1);
    expect(await storedValues()).to.deep.equal(['the original']);
  });

  it('refuses a 146 s old envelope with a forged <delay from="<domain>"> as STALE_MESSAGE and stores nothing', async () => {
    const now = Date.now();
    const env = storeFact('from the past', new Date(now - 146_000));
    sendRaw(env, [xml('delay', { xmlns: NS_DELAY, from: inst.cfg.domain, stamp: new Date(now - 140_000).toISOString() }, 'Offline Storage')]);
    await until(() => repliesTo(env).length > 0, 'a refusal', 5000);
    const [reply] = repliesTo(env);
    expect(reply?.performative).to.equal('REFUSE');
    expect(reply?.content).to.include({ reason: 'STALE_MESSAGE' });
    expect(await storedValues()).to.deep.equal(['the original']);
  });
});
