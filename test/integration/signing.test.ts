// Signed envelopes against real processes on a real ejabberd (issue "Signed envelopes, agent
// identities and negotiated requests"): each bad envelope is rejected with its reason, nothing is
// acted upon, and the agent keeps serving. Attackers are raw XMPP clients on real accounts.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { type Envelope, makeEnvelope } from '../../shared/acl/index.js';
import { createIdentity, type Identity, pinnedDids, signEnvelope } from '../../shared/identity/index.js';
import { silentLogger } from '../../shared/log/index.js';
import { repoRoot } from '../../shared/runtime/repo-root.js';
import { openDb } from '../../shared/store/index.js';
import { clientTransport, type XmppTransport } from '../../shared/transport/index.js';
import { type AgentProcess, killAgents, spawnAgent } from '../support/agent-process.js';
import { sharedInstance, type TestInstance } from '../support/ejabberd.js';
import { signWithAccount } from '../support/signing.js';
import { until } from '../support/wait.js';

/** A raw XMPP client on a real account: sends whatever body it is given, records envelopes and chat. */
class Raw {
  readonly inbox: Envelope[] = [];
  readonly chat: string[] = [];
  private constructor(readonly jid: string, private readonly t: XmppTransport, private readonly domain: string) {
    t.onMessage((m) => {
      if (m.type === 'chat' && m.body) this.chat.push(m.body);
      try {
        this.inbox.push(JSON.parse(m.body ?? '') as Envelope);
      } catch {
        // chat text, not an envelope
      }
    });
  }
  static async connect(inst: TestInstance, account: string): Promise<Raw> {
    const { jid, password } = await inst.account(account);
    const t = clientTransport({ jid, password, host: inst.cfg.host, port: inst.cfg.c2sPort, logger: silentLogger(), resource: `sig-${randomUUID().slice(0, 8)}` });
    await t.start();
    return new Raw(jid, t, inst.cfg.domain);
  }
  send(to: string, env: object, type: 'normal' | 'chat' = 'normal'): void {
    const e = env as Envelope;
    this.t.send({ to: `${to}@${this.domain}`, type, id: e.reply_with, thread: e.conversation_id, body: JSON.stringify(env) });
  }
  say(to: string, text: string): void {
    this.t.send({ to: `${to}@${this.domain}`, type: 'chat', body: text });
  }
  async replyTo(env: { reply_with: string }, timeoutMs = 5000): Promise<Envelope> {
    await until(() => this.inbox.some((e) => e.in_reply_to === env.reply_with), `a reply to ${env.reply_with}`, timeoutMs);
    return this.inbox.find((e) => e.in_reply_to === env.reply_with) as Envelope;
  }
  repliesTo(env: { reply_with: string }): Envelope[] {
    return this.inbox.filter((e) => e.in_reply_to === env.reply_with);
  }
  stop(): Promise<void> {
    return this.t.stop();
  }
}

/** Asserts that nothing more happens: a second reply to a rejected envelope would come within 300 ms. */
const quietFor300ms = () => new Promise((r) => setTimeout(r, 300));

function decisions(home: string, name: string, replyWith: string): string[] {
  const db = openDb(path.join(home, 'telemetry', `${name}.sqlite`), { readonly: true });
  try {
    return (db.prepare("SELECT decision FROM envelopes WHERE direction = 'in' AND reply_with = ?").all(replyWith) as Array<{ decision: string }>).map((r) => r.decision);
  } finally {
    db.close();
  }
}

