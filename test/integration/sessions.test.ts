// OAP RFC 0001 Coordination Sessions on real processes: the real Registry, sessions agent
// (sessions@<domain>), Coordinator and Presenter over a real ejabberd, test agents with their own
// did:key (pinned at provisioning, like any agent), a person convening a session through the real
// Presenter and Coordinator (SESSION_CHAT), attacks on SESSION_CHAT from everyone but the
// Coordinator, and `npm run session` as a child process against the sessions agent's SQLite store
// (a tampered turn is named by verify).
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { issueCredential } from '../../shared/sessions/index.js';
import { type Envelope, makeEnvelope } from '../../shared/acl/index.js';
import { runtimeAgent, type RuntimeAgent } from '../../shared/bench/index.js';
import type { AgentProfile } from '../../shared/contracts/index.js';
import { ensureAgentIdentity } from '../../shared/identity/agent-identity.js';
import { pinnedDids, type Identity } from '../../shared/identity/index.js';
import { repoRoot } from '../../shared/runtime/repo-root.js';
import { openDb } from '../../shared/store/index.js';
import { Person } from '../../shared/trace/index.js';
import { type AgentProcess, spawnAgent } from '../support/agent-process.js';
import { sharedInstance, type TestInstance } from '../support/ejabberd.js';
import { oneShot } from '../support/one-shot.js';
import { EnvelopePeer } from '../support/peer.js';
import { outputOf, until } from '../support/wait.js';

const run = promisify(execFile);
const tag = randomUUID().slice(0, 6);
const PLAN = 'session-state-plan';

