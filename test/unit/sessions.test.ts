// OAP RFC 0001 Coordination Sessions, the pure logic (shared/sessions, agents/sessions/chat.ts): optimistic
// concurrency, the §3.5 hash chain, §3.6 convener credentials, §5.1 admission, §5.3 quotas, §6 deletion.
import { expect } from 'chai';
import { chatCommand } from '../../agents/sessions/chat.js';
import {
  chainTurn, issueCredential, type Outcome, parseSessionCommand, PLAN_SCHEMA, SessionService, SessionStore, type Turn, verifyChain, verifyCredential,
} from '../../shared/sessions/index.js';
import { makeEnvelope } from '../../shared/acl/index.js';
import { createIdentity } from '../../shared/identity/index.js';

const alice = createIdentity();
const bob = createIdentity();
const carol = createIdentity();
const T0 = Date.parse('2026-05-03T10:00:00Z');
const plan = (title: string, steps: object[] = []) => ({ title, steps });

function harness(quota = 20) {
  let now = T0;
  const store = new SessionStore(':memory:');
  const svc = new SessionService(store, { quota, maxParticipants: 3, maxDurationHours: 1 }, () => now);
  const call = (kind: string, sessionId: string, who: { did: string } | undefined, content: Record<string, unknown> = {}, role = 'specialist'): Outcome =>
    svc.handle({ kind, sessionId, did: who?.did, name: 'specialist-x', role, content: { type: kind, ...content } });
  const create = (id: string, who = alice, extra: Record<string, unknown> = {}, role = 'specialist') =>
    call('SESSION_CREATE', id, who, { state_schema: 'session-state-plan', state: plan('Launch'), ...extra }, role);
  return { store, svc, call, create, tick: (ms: number) => { now += ms; }, now: () => now };
}

const reason = (o: Outcome) => (o.performative === 'REFUSE' ? o.content.reason : 'INFORM');

describe('Sessions [update] optimistic concurrency (RFC 0001 §3.2)', () => {
  it('accepts an update at the current state_version, increments it, and refuses a stale one with VERSION_CONFLICT and the current version', () => {
    const h = harness();
    expect(h.create('s1').content).to.include({ type: 'SESSION_RECEIPT', op: 'create', state_version: 1, status: 'open', previous_turn_id: null });
    const ok = h.call('SESSION_UPDATE', 's1', alice, { expected_version: 1, state: plan('Launch', [{ id: '1', text: 'book venue', status: 'todo' }]) });
    expect(ok.content).to.include({ op: 'update', state_version: 2 });
    const stale = h.call('SESSION_UPDATE', 's1', alice, { expected_version: 1, state: plan('Other') });
    expect(stale.performative).to.equal('REFUSE');
    expect(stale.content).to.include({ type: 'SESSION_ERROR', reason: 'VERSION_CONFLICT', current_version: 2, session_id: 's1' });
    expect(h.store.get('s1')?.state).to.deep.equal(plan('Launch', [{ id: '1', text: 'book venue', status: 'todo' }]));
    expect(h.store.turns('s1')).to.have.length(2); // the refused update left no turn
  });

  it('refuses a state that does not match the session\'s state_schema (STATE_INVALID with ajv errors) and an unknown schema', () => {
    const h = harness();
    h.create('s1');
    const bad = h.call('SESSION_UPDATE', 's1', alice, { expected_version: 1, state: { title: 'x', steps: [{ id: '1', text: 't', status: 'maybe' }] } });
    expect(reason(bad)).to.equal('STATE_INVALID');
    expect((bad.content as { errors?: { instancePath: string }[] }).errors?.[0]?.instancePath).to.equal('/state/steps/0/status');
    expect(reason(h.create('s2', alice, { state_schema: 'https://example.com/schemas/project-session-v1.json' }))).to.equal('UNKNOWN_STATE_SCHEMA');
    expect(reason(h.create('s3', alice, { state_schema: 'user-msg' }))).to.equal('UNKNOWN_STATE_SCHEMA');
    expect(reason(h.create('s4', alice, { state_schema: PLAN_SCHEMA }))).to.equal('INFORM');
    expect(reason(h.create('s4'))).to.equal('SESSION_EXISTS');
  });
});

