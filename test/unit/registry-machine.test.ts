import { expect } from 'chai';
import { createActor, SimulatedClock } from 'xstate';
import { type DirectoryOps, type RegistryInput, type RegistryKind, registryMachine } from '../../agents/registry/machine.js';
import { type Envelope, makeEnvelope } from '../../shared/acl/index.js';
import { createIdentity } from '../../shared/identity/index.js';
import { identify } from '../../shared/runtime/index.js';
import { runToEnd } from '../support/exchange-run.js';

const NOW = Date.UTC(2025, 10, 7, 19, 55);
const DID_A = createIdentity().did;
const DID_B = createIdentity().did;
const profile = { jid: 'specialist-x@localhost', name: 'specialist-x', version: '1.0.0', capabilities: ['ASK_EXPERT'], topics: ['math'] };

function request(sender: string, performative: Envelope['performative'], content: object): Envelope {
  return makeEnvelope({ performative, sender, receiver: 'Registry', conversation_id: 'reg-specialist-x-1', content });
}

function input(req: Envelope, fromJid = `${req.sender}@localhost`): Omit<RegistryInput, 'kind'> {
  const from = identify(req.sender === 'Coordinator' ? 'coordinator@localhost' : fromJid, 'localhost');
  return { request: req, from, self: 'Registry', now: NOW };
}

type Calls = Array<{ actor: string; input: unknown }>;

/** Fake directory operations: each records its input and answers `results[name]` (or throws it). */
function fakes(results: Record<string, unknown>, calls: Calls): DirectoryOps {
  const make = (name: string) => async (i: unknown) => {
    calls.push({ actor: name, input: i });
    const r = results[name];
    if (r instanceof Error) throw r;
    return r;
  };
  return Object.fromEntries(['register', 'bind', 'heartbeat', 'deregister', 'candidates', 'describe', 'redeem'].map((n) => [n, make(n)])) as unknown as DirectoryOps;
}

async function run(kind: RegistryKind, inp: Omit<RegistryInput, 'kind'>, results: Record<string, unknown> = {}) {
  const calls: Calls = [];
  const { sent, notes } = await runToEnd(createActor(registryMachine(fakes(results, calls)), { input: { ...inp, kind }, clock: new SimulatedClock() }));
  return { sent, calls, notes };
}

describe('Registry [REGISTER] machine', () => {
  it('stores the profile with the arrival time and answers INFORM REGISTERED in_reply_to the request', async () => {
    const req = request('specialist-x', 'REQUEST', { type: 'REGISTER', profile });
    const { sent, calls } = await run('REGISTER', input(req), { register: { jid: 'specialist-x@localhost', lease_ms: 1500 } });
    expect(calls).to.deep.equal([{ actor: 'register', input: { profile, now: NOW } }]);
    expect(sent).to.have.length(1);
    expect(sent[0]).to.deep.include({ performative: 'INFORM', sender: 'Registry', receiver: 'specialist-x', in_reply_to: req.reply_with, conversation_id: req.conversation_id });
    expect(sent[0]?.content).to.deep.equal({ type: 'REGISTERED', jid: 'specialist-x@localhost', lease_ms: 1500 });
  });

  it('refuses SENDER_MISMATCH when the profile names another JID, without storing anything', async () => {
    const req = request('specialist-x', 'REQUEST', { type: 'REGISTER', profile: { ...profile, jid: 'specialist-y@localhost' } });
    const { sent, calls } = await run('REGISTER', input(req));
    expect(calls).to.deep.equal([]);
    expect(sent[0]).to.deep.include({ performative: 'REFUSE', in_reply_to: req.reply_with });
    expect(sent[0]?.content).to.include({ reason: 'SENDER_MISMATCH' });
  });

  it('accepts a profile jid with a resource of the sender', async () => {
    const req = request('specialist-x', 'REQUEST', { type: 'REGISTER', profile: { ...profile, jid: 'specialist-x@localhost/agent-9' } });
    const { sent } = await run('REGISTER', input(req), { register: { jid: 'specialist-x@localhost', lease_ms: 1500 } });
    expect(sent[0]?.performative).to.equal('INFORM');
  });

  it('answers FAILURE INTERNAL_ERROR when the store fails', async () => {
    const req = request('specialist-x', 'REQUEST', { type: 'REGISTER', profile });
    const { sent } = await run('REGISTER', input(req), { register: new Error('disk full') });
    expect(sent[0]).to.deep.include({ performative: 'FAILURE', in_reply_to: req.reply_with });
    expect(sent[0]?.content).to.deep.equal({ reason: 'INTERNAL_ERROR', detail: 'directory: disk full' });
  });
});

