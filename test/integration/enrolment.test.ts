// Enrolment and least authority, attacked (issue "Close the perimeter", part B): a rogue account
// named like a specialist, an enrolled specialist stepping outside its work, a revoked one, and
// enrolment tokens replayed and expired. Real ejabberd, real Registry/Coordinator processes (the
// second block runs the whole system under the supervisor, with people asking questions).
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { type Envelope, makeEnvelope } from '../../shared/acl/index.js';
import type { ParleyConfig } from '../../shared/config/index.js';
import { ensureAccount } from '../../shared/ejabberd/index.js';
import {
  verifyCredential, decodeJoinToken, createIdentity, type Identity, signEnvelope,
} from '../../shared/identity/index.js';
import { silentLogger } from '../../shared/log/index.js';
import { jidOfName } from '../../shared/runtime/index.js';
import { repoRoot } from '../../shared/runtime/repo-root.js';
import { Person } from '../../shared/trace/index.js';
import { clientTransport, type XmppTransport } from '../../shared/transport/index.js';
import { type AgentProcess, killAgents, spawnAgent } from '../support/agent-process.js';
import { sharedInstance, type TestInstance } from '../support/ejabberd.js';
import { EnvelopePeer } from '../support/peer.js';
import { startSupervisor, stopSupervisor, type Supervised } from '../support/supervised.js';
import { until } from '../support/wait.js';

const run = promisify(execFile);
const enrolCli = (env: NodeJS.ProcessEnv, args: string[]) =>
  run(process.execPath, [path.join(repoRoot(), 'dist', 'scripts', 'enrol-cli.js'), ...args], { env, timeout: 60000 });

/** A raw XMPP client: an attacker's process, or an agent on another host; signs with the key it is given. */
class Raw {
  readonly inbox: Envelope[] = [];
  private constructor(readonly jid: string, readonly name: string, private readonly t: XmppTransport, private readonly domain: string, readonly key: Identity) {
    t.onMessage((m) => {
      try {
        this.inbox.push(JSON.parse(m.body ?? '') as Envelope);
      } catch {
        // not an envelope
      }
    });
  }
  static async login(cfg: ParleyConfig, jid: string, password: string, key: Identity): Promise<Raw> {
    const t = clientTransport({ jid, password, host: cfg.host, port: cfg.c2sPort, logger: silentLogger(), resource: `raw-${randomUUID().slice(0, 8)}` });
    await t.start();
    return new Raw(jid, jid.slice(0, jid.indexOf('@')), t, cfg.domain, key);
  }
  send(receiver: string, performative: Envelope['performative'], content: object, conversation_id = `att-${randomUUID()}`): Envelope {
    const env = signEnvelope(makeEnvelope({ performative, sender: this.name, receiver, conversation_id, content }), this.key);
    this.t.send({ to: jidOfName(receiver, this.domain), type: 'normal', id: env.reply_with, thread: conversation_id, body: JSON.stringify(env) });
    return env;
  }
  async ask(receiver: string, performative: Envelope['performative'], content: object, conversation_id?: string): Promise<Envelope> {
    const env = this.send(receiver, performative, content, conversation_id);
    await until(() => this.inbox.some((e) => e.in_reply_to === env.reply_with), `a reply to ${JSON.stringify(content).slice(0, 60)}`, 10000);
    return this.inbox.find((e) => e.in_reply_to === env.reply_with) as Envelope;
  }
  stop(): Promise<void> {
    return this.t.stop();
  }
}

const reasonOf = (e: Envelope) => (e.content as { reason?: string }).reason;
const detailOf = (e: Envelope) => String((e.content as { detail?: string }).detail ?? '');
const profile = (p: { jid: string; name: string }, cap: string, did?: string) =>
  ({ type: 'REGISTER', profile: { jid: p.jid, name: p.name, version: '1.0.0', capabilities: [cap], description: 'test', ...(did ? { did } : {}) } });