describe('Sessions [chain] hash-chained turn log (RFC 0001 §3.5)', () => {
  it('links every turn to the previous one and names the first tampered turn', () => {
    const h = harness();
    h.create('s1');
    for (let v = 1; v <= 4; v++) h.call('SESSION_UPDATE', 's1', alice, { expected_version: v, state: plan(`v${v + 1}`) });
    const turns = h.store.turns('s1');
    expect(turns.map((t) => t.seq)).to.deep.equal([1, 2, 3, 4, 5]);
    expect(turns[2]?.previous_turn_id).to.equal(turns[1]?.turn_id);
    expect(verifyChain('s1', turns)).to.include({ ok: true, turns: 5 });
    const tampered: Turn[] = turns.map((t) => (t.seq === 3 ? { ...t, body: { ...t.body, state: plan('forged') } } : t));
    expect(verifyChain('s1', tampered)).to.include({ ok: false, seq: 3, turn_id: turns[2]?.turn_id });
    // Re-hashing the forged turn does not help: the next turn no longer chains from it.
    const rehashed = tampered.map((t) => (t.seq === 3 ? chainTurn(tampered[1], { ...t }) : t));
    expect(verifyChain('s1', rehashed)).to.include({ ok: false, seq: 4 });
    expect(verifyChain('s1', turns.filter((t) => t.seq !== 2))).to.include({ ok: false, seq: 3 });
  });
});

describe('Sessions [credentials] convener-signed SessionAdmission / Revocation / Handoff (RFC 0001 §3.6)', () => {
  const now = T0;
  const expect_ = { type: 'SessionAdmission' as const, sessionId: 's1', convener: alice.did, now };
  it('accepts the convener\'s credential and says why others fail', () => {
    const good = issueCredential('SessionAdmission', 's1', bob.did, alice, { now });
    expect(verifyCredential(good, expect_)).to.deep.equal({ ok: true });
    expect(verifyCredential(issueCredential('SessionAdmission', 's1', bob.did, carol, { now }), expect_)).to.include({ ok: false, reason: 'NOT_CONVENER' });
    expect(verifyCredential({ ...good, subject: carol.did }, expect_)).to.include({ ok: false, reason: 'BAD_CREDENTIAL' });
    expect(verifyCredential({ ...good, issuer: carol.did }, expect_)).to.include({ ok: false, reason: 'BAD_CREDENTIAL' });
    expect(verifyCredential(issueCredential('SessionAdmission', 's2', bob.did, alice, { now }), expect_)).to.include({ reason: 'BAD_CREDENTIAL' });
    expect(verifyCredential(issueCredential('SessionHandoff', 's1', bob.did, alice, { now }), expect_)).to.include({ reason: 'BAD_CREDENTIAL' });
    expect(verifyCredential(issueCredential('SessionAdmission', 's1', bob.did, alice, { now: now - 3_600_000, ttlMs: 60_000 }), expect_))
      .to.include({ reason: 'BAD_CREDENTIAL' }).and.have.property('detail').that.matches(/expired/);
  });
});