describe('Sessions [e2e] the sessions agent is the session Tool for agents with their own DIDs', function () {
  this.timeout(90000);
  let inst: TestInstance;
  const procs: AgentProcess[] = [];
  const agents: Record<string, RuntimeAgent> = {};
  const keys: Record<string, Identity> = {};
  let alice: Person | undefined;

  before(async () => {
    inst = await sharedInstance();
    const start = async (script: string, env: Record<string, string> = {}) => {
      const p = spawnAgent(script, { ...inst.env, ...env });
      procs.push(p);
      await p.waitFor('online', 30000);
    };
    await start('agents/registry/main.js');
    await start('agents/sessions/main.js', { PARLEY_SESSION_QUOTA: '3' });
    await start('agents/coordinator/main.js');
    await start('agents/presenter/main.js');
    for (const who of ['a', 'b', 'c']) {
      const name = `specialist-ses${who}${tag}`;
      agents[who] = await runtimeAgent(inst.cfg, name, { telemetry: 'memory', resource: 'sessions-test', enrolAs: 'specialist' });
      keys[who] = ensureAgentIdentity(inst.cfg.home, name, `${name}@${inst.cfg.domain}`);
      await agents[who].agent.start();
    }
  });

  after(async () => {
    await alice?.close().catch(() => undefined);
    for (const a of Object.values(agents)) await a.agent.stop().catch(() => undefined);
    for (const p of procs.reverse()) await p.stop();
  });

  /** One request from test agent `who` to the sessions agent (its well-known name) in conversation `sid`; its reply. */
  const ask = async (who: string, sid: string, performative: Envelope['performative'], content: object): Promise<Envelope> => {
    const a = agents[who] as RuntimeAgent;
    const envelope = makeEnvelope({ performative, sender: a.agent.name, receiver: 'Sessions', conversation_id: sid, content });
    return outputOf<Envelope>(a.agent.router.start(`${sid}/${envelope.reply_with}`, oneShot, { envelope }), 10000);
  };
  const did = (who: string) => (keys[who] as Identity).did;
  const cred = (type: 'SessionAdmission' | 'SessionHandoff' | 'SessionRevocation', sid: string, subject: string, issuer: string) =>
    issueCredential(type, sid, did(subject), keys[issuer] as Identity);
  const refused = (e: Envelope) => `${e.performative} ${String(e.content.reason)}`;
  const sid = `ses-${tag}`;

  const registration = (jid: string): AgentProfile | undefined => {
    const db = openDb(path.join(inst.cfg.home, 'data', 'registry.sqlite'), { readonly: true });
    try {
      const row = db.prepare('SELECT profile FROM registrations WHERE jid = ?').get(jid) as { profile: string } | undefined;
      return row ? (JSON.parse(row.profile) as AgentProfile) : undefined;
    } finally {
      db.close();
    }
  };

  it('publishes the RFC 0001 §3.3 sessions manifest in the DF (the sessions agent\'s own registration, pinned at provisioning)', async () => {
    let profile: AgentProfile | undefined;
    await until(() => (profile = registration(`sessions@${inst.cfg.domain}`)) !== undefined, 'the sessions agent registered', 15000, 100);
    expect(profile?.did).to.equal(pinnedDids(inst.cfg.home).get(`sessions@${inst.cfg.domain}`));
    expect(registration(`coordinator@${inst.cfg.domain}`), 'the Coordinator keeps no DF entry').to.equal(undefined);
    expect(profile?.capabilities).to.deep.equal(['SESSIONS']);
    expect(profile?.sessions).to.include({ supported: true, concurrency_model: 'optimistic', supports_handoff: true, max_participants: 16, max_duration_hours: 720 });
    expect(profile?.sessions?.state_schema).to.equal('https://parley.local/contracts/session-state-plan.json');
  });

  it('create, admission, a stale update (VERSION_CONFLICT), unauthorised admission and handoff (NOT_CONVENER), a valid handoff, close', async () => {
    const t0 = performance.now();
    const created = await ask('a', sid, 'REQUEST', { type: 'SESSION_CREATE', state_schema: PLAN, state: { title: 'Launch', steps: [] }, title: 'Launch' });
    const createMs = performance.now() - t0;
    expect(created.performative).to.equal('INFORM');
    expect(created.content).to.include({ type: 'SESSION_RECEIPT', session_id: sid, previous_turn_id: null, op: 'create', state_version: 1, convener: did('a') });
    expect(created.conversation_id).to.equal(sid); // session id = conversation_id = XMPP thread

    expect(refused(await ask('b', sid, 'QUERY-REF', { type: 'SESSION_STATE' }))).to.equal('REFUSE NOT_A_PARTICIPANT');
    const joined = await ask('b', sid, 'REQUEST', { type: 'SESSION_JOIN', credential: cred('SessionAdmission', sid, 'b', 'a') });
    expect(joined.content).to.include({ op: 'join', previous_turn_id: created.content.turn_id });
    const state = await ask('b', sid, 'QUERY-REF', { type: 'SESSION_STATE' });
    expect(state.content).to.include({ type: 'SESSION_INFO', state_version: 1 });
    expect(state.content.participants).to.have.members([did('a'), did('b')]);

    const t1 = performance.now();
    const upd = await ask('a', sid, 'REQUEST', { type: 'SESSION_UPDATE', expected_version: 1, state: { title: 'Launch', steps: [{ id: '1', text: 'venue', status: 'todo' }] } });
    const updateMs = performance.now() - t1;
    expect(upd.content).to.include({ op: 'update', state_version: 2, previous_turn_id: joined.content.turn_id });
    const stale = await ask('b', sid, 'REQUEST', { type: 'SESSION_UPDATE', expected_version: 1, state: { title: 'Mine', steps: [] } });
    expect(stale.performative).to.equal('REFUSE');
    expect(stale.content).to.include({ type: 'SESSION_ERROR', reason: 'VERSION_CONFLICT', current_version: 2 });
    const invalid = await ask('b', sid, 'REQUEST', { type: 'SESSION_UPDATE', expected_version: 2, state: { steps: 'none' } });
    expect(refused(invalid)).to.equal('REFUSE STATE_INVALID');
    const malformed = await ask('b', sid, 'REQUEST', { type: 'SESSION_UPDATE', state: {} });
    expect(refused(malformed)).to.equal('NOT-UNDERSTOOD SCHEMA_VIOLATION');

    // b is a participant but not the convener: it can neither admit c nor take over.
    expect(refused(await ask('b', sid, 'REQUEST', { type: 'SESSION_JOIN', credential: cred('SessionAdmission', sid, 'c', 'b') }))).to.equal('REFUSE NOT_CONVENER');
    expect(refused(await ask('b', sid, 'REQUEST', { type: 'SESSION_HANDOFF', credential: cred('SessionHandoff', sid, 'b', 'b') }))).to.equal('REFUSE NOT_CONVENER');
    const forged = { ...cred('SessionHandoff', sid, 'b', 'a'), subject: did('c') };
    expect(refused(await ask('a', sid, 'REQUEST', { type: 'SESSION_HANDOFF', credential: forged }))).to.equal('REFUSE BAD_CREDENTIAL');
    expect(refused(await ask('c', sid, 'REQUEST', { type: 'SESSION_HANDOFF', credential: cred('SessionHandoff', sid, 'c', 'a') }))).to.equal('REFUSE NOT_A_PARTICIPANT');

    const handed = await ask('a', sid, 'REQUEST', { type: 'SESSION_HANDOFF', credential: cred('SessionHandoff', sid, 'b', 'a') });
    expect(handed.content).to.include({ op: 'handoff', convener: did('b') });
    expect(refused(await ask('a', sid, 'REQUEST', { type: 'SESSION_CLOSE' }))).to.equal('REFUSE NOT_CONVENER');
    const log = await ask('a', sid, 'QUERY-REF', { type: 'SESSION_LOG' });
    expect((log.content.turns as Array<{ op: string }>).map((t) => t.op)).to.deep.equal(['create', 'join', 'update', 'handoff']);
    expect((await ask('b', sid, 'REQUEST', { type: 'SESSION_CLOSE' })).content).to.include({ op: 'close', status: 'closed' });
    console.log(`      create ${createMs.toFixed(1)} ms, update ${updateMs.toFixed(1)} ms round trip (signed, over ejabberd)`);
  });

  it('refuses QUOTA_EXCEEDED past PARLEY_SESSION_QUOTA open sessions per convener, and deletes for the convener only (§6)', async () => {
    const create = (n: number) => ask('c', `${sid}-q${n}`, 'REQUEST', { type: 'SESSION_CREATE', state_schema: PLAN, state: { title: `q${n}`, steps: [] } });
    for (const n of [1, 2, 3]) expect((await create(n)).performative).to.equal('INFORM');
    const over = await create(4);
    expect(refused(over)).to.equal('REFUSE QUOTA_EXCEEDED');
    expect(String(over.content.detail)).to.match(/quota 3/);
    expect(refused(await ask('a', `${sid}-q1`, 'REQUEST', { type: 'SESSION_DELETE' }))).to.equal('REFUSE NOT_A_PARTICIPANT');
    expect((await ask('c', `${sid}-q1`, 'REQUEST', { type: 'SESSION_DELETE' })).content).to.include({ status: 'deleted' });
    expect(refused(await ask('c', `${sid}-q1`, 'QUERY-REF', { type: 'SESSION_STATE' }))).to.equal('REFUSE UNKNOWN_SESSION');
    expect((await create(4)).performative).to.equal('INFORM'); // the deleted session freed its place
    const ms: number[] = [];
    for (let v = 1; v <= 20; v++) {
      const t = performance.now();
      const r = await ask('c', `${sid}-q2`, 'REQUEST', { type: 'SESSION_UPDATE', expected_version: v, state: { title: 'q2', steps: [{ id: '1', text: `v${v}`, status: 'doing' }] } });
      ms.push(performance.now() - t);
      expect(r.content).to.include({ state_version: v + 1 });
    }
    ms.sort((x, y) => x - y);
    console.log(`      20 sequential updates: p50 ${ms[10]?.toFixed(1)} ms, max ${ms[19]?.toFixed(1)} ms`);
    expect(refused(await ask('c', `${sid}-x`, 'REQUEST', { type: 'SESSION_CREATE', state_schema: 'https://example.com/other.json', state: {} }))).to.equal('REFUSE UNKNOWN_STATE_SCHEMA');
  });

  it('a person convenes a session from chat: Presenter → Coordinator → sessions agent (the Presenter\'s DID, the person\'s JID recorded)', async () => {
    alice = await Person.connect(inst.cfg, `alice${tag}`);
    const thread = `chat-${tag}`;
    const started = await alice.ask('session start Trip to Lyon', { thread });
    expect(started.answer).to.match(/Session ".*" started \(version 1\)/);
    const added = await alice.ask('session add book the train', { thread });
    expect(added.answer).to.contain('1. [todo] book the train').and.contain('version 2');
    const { stdout } = await cli('list');
    const line = stdout.split('\n').find((l) => l.includes(alice?.jid ?? '?')) ?? '';
    expect(line.split('\t').slice(0, 3)).to.deep.equal([thread, alice.jid, 'open']);
  });

  it('[attack] SESSION_CHAT from anyone but the Coordinator is refused with the reason, and nothing is created', async () => {
    const chat = () => ({ type: 'SESSION_CHAT', text: 'session start Hijack', on_behalf_of: `victim${tag}@${inst.cfg.domain}` });
    // An enrolled specialist: may talk to the sessions agent, but may not open SESSION_CHAT.
    const bySpecialist = await ask('a', `${sid}-atk1`, 'REQUEST', chat());
    expect(bySpecialist.performative).to.equal('REFUSE');
    expect(bySpecialist.content.reason).to.equal('FORBIDDEN_SENDER');
    // A person's account (no agent role, no DID the agents accept).
    const mallory = await EnvelopePeer.connect(inst, `mallory${tag}`, 'Sessions');
    try {
      const sent = mallory.send('REQUEST', chat(), `${sid}-atk2`);
      const byPerson = await mallory.reply(sent);
      expect(byPerson.performative).to.be.oneOf(['REFUSE', 'NOT-UNDERSTOOD']);
      expect(String(byPerson.content.reason)).to.match(/^(UNKNOWN_DID|FORBIDDEN_SENDER)$/);
      expect(String(byPerson.content.detail)).to.not.equal('');
    } finally {
      await mallory.stop();
    }
    // The Presenter may not skip the Coordinator (seed contract §5): its SESSION_CREATE is refused.
    const presenter = await EnvelopePeer.connect(inst, 'presenter', 'Sessions', 'Presenter');
    try {
      const sent = presenter.send('REQUEST', { type: 'SESSION_CREATE', state_schema: PLAN, state: { title: 'x', steps: [] } }, `${sid}-atk3`);
      const r = await presenter.reply(sent);
      expect(`${r.performative} ${String(r.content.reason)}`).to.equal('REFUSE FORBIDDEN_SENDER');
    } finally {
      await presenter.stop();
    }
    const { stdout } = await cli('list');
    for (const n of [1, 2, 3]) expect(stdout).to.not.contain(`${sid}-atk${n}`);
  });

  const cli = (...args: string[]) => run(process.execPath, [path.join(repoRoot(), 'dist', 'scripts', 'session-cli.js'), ...args], { env: { ...process.env, ...inst.env } });

  it('npm run session -- list | show | verify: verify names the tampered turn and exits 1', async () => {
    const list = (await cli('list')).stdout.split('\n');
    expect(list.find((l) => l.startsWith(`${sid}\t`))?.split('\t').slice(0, 3)).to.deep.equal([sid, '-', 'closed']);
    const show = (await cli('show', sid)).stdout;
    expect(show).to.contain(`convener ${did('b')}`).and.match(/\bhandoff\b/).and.contain('"title": "Launch"');
    expect((await cli('verify', sid)).stdout).to.match(new RegExp(`^OK ${sid}: 5 turns`));
    const db = openDb(path.join(inst.cfg.home, 'data', 'sessions.sqlite'));
    const turn = db.prepare('SELECT turn_id, body FROM turns WHERE session_id = ? AND seq = 3').get(sid) as { turn_id: string; body: string };
    db.prepare('UPDATE turns SET body = ? WHERE session_id = ? AND seq = 3').run(turn.body.replace('venue', 'VENUE'), sid);
    db.close();
    const err = await cli('verify', sid).then(() => undefined, (e: { code: number; stdout: string }) => e);
    expect(err?.code).to.equal(1);
    expect(err?.stdout).to.contain(`TAMPERED ${sid}: turn 3 (${turn.turn_id})`);
    const missing = await cli('show', 'nope').then(() => undefined, (e: { code: number; stderr: string }) => e);
    expect(missing?.code).to.equal(1);
    expect(missing?.stderr).to.contain('no session nope');
  });
});