describe('Registry [HEARTBEAT] machine', () => {
  const hb = () => request('specialist-x', 'INFORM', { type: 'HEARTBEAT', jid: 'specialist-x@localhost' });

  it('renews the lease and answers nothing', async () => {
    const { sent, calls, notes } = await run('HEARTBEAT', input(hb()), { heartbeat: true });
    expect(calls).to.deep.equal([{ actor: 'heartbeat', input: { jid: 'specialist-x@localhost', now: NOW } }]);
    expect(sent).to.deep.equal([]);
    expect(notes, 'heartbeats come by the thousand: no telemetry note each').to.deep.equal([]);
  });

  it('answers FAILURE NOT_REGISTERED in_reply_to the heartbeat when there is no live lease', async () => {
    const req = hb();
    const { sent } = await run('HEARTBEAT', input(req), { heartbeat: false });
    expect(sent).to.have.length(1);
    expect(sent[0]).to.deep.include({ performative: 'FAILURE', in_reply_to: req.reply_with, receiver: 'specialist-x' });
    expect(sent[0]?.content).to.include({ reason: 'NOT_REGISTERED' });
  });

  it('refuses a heartbeat for another agent', async () => {
    const req = request('specialist-x', 'INFORM', { type: 'HEARTBEAT', jid: 'specialist-y@localhost' });
    const { sent, calls } = await run('HEARTBEAT', input(req), { heartbeat: true });
    expect(calls).to.deep.equal([]);
    expect(sent[0]?.content).to.include({ reason: 'SENDER_MISMATCH' });
  });
});

describe('Registry [REGISTER] JID → DID binding', () => {
  const signed = (did: string, p: object = profile) => ({ ...request('specialist-x', 'REQUEST', { type: 'REGISTER', profile: p }), sender_did: did });

  it('binds the JID to the DID that signed the REGISTER and stores it in the profile', async () => {
    const req = signed(DID_A);
    const { sent, calls, notes } = await run('REGISTER', input(req), {
      bind: { ok: true, jid: 'specialist-x@localhost', did: DID_A, rotated: false }, register: { jid: 'specialist-x@localhost', lease_ms: 1500 },
    });
    expect(notes).to.deep.equal(['did-bound', 'registered']);
    expect(calls).to.deep.equal([
      { actor: 'bind', input: { jid: 'specialist-x@localhost', did: DID_A, now: NOW } },
      { actor: 'register', input: { profile: { ...profile, did: DID_A }, now: NOW } },
    ]);
    expect(sent[0]?.content).to.include({ type: 'REGISTERED' });
  });

  it('refuses DID_MISMATCH when the JID is bound to another key, without storing anything', async () => {
    const req = signed(DID_B, { ...profile, did: DID_B });
    const { sent, calls } = await run('REGISTER', input(req), { bind: { ok: false, jid: 'specialist-x@localhost', bound: DID_A } });
    expect(calls.map((c) => c.actor)).to.deep.equal(['bind']);
    expect(sent[0]).to.deep.include({ performative: 'REFUSE', in_reply_to: req.reply_with });
    expect(sent[0]?.content).to.include({ reason: 'DID_MISMATCH' });
    expect((sent[0]?.content as { detail: string }).detail).to.contain('npm run keys -- rotate specialist-x');
  });

  it('refuses DID_MISMATCH when profile.did is not the key that signed the envelope', async () => {
    const req = signed(DID_A, { ...profile, did: DID_B });
    const { sent, calls } = await run('REGISTER', input(req), {});
    expect(calls).to.deep.equal([]);
    expect(sent[0]?.content).to.include({ reason: 'DID_MISMATCH' });
  });
});

describe('Registry [DEREGISTER] machine', () => {
  const dereg = () => request('specialist-x', 'REQUEST', { type: 'DEREGISTER', jid: 'specialist-x@localhost' });

  it('removes the entry and answers INFORM DEREGISTERED', async () => {
    const req = dereg();
    const { sent, calls } = await run('DEREGISTER', input(req), { deregister: true });
    expect(calls).to.deep.equal([{ actor: 'deregister', input: { jid: 'specialist-x@localhost' } }]);
    expect(sent[0]).to.deep.include({ performative: 'INFORM', in_reply_to: req.reply_with });
    expect(sent[0]?.content).to.deep.equal({ type: 'DEREGISTERED', jid: 'specialist-x@localhost' });
  });

  it('answers FAILURE NOT_REGISTERED for an unknown agent (FIPA DF not-registered)', async () => {
    const { sent } = await run('DEREGISTER', input(dereg()), { deregister: false });
    expect(sent[0]?.content).to.include({ reason: 'NOT_REGISTERED' });
  });
});