describe('Signing [integration] a real agent rejects what is not properly signed, and keeps serving', function () {
  this.timeout(60000);
  const ECHO = 'specialist-sigecho';
  let inst: TestInstance;
  let echo: AgentProcess;
  let coord: Raw;
  const ask = (question: string, over: Partial<Envelope> = {}): Envelope => ({
    ...makeEnvelope({
      performative: 'REQUEST', sender: 'Coordinator', receiver: ECHO, conversation_id: `sess-sig-${randomUUID()}`,
      content: { type: 'ASK_EXPERT', args: { question }, context_ref: { session_id: 'sess-sig' } },
    }),
    ...over,
  });
  const signed = (env: Envelope) => signWithAccount(inst.cfg, 'coordinator', env);

  before(async () => {
    inst = await sharedInstance();
    await inst.account(ECHO);
    echo = spawnAgent('test/fixtures/echo-agent.js', { ...inst.env, ECHO_ACCOUNT: ECHO, ECHO_AGREE: '0' });
    await echo.waitFor('online');
    coord = await Raw.connect(inst, 'coordinator');
  });

  after(async () => {
    await coord?.stop().catch(() => undefined);
    await echo?.stop();
    killAgents();
  });

  /** Sends `env` from `from`, expects the error reply, and checks nothing was answered otherwise. */
  async function rejected(from: Raw, env: Envelope, performative: string, reason: string): Promise<void> {
    from.send(ECHO, env);
    const reply = await from.replyTo(env);
    expect(reply).to.deep.include({ performative, in_reply_to: env.reply_with, conversation_id: env.conversation_id, sender: ECHO });
    expect(reply.content).to.include({ reason });
    await quietFor300ms();
    expect(from.repliesTo(env).map((e) => e.performative), 'nothing acted upon').to.deep.equal([performative]);
    await until(() => decisions(inst.cfg.home, ECHO, env.reply_with).length > 0, 'the telemetry row');
    expect(decisions(inst.cfg.home, ECHO, env.reply_with)).to.deep.equal([`rejected:${reason}`]);
  }

  it('answers a properly signed request (the baseline)', async () => {
    const env = signed(ask('baseline'));
    coord.send(ECHO, env);
    const reply = await coord.replyTo(env);
    expect(reply).to.deep.include({ performative: 'INFORM' });
    expect(reply.content).to.deep.include({ type: 'RESULT' });
    expect(reply.sender_did, 'the answer is signed too').to.match(/^did:key:z6Mk/);
  });

  it('refuses an unsigned envelope (MISSING_SIGNATURE)', async () => {
    await rejected(coord, ask('unsigned'), 'REFUSE', 'MISSING_SIGNATURE');
  });

  it('refuses a tampered body (BAD_SIGNATURE)', async () => {
    const env = signed(ask('2+2?'));
    (env.content as { args: { question: string } }).args.question = '2+3?';
    await rejected(coord, env, 'REFUSE', 'BAD_SIGNATURE');
  });

  it('refuses a wrong key: another key claiming the bound DID (BAD_SIGNATURE) or its own DID (DID_MISMATCH)', async () => {
    const stranger = createIdentity();
    const mine = signed(ask('x'));
    await rejected(coord, { ...signEnvelope(ask('claims the DID'), stranger), sender_did: mine.sender_did as string }, 'REFUSE', 'BAD_SIGNATURE');
    await rejected(coord, signEnvelope(ask('own DID'), stranger), 'REFUSE', 'DID_MISMATCH');
  });

  it('refuses an agent JID no DID is bound to (UNKNOWN_DID)', async () => {
    const rogue = await Raw.connect(inst, 'specialist-sigrogue');
    pinnedDids(inst.cfg.home).unpin(rogue.jid); // an account whose key the installation never pinned
    try {
      await rejected(rogue, signEnvelope(ask('who am I?', { sender: 'specialist-sigrogue' }), createIdentity()), 'REFUSE', 'UNKNOWN_DID');
    } finally {
      await rogue.stop();
    }
  });

  it('drops a replayed envelope: acted upon once, the copy recorded as REPLAYED; the answer already sent goes again, unchanged', async () => {
    const env = signed(ask('once only'));
    coord.send(ECHO, env);
    await coord.replyTo(env);
    coord.send(ECHO, env);
    await until(() => decisions(inst.cfg.home, ECHO, env.reply_with).includes('rejected:REPLAYED'), 'the replay to be recorded');
    // The sender may have lost the answer (that is why a request comes again): it gets the same
    // answer (same reply_with), never a second one computed anew, and the echo handled it once.
    // Exactly one copy: the first copy of a request is always answered again (RepliesSent.againFor).
    await until(() => coord.repliesTo(env).length === 2, 'the answer sent again');
    const replies = coord.repliesTo(env);
    expect(replies.map((e) => e.performative)).to.deep.equal(['INFORM', 'INFORM']);
    expect(new Set(replies.map((e) => e.reply_with)).size).to.equal(1);
    expect(replies[1]?.content).to.deep.equal(replies[0]?.content);
    expect(decisions(inst.cfg.home, ECHO, env.reply_with)).to.deep.equal(['opened', 'rejected:REPLAYED']);
  });

  it('refuses a stale timestamp, 61 s old (STALE_MESSAGE, Agora §1)', async () => {
    await rejected(coord, signed(ask('old news', { timestamp: new Date(Date.now() - 61_000).toISOString() })), 'REFUSE', 'STALE_MESSAGE');
  });

  it('still serves a good request after all of that', async () => {
    const env = signed(ask('still there?'));
    coord.send(ECHO, env);
    expect((await coord.replyTo(env)).content).to.deep.include({ result: { answer: 'echo: still there?' } });
  });
});

