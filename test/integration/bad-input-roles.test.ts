// Every kind of bad input against every role (issue "bad input, every role"): the real registry,
// kb, sessions, specialist, presenter and coordinator processes on the shared ejabberd each get the rows of
// test/support/role-bad-inputs.ts from a legitimate peer account, answer each with its
// machine-readable FIPA error (performative, reason, in_reply_to, conversation) and then still
// serve a good request. Peers are raw XMPP sessions that sign with the instance's real keys and
// never answer, so each role is observed alone. The Coordinator runs last: until then the test
// plays the Coordinator (the only peer the KB, the specialist and the Presenter accept).
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { pinnedDids } from '../../shared/identity/index.js';
import { type Envelope, makeEnvelope, nowIso, replyTo } from '../../shared/acl/index.js';
import { silentLogger } from '../../shared/log/index.js';
import { jidOfName } from '../../shared/runtime/index.js';
import { Person } from '../../shared/trace/index.js';
import { clientTransport, type XmppTransport } from '../../shared/transport/index.js';
import { type AgentProcess, killAgents, spawnAgent } from '../support/agent-process.js';
import { sharedInstance, type TestInstance } from '../support/ejabberd.js';
import { type RoleBadInput, type RoleTarget, roleBadInputs } from '../support/role-bad-inputs.js';
import { signWithAccount } from '../support/signing.js';

const SPEC = 'specialist-badin'; // a specialist account no process runs: the forbidden sender

/** Raw sessions for the peer accounts; every envelope they receive, by in_reply_to. */
class Peers {
  private readonly sessions = new Map<string, XmppTransport>();
  private readonly waiting = new Map<string, (env: Envelope, thread: string | undefined) => void>();
  readonly received = new Map<string, { env: Envelope; thread: string | undefined }>();
  onEnvelope: (account: string, env: Envelope) => void = () => undefined;

  constructor(private readonly inst: TestInstance) {}

  async connect(account: string): Promise<void> {
    const { jid, password } = await this.inst.account(account);
    const t = clientTransport({ jid, password, host: this.inst.cfg.host, port: this.inst.cfg.c2sPort, logger: silentLogger(), resource: `badin-${randomUUID().slice(0, 6)}` });
    t.onMessage((m) => {
      let env: Envelope;
      try {
        env = JSON.parse(m.body ?? '') as Envelope;
      } catch {
        return;
      }
      if (env.in_reply_to) {
        this.received.set(env.in_reply_to, { env, thread: m.thread });
        this.waiting.get(env.in_reply_to)?.(env, m.thread);
      }
      this.onEnvelope(account, env);
    });
    await t.start();
    this.sessions.set(account, t);
  }

  async disconnect(account: string): Promise<void> {
    await this.sessions.get(account)?.stop();
    this.sessions.delete(account);
  }

  sendRaw(account: string, to: string, s: { id: string; thread: string; body: string }): void {
    this.sessions.get(account)?.send({ to, type: 'normal', ...s });
  }

  /** Signs and sends an envelope from `account`; resolves with the first reply to it. */
  ask(account: string, env: Envelope, timeoutMs = 8000): Promise<Envelope> {
    const signed = signWithAccount(this.inst.cfg, account, env);
    const reply = this.replyTo(signed.reply_with, timeoutMs).then((r) => r.env);
    this.sendRaw(account, jidOfName(env.receiver, this.inst.cfg.domain), { id: signed.reply_with, thread: env.conversation_id, body: JSON.stringify(signed) });
    return reply;
  }