describe('Sessions [admission] ledger, convener authority and handoff (RFC 0001 §3.6, §5.1)', () => {
  it('admits with the convener\'s admission only, refuses non-participants, revokes, hands off', () => {
    const h = harness();
    h.create('s1');
    expect(reason(h.call('SESSION_STATE', 's1', bob))).to.equal('NOT_A_PARTICIPANT');
    expect(reason(h.call('SESSION_JOIN', 's1', bob, { credential: issueCredential('SessionAdmission', 's1', bob.did, bob, { now: h.now() }) }))).to.equal('NOT_CONVENER');
    expect(reason(h.call('SESSION_JOIN', 's1', bob, { credential: issueCredential('SessionAdmission', 's1', bob.did, alice, { now: h.now() }) }))).to.equal('INFORM');
    expect(reason(h.call('SESSION_JOIN', 's1', bob, { credential: issueCredential('SessionAdmission', 's1', bob.did, alice, { now: h.now() }) }))).to.equal('ALREADY_PARTICIPANT');
    // Someone else's admission is no ticket in.
    expect(reason(h.call('SESSION_JOIN', 's1', carol, { credential: issueCredential('SessionAdmission', 's1', bob.did, alice, { now: h.now() }) }))).to.equal('NOT_A_PARTICIPANT');
    // A participant that is not the convener can neither admit, hand off nor close.
    expect(reason(h.call('SESSION_JOIN', 's1', bob, { credential: issueCredential('SessionAdmission', 's1', carol.did, bob, { now: h.now() }) }))).to.equal('NOT_CONVENER');
    expect(reason(h.call('SESSION_HANDOFF', 's1', bob, { credential: issueCredential('SessionHandoff', 's1', bob.did, bob, { now: h.now() }) }))).to.equal('NOT_CONVENER');
    expect(reason(h.call('SESSION_CLOSE', 's1', bob))).to.equal('NOT_CONVENER');
    expect(reason(h.call('SESSION_LEAVE', 's1', alice))).to.equal('CONVENER_MUST_HANDOFF');
    // Handoff to bob: bob now convenes, alice may leave, bob revokes nobody who is not there.
    expect(h.call('SESSION_HANDOFF', 's1', alice, { credential: issueCredential('SessionHandoff', 's1', bob.did, alice, { now: h.now() }) }).content).to.include({ op: 'handoff', convener: bob.did });
    expect(reason(h.call('SESSION_JOIN', 's1', carol, { credential: issueCredential('SessionAdmission', 's1', carol.did, alice, { now: h.now() }) }))).to.equal('NOT_CONVENER');
    expect(reason(h.call('SESSION_JOIN', 's1', bob, { credential: issueCredential('SessionAdmission', 's1', carol.did, bob, { now: h.now() }) }))).to.equal('INFORM');
    expect(reason(h.call('SESSION_LEAVE', 's1', bob, { credential: issueCredential('SessionRevocation', 's1', carol.did, bob, { now: h.now() }) }))).to.equal('INFORM');
    expect(reason(h.call('SESSION_STATE', 's1', carol))).to.equal('NOT_A_PARTICIPANT');
    expect(reason(h.call('SESSION_LEAVE', 's1', alice))).to.equal('INFORM');
    expect(h.store.participants('s1').map((p) => p.did)).to.deep.equal([bob.did]);
    expect(verifyChain('s1', h.store.turns('s1'))).to.include({ ok: true, turns: 6 });
  });

  it('enforces max_participants (SESSION_FULL), closing (SESSION_CLOSED) and max_duration_hours (SESSION_EXPIRED)', () => {
    const h = harness();
    h.create('s1', alice, { max_participants: 2 });
    h.call('SESSION_JOIN', 's1', alice, { credential: issueCredential('SessionAdmission', 's1', bob.did, alice, { now: h.now() }) });
    expect(reason(h.call('SESSION_JOIN', 's1', alice, { credential: issueCredential('SessionAdmission', 's1', carol.did, alice, { now: h.now() }) }))).to.equal('SESSION_FULL');
    h.create('s2');
    h.tick(3_600_001);
    expect(reason(h.call('SESSION_UPDATE', 's2', alice, { expected_version: 1, state: plan('late') }))).to.equal('SESSION_EXPIRED');
    expect(h.call('SESSION_CLOSE', 's2', alice).content).to.include({ op: 'close', status: 'closed' });
    expect(reason(h.call('SESSION_CLOSE', 's2', alice))).to.equal('SESSION_CLOSED');
    expect(reason(h.call('SESSION_UPDATE', 's2', alice, { expected_version: 1, state: plan('x') }))).to.equal('SESSION_CLOSED');
    expect(reason(h.call('SESSION_STATE', 'nope', alice))).to.equal('UNKNOWN_SESSION');
    expect(reason(h.call('SESSION_STATE', 's1', undefined))).to.equal('MISSING_SIGNATURE');
  });
});