describe('Enrolment [integration] the Registry accepts only enrolled identities; tokens are single-use and expire', function () {
  this.timeout(60000);
  const CAP = `ENROLTEST_${randomUUID().slice(0, 6)}`;
  let inst: TestInstance;
  let registry: AgentProcess;
  let coord: EnvelopePeer;
  const candidates = async () => ((await coord.ask('QUERY-REF', { need: CAP })).content as { candidates: string[]; dids?: Record<string, string> });

  before(async () => {
    inst = await sharedInstance();
    registry = spawnAgent('agents/registry/main.js', { ...inst.env, PARLEY_LEASE_MS: '60000' });
    await registry.waitFor('online');
    coord = await EnvelopePeer.connect(inst, 'coordinator', 'Registry', 'Coordinator');
  });

  after(async () => {
    await coord?.stop().catch(() => undefined);
    await registry?.stop();
    killAgents();
  });

  it('refuses REGISTER from a rogue account named specialist-evil (an ordinary account), with the reason; it is never a candidate', async () => {
    const { jid, password } = await ensureAccount(inst.cfg, 'specialist-evil'); // the operator's provisioning, as for a person
    const rogue = await Raw.login(inst.cfg, jid, password, createIdentity());
    try {
      const refused = await rogue.ask('Registry', 'REQUEST', profile(rogue, CAP));
      expect(refused.performative).to.equal('REFUSE');
      expect(reasonOf(refused)).to.equal('UNKNOWN_DID');
      expect(detailOf(refused)).to.contain('not an enrolled agent');
      // Claiming its own DID in the profile changes nothing (no trust on first use).
      const again = await rogue.ask('Registry', 'REQUEST', profile(rogue, CAP, rogue.key.did));
      expect(reasonOf(again)).to.equal('UNKNOWN_DID');
      const bogus = await rogue.ask('Registry', 'REQUEST', { type: 'ENROL', token: 'x'.repeat(43), did: rogue.key.did });
      expect(bogus.performative).to.equal('REFUSE');
      expect(detailOf(bogus)).to.contain('UNKNOWN_TOKEN');
      expect((await candidates()).candidates).not.to.include(jid);
    } finally {
      await rogue.stop();
    }
  });

  it('registers an enrolled specialist, and after `npm run enrol -- revoke` refuses its next HEARTBEAT and REGISTER and drops it', async () => {
    const name = `specialist-insider-${randomUUID().slice(0, 6)}`;
    await inst.account(name);
    const { stdout } = await enrolCli(inst.env, ['issue', name, '--local']);
    expect(stdout).to.match(new RegExp(`enrolled: ${name}@${inst.cfg.domain} as specialist, did:key:z6Mk`));
    const insider = await EnvelopePeer.connect(inst, name, 'Registry');
    try {
      expect((await insider.ask('REQUEST', profile(insider, CAP))).content).to.include({ type: 'REGISTERED' });
      const before = await candidates();
      expect(before.candidates).to.include(insider.jid);
      expect(before.dids?.[insider.jid]).to.match(/^did:key:z6Mk/);
      const list = await enrolCli(inst.env, ['list']);
      expect(list.stdout).to.contain(`${insider.jid} specialist`);

      const revoked = await enrolCli(inst.env, ['revoke', name]);
      expect(revoked.stdout).to.contain(`revoked: ${insider.jid}`);
      const hb = await insider.ask('INFORM', { type: 'HEARTBEAT', jid: insider.jid });
      expect(hb.performative).to.equal('REFUSE');
      expect(detailOf(hb)).to.contain('not an enrolled agent');
      expect((await candidates()).candidates).not.to.include(insider.jid);
      const reg = await insider.ask('REQUEST', profile(insider, CAP));
      expect(reg.performative).to.equal('REFUSE');
      expect((await enrolCli(inst.env, ['list'])).stdout).to.match(new RegExp(`${insider.jid} specialist \\S+ revoked`));
    } finally {
      await insider.stop();
    }
  });

  it('redeems a token once for an operator-signed credential bound to the agent\'s own key; a used or expired token is refused', async () => {
    const name = `specialist-remote-${randomUUID().slice(0, 6)}`;
    const { stdout } = await enrolCli(inst.env, ['issue', name, '--role', 'specialist']);
    const token = decodeJoinToken(stdout.split('\n').find((l) => l.startsWith('parley-join.v1.')) as string);
    expect(token).to.include({ jid: `${name}@${inst.cfg.domain}`, role: 'specialist' });
    const key = createIdentity(); // made on the "remote host": never seen by the operator's
    const remote = await Raw.login(inst.cfg, token.jid, token.password as string, key);
    try {
      const before = await remote.ask('Registry', 'REQUEST', profile(remote, CAP, key.did));
      expect(before.performative).to.equal('REFUSE'); // not enrolled yet
      const enrolled = await remote.ask('Registry', 'REQUEST', { type: 'ENROL', token: token.secret, did: key.did });
      expect(enrolled.performative).to.equal('INFORM');
      const credential = (enrolled.content as { credential: unknown }).credential;
      expect(verifyCredential(credential, token.operator, Date.now())).to.deep.include({ ok: true });
      expect(credential).to.include({ jid: token.jid, did: key.did, role: 'specialist' });
      await until(async () => (await remote.ask('Registry', 'REQUEST', profile(remote, CAP, key.did))).performative === 'INFORM', 'REGISTERED with the enrolled key');
      expect((await candidates()).dids?.[remote.jid]).to.equal(key.did);

      const replayed = await remote.ask('Registry', 'REQUEST', { type: 'ENROL', token: token.secret, did: key.did });
      expect(replayed.performative).to.equal('REFUSE');
      expect(detailOf(replayed)).to.contain('TOKEN_USED');
    } finally {
      await remote.stop();
    }

    const late = `specialist-late-${randomUUID().slice(0, 6)}`;
    const issued = await enrolCli(inst.env, ['issue', late, '--ttl', '0.002']); // 120 ms
    const short = decodeJoinToken(issued.stdout.split('\n').find((l) => l.startsWith('parley-join.v1.')) as string);
    await until(() => Date.now() > short.expires_at, 'the token to expire');
    const lateKey = createIdentity();
    const lateAgent = await Raw.login(inst.cfg, short.jid, short.password as string, lateKey);
    try {
      const expired = await lateAgent.ask('Registry', 'REQUEST', { type: 'ENROL', token: short.secret, did: lateKey.did });
      expect(expired.performative).to.equal('REFUSE');
      expect(detailOf(expired)).to.contain('TOKEN_EXPIRED');
    } finally {
      await lateAgent.stop();
    }
  });
});