  replyTo(id: string, timeoutMs = 8000): Promise<{ env: Envelope; thread: string | undefined }> {
    const known = this.received.get(id);
    if (known) return Promise.resolve(known);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no reply to ${id} within ${timeoutMs} ms`)), timeoutMs);
      this.waiting.set(id, (env, thread) => {
        clearTimeout(timer);
        this.waiting.delete(id);
        resolve({ env, thread });
      });
    });
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.sessions.keys()].map((a) => this.disconnect(a).catch(() => undefined)));
  }
}

describe('Bad input [every role] real processes answer each kind with a FIPA error and keep serving', function () {
  this.timeout(90000);
  let inst: TestInstance;
  let peers: Peers;
  const procs: Record<string, AgentProcess> = {};
  const started = (name: string) => procs[name] as AgentProcess;

  /** Sends every row at once and checks each answer; the role must still be running. */
  async function rejectsEverything(target: RoleTarget, proc: AgentProcess): Promise<void> {
    const rows = roleBadInputs(inst.cfg, target);
    const to = jidOfName(target.name, inst.cfg.domain);
    const answers = rows.map((r) => peers.replyTo(r.inReplyTo).then((a) => ({ r, a })));
    for (const r of rows) peers.sendRaw(r.stanza.account, to, r.stanza);
    const failures: string[] = [];
    for (const { r, a } of await Promise.all(answers.map((p, i) => p.catch((err: Error) => ({ r: rows[i] as RoleBadInput, a: err }))))) {
      if (a instanceof Error) {
        failures.push(`${r.name}: ${a.message}`);
        continue;
      }
      const got = `${a.env.performative} ${String(a.env.content.reason)} cid=${a.env.conversation_id} thread=${a.thread}`;
      const want = `${r.performative} ${r.code} cid=${r.conversationId} thread=${r.conversationId}`;
      if (got !== want || a.env.sender !== target.name) failures.push(`${r.name}: expected ${want}, got ${got} from ${a.env.sender}`);
    }
    expect(failures, `${target.name}:\n${failures.join('\n')}`).to.deep.equal([]);
    expect(proc.child.exitCode, `${target.name} still running`).to.equal(null);
  }

  const fact = () => ({ type: 'STORE_FACT', fact: { session_id: `sess-badin-${randomUUID()}`, slot: 'answer', value: 'v', confidence: 0.9, ts: nowIso() } });
  const askExpert = (question = 'what is 17 * 23?') => ({ type: 'ASK_EXPERT', args: { question }, context_ref: { session_id: 'sess-badin' } });
  const without = (key: string) => (c: Record<string, unknown>) => Object.fromEntries(Object.entries(c).filter(([k]) => k !== key));
  const env = (o: { performative: Envelope['performative']; sender: string; receiver: string; content: object }) =>
    makeEnvelope({ ...o, conversation_id: `sess-badin-${randomUUID()}` });

  before(async function () {
    this.timeout(120000);
    inst = await sharedInstance();
    peers = new Peers(inst);
    const base = { ...inst.env, PARLEY_LOG_LEVEL: 'info' };
    procs.registry = spawnAgent('agents/registry/main.js', base);
    procs.kb = spawnAgent('agents/kb/main.js', base);
    procs.sessions = spawnAgent('agents/sessions/main.js', base);
    procs.presenter = spawnAgent('agents/presenter/main.js', base);
    procs.math = spawnAgent('agents/specialist/main.js', { ...base, PARLEY_SPECIALIST_NAME: 'math', PARLEY_SPECIALIST_EXPERTS: 'arithmetic' });
    await peers.connect('coordinator');
    await peers.connect(SPEC); // (one at a time: two provisionings of one account race in ejabberd's API)
    await Promise.all([
      started('registry').waitFor('online', 60000), started('kb').waitFor('online', 60000), started('sessions').waitFor('online', 60000),
      started('presenter').waitFor('online', 60000), started('math').waitFor('registered', 60000),
    ]);
  });

  after(async () => {
    await peers?.stopAll();
    await Promise.all(Object.values(procs).map((p) => p.stop()));
    killAgents();
  });

  it('Registry [bad input] answers all 14 kinds, then registers an agent', async () => {
    const profile = () => ({ jid: `${SPEC}@${inst.cfg.domain}`, name: SPEC, version: '1.0.0', capabilities: [`BADIN_${randomUUID().slice(0, 6)}`] });
    await rejectsEverything({
      name: 'Registry', peer: { account: SPEC, name: SPEC }, performative: 'REQUEST', content: () => ({ type: 'REGISTER', profile: profile() }),
      wrongPerformative: 'INFORM', broken: without('profile'),
      forbidden: { account: SPEC, name: SPEC, performative: 'QUERY-REF', content: () => ({ need: 'ASK_EXPERT', hint: 'x' }) },
    }, started('registry'));
    const ok = await peers.ask(SPEC, env({ performative: 'REQUEST', sender: SPEC, receiver: 'Registry', content: { type: 'REGISTER', profile: profile() } }));
    expect(ok).to.deep.include({ performative: 'INFORM' });
    expect(ok.content).to.include({ type: 'REGISTERED', jid: `${SPEC}@${inst.cfg.domain}` });
    await peers.ask(SPEC, env({ performative: 'REQUEST', sender: SPEC, receiver: 'Registry', content: { type: 'DEREGISTER', jid: `${SPEC}@${inst.cfg.domain}` } }));
  });

  it('KB [bad input] answers all 14 kinds, then stores a fact', async () => {
    await rejectsEverything({
      name: 'KB', peer: { account: 'coordinator', name: 'Coordinator' }, performative: 'INFORM', content: fact,
      wrongPerformative: 'REQUEST', broken: without('fact'),
      forbidden: { account: SPEC, name: SPEC, performative: 'INFORM', content: fact },
    }, started('kb'));
    const ok = await peers.ask('coordinator', env({ performative: 'INFORM', sender: 'Coordinator', receiver: 'KB', content: fact() }));
    expect(ok.content).to.deep.equal({ type: 'STORED', count: 1 });
  });

  it('Sessions [bad input] answers all 14 kinds, then answers a person\'s "session" line the Coordinator forwards', async () => {
    const line = (text: string) => ({ type: 'SESSION_CHAT', text, on_behalf_of: `badin-alice@${inst.cfg.domain}` });
    await rejectsEverything({
      name: 'Sessions', peer: { account: 'coordinator', name: 'Coordinator' }, performative: 'REQUEST', content: () => line('session'),
      wrongPerformative: 'INFORM', broken: without('on_behalf_of'),
      forbidden: { account: SPEC, name: SPEC, performative: 'REQUEST', content: () => line('session start stolen') },
    }, started('sessions'));
    const ok = await peers.ask('coordinator', env({ performative: 'REQUEST', sender: 'Coordinator', receiver: 'Sessions', content: line('session') }));
    expect(ok).to.deep.include({ performative: 'INFORM' });
    expect(ok.content.type).to.equal('SESSION_CHAT_REPLY');
    expect(String(ok.content.text)).to.match(/not one of your sessions/);
    // Attack: a convening DID that is not the Presenter's pinned one (here the Coordinator's own) convenes nothing.
    const forged = env({ performative: 'REQUEST', sender: 'Coordinator', receiver: 'Sessions', content: { ...line('session start forged plan'), presenter_did: pinnedDids(inst.cfg.home).get(`coordinator@${inst.cfg.domain}`) } });
    const refused = await peers.ask('coordinator', forged);
    expect(refused.content).to.deep.include({ type: 'SESSION_CHAT_REPLY' });
    expect(String(refused.content.text)).to.match(/refused/);
    const shown = await peers.ask('coordinator', { ...forged, reply_with: `msg-${randomUUID()}`, content: line('session') });
    expect(String(shown.content.text)).to.match(/not one of your sessions/);
  });

  it('Specialist [bad input] answers all 14 kinds, then answers "what is 17 * 23?"', async () => {
    await rejectsEverything({
      name: 'specialist-math', peer: { account: 'coordinator', name: 'Coordinator' }, performative: 'REQUEST', content: () => askExpert(),
      wrongPerformative: 'INFORM', broken: without('args'),
      forbidden: { account: SPEC, name: SPEC, performative: 'REQUEST', content: () => askExpert() },
    }, started('math'));
    const request = env({ performative: 'REQUEST', sender: 'Coordinator', receiver: 'specialist-math', content: askExpert() });
    const result = new Promise<Envelope>((resolve) => {
      peers.onEnvelope = (_a, e) => {
        if (e.in_reply_to === request.reply_with && e.performative === 'INFORM') resolve(e);
      };
    });
    // The RESULT alone when quick; an AGREE first when the skill took longer than 250 ms.
    expect((await peers.ask('coordinator', request)).performative).to.be.oneOf(['AGREE', 'INFORM']);
    expect((await result).content.result).to.deep.include({ answer: '391' });
  });

  it('Presenter [bad input] answers all 14 kinds, then relays a person\'s question and its answer', async () => {
    await rejectsEverything({
      name: 'Presenter', peer: { account: 'coordinator', name: 'Coordinator' }, performative: 'INFORM',
      content: () => ({ type: 'PRESENTER_REPLY', text: 'hello', rich: {} }), inReplyTo: `msg-nobody-${randomUUID()}`,
      wrongPerformative: 'REQUEST', broken: without('text'),
      forbidden: { account: SPEC, name: SPEC, performative: 'INFORM', content: () => ({ type: 'PRESENTER_REPLY', text: 'hi', rich: {} }) },
    }, started('presenter'));
    // Play the Coordinator: answer the Presenter's USER_MSG.
    peers.onEnvelope = (account, e) => {
      if (account !== 'coordinator' || e.content.type !== 'USER_MSG') return;
      const reply = signWithAccount(inst.cfg, 'coordinator', replyTo(e, { performative: 'INFORM', content: { type: 'PRESENTER_REPLY', text: `you said: ${String(e.content.text)}`, rich: {} } }));
      peers.sendRaw('coordinator', jidOfName('Presenter', inst.cfg.domain), { id: reply.reply_with, thread: reply.conversation_id, body: JSON.stringify(reply) });
    };
    const person = await Person.connect(inst.cfg, 'badin-alice');
    try {
      expect((await person.ask('still there?', { timeoutMs: 8000 })).answer).to.equal('you said: still there?');
    } finally {
      await person.close();
    }
  });

  it('Coordinator [bad input] answers all 14 kinds, then answers "what is 17 * 23?" through the real DF, specialist and KB', async function () {
    // The Coordinator's peer is the Presenter: the test plays it now, and stops playing the Coordinator.
    await peers.disconnect('coordinator');
    await started('presenter').stop();
    procs.coordinator = spawnAgent('agents/coordinator/main.js', { ...inst.env, PARLEY_LOG_LEVEL: 'info' });
    await Promise.all([started('coordinator').waitFor('online', 60000), peers.connect('presenter')]);
    const userMsg = (text: string) => ({ type: 'USER_MSG', text, attachments: [], user: `badin-alice@${inst.cfg.domain}` });
    await rejectsEverything({
      name: 'Coordinator', peer: { account: 'presenter', name: 'Presenter' }, performative: 'REQUEST', content: () => userMsg('what is 2 + 2?'),
      wrongPerformative: 'INFORM', broken: without('text'),
      forbidden: { account: SPEC, name: SPEC, performative: 'REQUEST', content: () => userMsg('let me in') },
    }, started('coordinator'));
    const request = env({ performative: 'REQUEST', sender: 'Presenter', receiver: 'Coordinator', content: userMsg('what is 17 * 23?') });
    const reply = new Promise<Envelope>((resolve) => {
      peers.onEnvelope = (_a, e) => {
        if (e.in_reply_to === request.reply_with && e.performative === 'INFORM') resolve(e);
      };
    });
    // An AGREE naming the specialist (for the person's "still working" line) comes first only when
    // the specialist agreed before answering, i.e. its skill took longer than 250 ms; then the answer.
    const first = await peers.ask('presenter', request, 15000);
    if (first.performative === 'AGREE') expect(first.content.by).to.match(/^specialist-/);
    else expect(first).to.deep.include({ performative: 'INFORM' });
    const answer = await reply;
    expect(answer).to.deep.include({ performative: 'INFORM' });
    expect(answer.content).to.deep.include({ type: 'PRESENTER_REPLY', text: '391' });
  });
});