describe('Sessions [quota] open sessions per convener (RFC 0001 §5.3)', () => {
  it('refuses QUOTA_EXCEEDED past the quota, counts a person\'s chat sessions per person, and frees a place on close', () => {
    const h = harness(2);
    expect(reason(h.create('a1'))).to.equal('INFORM');
    expect(reason(h.create('a2'))).to.equal('INFORM');
    expect(reason(h.create('a3'))).to.equal('QUOTA_EXCEEDED');
    expect(reason(h.create('b1', bob))).to.equal('INFORM');
    h.call('SESSION_CLOSE', 'a1', alice);
    expect(reason(h.create('a3'))).to.equal('INFORM');
    // A person's lines (SESSION_CHAT from the Coordinator) convene with the Presenter's DID; the quota is the person's.
    const presenter = carol;
    const forPerson = (id: string, person: string) => h.svc.handle({
      kind: 'SESSION_CREATE', sessionId: id, did: presenter.did, name: 'Presenter', role: 'presenter', person,
      content: { type: 'SESSION_CREATE', state_schema: 'session-state-plan', state: plan('Trip') },
    });
    expect(reason(forPerson('p1', 'ann@localhost'))).to.equal('INFORM');
    expect(h.store.get('p1')).to.include({ on_behalf_of: 'ann@localhost', quota_key: 'person:ann@localhost', convener: presenter.did });
    expect(reason(forPerson('p2', 'ann@localhost'))).to.equal('INFORM');
    expect(reason(forPerson('p3', 'ann@localhost'))).to.equal('QUOTA_EXCEEDED');
    expect(reason(forPerson('p4', 'ben@localhost'))).to.equal('INFORM');
    expect(reason(forPerson('p5', 'ben@localhost'))).to.equal('INFORM');
    // An agent naming a person in on_behalf_of only records it: the session counts against the agent.
    expect(reason(h.create('c1', bob, { on_behalf_of: 'cleo@localhost' }))).to.equal('INFORM');
    expect(h.store.get('c1')).to.include({ on_behalf_of: 'cleo@localhost', quota_key: bob.did });
    expect(reason(h.create('c2', bob, { on_behalf_of: 'cleo@localhost' }))).to.equal('QUOTA_EXCEEDED');
    expect(h.store.countOpen('person:cleo@localhost')).to.equal(0);
  });
});

describe('Sessions [delete] data_delete by the convener (RFC 0001 §6)', () => {
  it('removes the state, ledger and log for the convener only', () => {
    const h = harness();
    h.create('s1');
    h.call('SESSION_JOIN', 's1', alice, { credential: issueCredential('SessionAdmission', 's1', bob.did, alice, { now: h.now() }) });
    expect(reason(h.call('SESSION_DELETE', 's1', bob))).to.equal('NOT_CONVENER');
    expect(h.call('SESSION_DELETE', 's1', alice).content).to.include({ op: 'delete', status: 'deleted' });
    expect(h.store.get('s1')).to.equal(undefined);
    expect(h.store.turns('s1')).to.deep.equal([]);
    expect(h.store.participants('s1')).to.deep.equal([]);
    expect(reason(h.call('SESSION_STATE', 's1', alice))).to.equal('UNKNOWN_SESSION');
  });

  it('never reuses a deleted session\'s id (issue 16): creating it again is refused, by anyone', () => {
    const h = harness();
    h.create('s1');
    h.call('SESSION_DELETE', 's1', alice);
    expect(h.store.wasDeleted('s1')).to.equal(true);
    for (const who of [alice, bob]) {
      const again = h.create('s1', who);
      expect(reason(again)).to.equal('SESSION_EXISTS');
      expect(String(again.content.detail)).to.match(/was deleted and its id is never used again/);
    }
    expect(h.store.get('s1')).to.equal(undefined);
  });
});