describe('Enrolment [system] a rogue specialist-evil and an enrolled specialist out of bounds, against the running system', function () {
  this.timeout(60000);
  let s: Supervised;
  let alice: Person;
  let rogue: Raw;

  before(async function () {
    this.timeout(150000);
    s = await startSupervisor('parley-enrol-', { PARLEY_RESULT_TIMEOUT_MS: '5000' }, { timeoutMs: 120000 });
    const { jid, password } = await ensureAccount(s.cfg, 'specialist-evil'); // an ordinary account, named like an agent
    rogue = await Raw.login(s.cfg, jid, password, createIdentity());
    alice = await Person.connect(s.cfg, 'alice');
  });

  after(async function () {
    this.timeout(60000);
    await rogue?.stop().catch(() => undefined);
    await alice?.close().catch(() => undefined);
    await stopSupervisor(s?.sup, s?.cfg);
  });

  it('refuses the rogue\'s REGISTER, DELEGATE_TASK, QUERY_AGENTS and BROADCAST_EVENT with reasons; people\'s answers stay right and it never sees a question', async () => {
    const reg = await rogue.ask('Registry', 'REQUEST', profile(rogue, 'ASK_EXPERT'));
    expect([reg.performative, reasonOf(reg)]).to.deep.equal(['REFUSE', 'UNKNOWN_DID']);
    for (const content of [{ type: 'DELEGATE_TASK', task: 'what is 2+2?' }, { type: 'QUERY_AGENTS' }, { type: 'BROADCAST_EVENT', event: 'owned', data: 'x' }]) {
      const r = await rogue.ask('Coordinator', content.type === 'QUERY_AGENTS' ? 'QUERY-REF' : 'REQUEST', content);
      expect(r.performative, content.type).to.equal('REFUSE');
      expect(detailOf(r), content.type).to.contain('not an enrolled agent');
    }
    for (const [q, a] of [['what is 17 * 23?', '391'], ['what is 6 * 7?', '42'], ['what is 100 - 1?', '99']] as const) {
      expect((await alice.ask(q)).answer, q).to.contain(a);
    }
    const work = rogue.inbox.filter((e) => e.in_reply_to === undefined);
    expect(work.map((e) => `${e.performative} ${String((e.content as { type?: string }).type)}`), 'nothing ever sent to the rogue unasked').to.deep.equal([]);
  });

  it('refuses an enrolled specialist\'s DELEGATE_TASK and QUERY_AGENTS outside its conversations, and its BROADCAST_EVENT', async () => {
    const name = 'specialist-outofbounds';
    await ensureAccount(s.cfg, name);
    await enrolCli(s.env, ['issue', name, '--local']);
    // EnvelopePeer signs with the enrolled key of this state directory.
    const asInstance = { cfg: s.cfg, account: (n: string) => ensureAccount(s.cfg, n) } as unknown as TestInstance;
    const insider = await EnvelopePeer.connect(asInstance, name, 'Coordinator');
    try {
      const delegate = await insider.ask('REQUEST', { type: 'DELEGATE_TASK', task: 'what is 2+2?' }, `sess-${randomUUID()}`);
      expect([delegate.performative, reasonOf(delegate)]).to.deep.equal(['REFUSE', 'FORBIDDEN_SENDER']);
      expect(detailOf(delegate)).to.contain('only inside a conversation it was asked to work on');
      const query = await insider.ask('QUERY-REF', { type: 'QUERY_AGENTS' }, `sess-${randomUUID()}`);
      expect([query.performative, reasonOf(query)]).to.deep.equal(['REFUSE', 'FORBIDDEN_SENDER']);
      const broadcast = await insider.ask('REQUEST', { type: 'BROADCAST_EVENT', event: 'hello', data: 'x' });
      expect([broadcast.performative, reasonOf(broadcast)]).to.deep.equal(['REFUSE', 'FORBIDDEN_SENDER']);
      expect(detailOf(broadcast)).to.contain('may not open a BROADCAST_EVENT');
    } finally {
      await insider.stop();
    }
  });

  it('stops giving a revoked specialist work: after `npm run enrol -- revoke specialist-time` time questions find no candidate, arithmetic still answers', async () => {
    expect((await alice.ask('what time is it in Tokyo?')).answer).to.match(/It is \d\d:\d\d in Tokyo/);
    const { stdout } = await enrolCli(s.env, ['revoke', 'specialist-time']);
    expect(stdout).to.contain(`revoked: specialist-time@${s.cfg.domain}`);
    const after = await alice.ask('what time is it in Tokyo?');
    expect(after.answer).not.to.match(/It is \d\d:\d\d in Tokyo/);
    expect(after.answer).to.match(/^I can't help with that one/); // NO_CANDIDATE: the friendly sentence, the code stays in the trace
    expect((await alice.ask('what is 2 + 3?')).answer).to.contain('5');
  });
});