describe('Signing [integration] people do not sign: a forged Coordinator in a person\'s thread', function () {
  this.timeout(60000);
  let inst: TestInstance;
  let presenter: AgentProcess;
  let coord: Raw;
  let alice: Raw;
  let mallory: Raw;

  before(async () => {
    inst = await sharedInstance();
    coord = await Raw.connect(inst, 'coordinator');
    alice = await Raw.connect(inst, 'sig-alice');
    mallory = await Raw.connect(inst, 'sig-mallory');
    presenter = spawnAgent('agents/presenter/main.js', { ...inst.env, PARLEY_PRESENTER_ALLOW: `${alice.jid},${mallory.jid}` });
    await presenter.waitFor('online');
  });

  after(async () => {
    for (const r of [coord, alice, mallory]) await r?.stop().catch(() => undefined);
    await presenter?.stop();
    killAgents();
  });

  it('refuses mallory\'s PRESENTER_REPLY claiming to be the Coordinator (UNKNOWN_DID); alice only reads the real answer', async () => {
    alice.say('presenter', 'what is 2+2?');
    await until(() => coord.inbox.some((e) => (e.content as { type?: string }).type === 'USER_MSG'), 'the USER_MSG');
    const userMsg = coord.inbox.find((e) => (e.content as { type?: string }).type === 'USER_MSG') as Envelope;
    expect(userMsg.sender_did, 'the Presenter signs on alice\'s behalf').to.match(/^did:key:z6Mk/);

    // Mallory knows the thread and the message id (e.g. from a leaked log) and signs with any key.
    const forged = signEnvelope(makeEnvelope({
      performative: 'INFORM', sender: 'Coordinator', receiver: 'Presenter', conversation_id: userMsg.conversation_id,
      in_reply_to: userMsg.reply_with, content: { type: 'PRESENTER_REPLY', text: 'FORGED: send me your password', rich: {} },
    }), createIdentity());
    mallory.send('presenter', forged);
    const refusal = await mallory.replyTo(forged);
    expect(refusal).to.deep.include({ performative: 'REFUSE', in_reply_to: forged.reply_with });
    expect(refusal.content).to.include({ reason: 'UNKNOWN_DID' });

    const real = signWithAccount(inst.cfg, 'coordinator', makeEnvelope({
      performative: 'INFORM', sender: 'Coordinator', receiver: 'Presenter', conversation_id: userMsg.conversation_id,
      in_reply_to: userMsg.reply_with, content: { type: 'PRESENTER_REPLY', text: 'It is 4.', rich: {} },
    }));
    coord.send('presenter', real);
    await until(() => alice.chat.some((t) => t.includes('It is 4.')), 'alice to read the real answer');
    expect(alice.chat.join('\n')).not.to.contain('FORGED');
  });
});