describe('Sessions [once] a request handled again after a crash is answered, not applied twice', () => {
  // The sessions agent's request machine is restored after a kill -9 and runs its promise actor
  // again when the crash fell between the store's commit and the reply (agents/sessions/wire.ts requestKey).
  const line = (text: string, reply_with: string) => makeEnvelope({
    performative: 'REQUEST', sender: 'Coordinator', receiver: 'Sessions', conversation_id: 'chat-1', reply_with,
    content: { type: 'SESSION_CHAT', text, on_behalf_of: 'alice@localhost' },
  });
  const run = (h: ReturnType<typeof harness>, e: ReturnType<typeof line>) =>
    h.store.once(`coordinator@localhost|${e.reply_with}`, () => chatCommand(h.svc, e, 'alice@localhost', alice.did, parseSessionCommand(String(e.content.text)) ?? { op: 'show' }));

  it('re-running "session add" with the same reply_with adds the step once and answers with the same reply', () => {
    const h = harness();
    const started = run(h, line('session start Trip', 'msg-1'));
    // The person reads the state, not the OAP turn id (that is in rich, for the trace).
    expect(started.text).to.match(/^Session "Trip" started \(version 1\)\.\n/).and.not.contain('trn-');
    expect(String(started.rich.turn_id)).to.match(/^trn-/);
    const add = line('session add book flights', 'msg-2');
    const first = run(h, add);
    const again = run(h, add);
    expect(again).to.deep.equal(first);
    expect((h.store.get('chat-1')?.state as { steps: unknown[] }).steps).to.have.length(1);
    expect(h.store.get('chat-1')?.state_version).to.equal(2);
    run(h, line('session add book hotel', 'msg-3')); // a new line is a new request
    expect((h.store.get('chat-1')?.state as { steps: unknown[] }).steps).to.have.length(2);
  });

  it('a person reads the plan\'s name and progress; a command missing its step is asked back', () => {
    const h = harness();
    run(h, line('session start Trip', 'm-1'));
    run(h, line('session add book flights', 'm-2'));
    run(h, line('session add book hotel', 'm-3'));
    expect(run(h, line('session add', 'm-4')).text).to.equal('What is the step? Say e.g. "session add book the train".');
    expect(run(h, line('session done', 'm-5')).text).to.match(/^Which step is done\?/);
    expect((h.store.get('chat-1')?.state as { steps: unknown[] }).steps).to.have.length(2);
    const done = run(h, line('session done 1', 'm-6'));
    expect(done.text).to.equal('Session "Trip" (open, version 4)\n1. [done] book flights\n2. [todo] book hotel');
    expect(run(h, line('session close', 'm-7')).text).to.equal('Session "Trip" closed: 1 of 2 steps done (version 4).');
    expect(run(h, line('session delete', 'm-8')).text).to.equal('Session "Trip" deleted.');
  });

  it('a refusal is remembered too, and a request that threw leaves nothing behind to replay', () => {
    const h = harness();
    const boom = () => h.store.once('k-throw', () => { h.create('s9'); throw new Error('crash inside'); });
    expect(boom).to.throw('crash inside');
    expect(h.store.get('s9')).to.equal(undefined); // rolled back with the answer row
    const refused = h.store.once('k-ref', () => h.call('SESSION_STATE', 'nope', alice));
    expect(reason(refused)).to.equal('UNKNOWN_SESSION');
    h.create('nope');
    expect(reason(h.store.once('k-ref', () => h.call('SESSION_STATE', 'nope', alice)))).to.equal('UNKNOWN_SESSION');
  });
});