describe('Registry [QUERY-REF] machines', () => {
  it('answers INFORM {candidates, dids} for a need, passing the hint and time to the lookup', async () => {
    const req = request('Coordinator', 'QUERY-REF', { need: 'ASK_EXPERT', hint: 'a math question' });
    const dids = { 'specialist-x@localhost': DID_A };
    const { sent, calls } = await run('NEED', input(req), { candidates: { candidates: ['specialist-x@localhost', 'specialist-y@localhost'], dids } });
    expect(calls).to.deep.equal([{ actor: 'candidates', input: { need: 'ASK_EXPERT', hint: 'a math question', now: NOW } }]);
    expect(sent[0]).to.deep.include({ performative: 'INFORM', receiver: 'Coordinator', in_reply_to: req.reply_with, protocol: 'fipa-query' });
    expect(sent[0]?.content).to.deep.equal({ candidates: ['specialist-x@localhost', 'specialist-y@localhost'], dids });
  });

  it('passes NEED max_results (FIPA SC00023 max-results) to the lookup as max', async () => {
    const req = request('Coordinator', 'QUERY-REF', { need: 'ASK_EXPERT', hint: 'a math question', max_results: 8 });
    const { calls } = await run('NEED', input(req), { candidates: { candidates: [], dids: {} } });
    expect(calls).to.deep.equal([{ actor: 'candidates', input: { need: 'ASK_EXPERT', hint: 'a math question', max: 8, now: NOW } }]);
  });

  it('answers an empty candidate list when nobody offers the capability', async () => {
    const req = request('Coordinator', 'QUERY-REF', { need: 'NOBODY' });
    const { sent, calls } = await run('NEED', input(req), { candidates: { candidates: [], dids: {} } });
    expect(calls[0]?.input).to.deep.equal({ need: 'NOBODY', now: NOW });
    expect(sent[0]?.content).to.deep.equal({ candidates: [] });
  });

  it('answers DESCRIBE with INFORM DIRECTORY', async () => {
    const entry = { profile, registered_at: '2025-11-07T19:55:00.000Z', last_seen: '2025-11-07T19:55:00.000Z' };
    const req = request('Coordinator', 'QUERY-REF', { type: 'DESCRIBE', capability: 'ASK_EXPERT' });
    const { sent, calls } = await run('DESCRIBE', input(req), { describe: [entry] });
    expect(calls[0]?.input).to.deep.equal({ capability: 'ASK_EXPERT', now: NOW });
    expect(sent[0]?.content).to.deep.equal({ type: 'DIRECTORY', agents: [entry] });
  });

  it('answers FAILURE INTERNAL_ERROR when the lookup fails', async () => {
    const req = request('Coordinator', 'QUERY-REF', { need: 'ASK_EXPERT' });
    const { sent } = await run('NEED', input(req), { candidates: new Error('database is locked') });
    expect(sent[0]).to.deep.include({ performative: 'FAILURE', in_reply_to: req.reply_with });
    expect(sent[0]?.content).to.include({ reason: 'INTERNAL_ERROR' });
  });
});

describe('Registry [ENROL] machine', () => {
  const enrol = (did: string, signedBy?: string) => ({
    ...request('specialist-x', 'REQUEST', { type: 'ENROL', token: 'tok-0123456789abcdef', did }), ...(signedBy ? { sender_did: signedBy } : {}),
  });
  const credential = { v: 1, jid: 'specialist-x@localhost', did: DID_A, role: 'specialist', iat: NOW, exp: NOW + 86_400_000, iss: DID_B, sig: 'A'.repeat(86) };

  it('redeems the token for the sender and answers INFORM ENROLLED with the credential', async () => {
    const req = enrol(DID_A, DID_A);
    const { sent, calls, notes } = await run('ENROL', input(req), { redeem: { ok: true, credential } });
    expect(calls).to.deep.equal([{ actor: 'redeem', input: { token: 'tok-0123456789abcdef', jid: 'specialist-x@localhost', did: DID_A } }]);
    expect(sent.map((e) => [e.performative, e.in_reply_to, e.content])).to.deep.equal([['INFORM', req.reply_with, { type: 'ENROLLED', credential }]]);
    expect(notes).to.deep.equal(['enrolled']);
  });

  it('refuses DID_MISMATCH when the did is not the key that signed the request, without redeeming', async () => {
    const { sent, calls } = await run('ENROL', input(enrol(DID_B, DID_A)), { redeem: { ok: true, credential } });
    expect(calls).to.deep.equal([]);
    expect(sent[0]?.content).to.deep.equal({ reason: 'DID_MISMATCH', detail: 'did is not the sender_did that signed the envelope' });
  });

  it('refuses FORBIDDEN_SENDER with the authority\'s reason when the token does not redeem', async () => {
    const { sent } = await run('ENROL', input(enrol(DID_A, DID_A)), { redeem: { ok: false, reason: 'TOKEN_USED', detail: 'already redeemed' } });
    expect(sent[0]).to.deep.include({ performative: 'REFUSE' });
    expect(sent[0]?.content).to.deep.equal({ reason: 'FORBIDDEN_SENDER', detail: 'enrolment refused (TOKEN_USED): already redeemed' });
  });

  it('answers FAILURE INTERNAL_ERROR when the authority cannot be read', async () => {
    const { sent } = await run('ENROL', input(enrol(DID_A, DID_A)), { redeem: new Error('EACCES enrolments.json') });
    expect(sent[0]?.content).to.deep.equal({ reason: 'INTERNAL_ERROR', detail: 'directory: EACCES enrolments.json' });
  });
});