describe('Signing [integration] the Registry accepts only the enrolled (or pinned) key at REGISTER; another key needs the operator', function () {
  this.timeout(60000);
  let inst: TestInstance;
  let registry: AgentProcess;
  let coord: Raw;
  const run = promisify(execFile);

  before(async () => {
    inst = await sharedInstance();
    registry = spawnAgent('agents/registry/main.js', inst.env);
    await registry.waitFor('online');
    coord = await Raw.connect(inst, 'coordinator');
  });

  after(async () => {
    await coord?.stop().catch(() => undefined);
    await registry?.stop();
    killAgents();
  });

  const register = (name: string, jid: string, key: Identity, did = key.did) => signEnvelope(makeEnvelope({
    performative: 'REQUEST', sender: name, receiver: 'Registry', conversation_id: `reg-${name}-${randomUUID()}`,
    content: { type: 'REGISTER', profile: { jid, name, did, version: '1.0.0', capabilities: ['SIGTEST'] } },
  }), key);

  it('binds nobody on first use: only the enrolled key registers, another key is refused, a rotated key after re-enrolment, and tells the Coordinator', async () => {
    const name = `specialist-sigtofu-${randomUUID().slice(0, 6)}`;
    const peer = await Raw.connect(inst, name);
    const enrol = (args: string[]) => run(process.execPath, [path.join(repoRoot(), 'dist/scripts/enrol-cli.js'), ...args], { env: { ...process.env, ...inst.env } });
    try {
      pinnedDids(inst.cfg.home).unpin(peer.jid); // not provisioned here: only the operator's enrolment counts
      const first = createIdentity();
      const early = register(name, peer.jid, first);
      peer.send('registry', early);
      const unenrolled = await peer.replyTo(early);
      expect(unenrolled).to.deep.include({ performative: 'REFUSE' });
      expect(unenrolled.content).to.include({ reason: 'UNKNOWN_DID' });

      await enrol(['issue', name, '--did', first.did]);
      const ok = register(name, peer.jid, first);
      peer.send('registry', ok);
      expect((await peer.replyTo(ok)).content).to.include({ type: 'REGISTERED' });

      const second = register(name, peer.jid, createIdentity());
      peer.send('registry', second);
      const refused = await peer.replyTo(second);
      expect(refused).to.deep.include({ performative: 'REFUSE' });
      expect(refused.content).to.include({ reason: 'DID_MISMATCH' });

      const notSigner = register(name, peer.jid, first, createIdentity().did);
      peer.send('registry', notSigner);
      expect((await peer.replyTo(notSigner)).content).to.include({ reason: 'DID_MISMATCH' });

      const { stdout } = await run(process.execPath, [path.join(repoRoot(), 'dist/scripts/keys-cli.js'), 'rotate', name], { env: { ...process.env, ...inst.env } });
      const rotatedDid = /new did: (\S+)/.exec(stdout)?.[1] as string;
      expect(rotatedDid).to.match(/^did:key:z6Mk/);
      await enrol(['issue', name, '--local']); // the restarted agent's provisioning re-enrols its new key
      // The Registry re-reads the enrolments and the pinned file at most every 20 / 250 ms, on a
      // mismatch (shared/identity/roster.ts, trust.ts). Its reload is seen in its answer: until
      // then the new key is refused as DID_MISMATCH and nothing else; each try is a new envelope.
      const refusals: unknown[] = [];
      await until(async () => {
        const rotated = signWithAccount(inst.cfg, name, register(name, peer.jid, createIdentity(), rotatedDid));
        peer.send('registry', rotated);
        const reply = await peer.replyTo(rotated);
        if ((reply.content as { type?: string }).type === 'REGISTERED') return true;
        refusals.push(reply.content);
        return false;
      }, 'the Registry to accept the rotated key', 5000);
      for (const r of refusals) expect(r).to.include({ reason: 'DID_MISMATCH' });

      const need = signWithAccount(inst.cfg, 'coordinator', makeEnvelope({
        performative: 'QUERY-REF', sender: 'Coordinator', receiver: 'Registry', conversation_id: `sess-sig-${randomUUID()}`, content: { need: 'SIGTEST' },
      }));
      coord.send('registry', need);
      const candidates = (await coord.replyTo(need)).content as { candidates: string[]; dids: Record<string, string> };
      expect(candidates.candidates).to.include(peer.jid);
      expect(candidates.dids[peer.jid]).to.equal(rotatedDid);
    } finally {
      await peer.stop();
    }
  });

  it('refuses a pinned agent presenting another key, before any registry logic (DID_MISMATCH)', async () => {
    const name = `specialist-sigpin-${randomUUID().slice(0, 6)}`;
    const peer = await Raw.connect(inst, name); // provisioning pinned its key
    try {
      const ok = signWithAccount(inst.cfg, name, register(name, peer.jid, createIdentity(), pinnedDids(inst.cfg.home).get(peer.jid)));
      peer.send('registry', ok);
      expect((await peer.replyTo(ok)).content).to.include({ type: 'REGISTERED' });
      const other = register(name, peer.jid, createIdentity());
      peer.send('registry', other);
      expect((await peer.replyTo(other)).content).to.include({ reason: 'DID_MISMATCH' });
    } finally {
      await peer.stop();
    }
  });
});
