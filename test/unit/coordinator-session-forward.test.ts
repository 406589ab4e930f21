// The Coordinator's half of a person's `session …` line (agents/coordinator/session-forward.ts):
// forwarded to the sessions agent as SESSION_CHAT with the person and the Presenter's DID, its
// text relayed as PRESENTER_REPLY; a FAILURE relayed with its reason; no answer → FAILURE
// TIMEOUT after PARLEY_SESSIONS_TIMEOUT_MS. And the sessions agent's side of that wait (tooLate).
import { expect } from 'chai';
import { makeEnvelope } from '../../shared/acl/index.js';
import { tooLate } from '../../agents/sessions/wire.js';
import { userMsgFactory } from '../../agents/coordinator/factory.js';
import { sessionForwardMachine } from '../../agents/coordinator/session-forward.js';
import { identify } from '../../shared/runtime/index.js';
import { DOMAIN, harness, T, USER, userMsg } from './coordinator-harness.js';

const PRESENTER_DID = 'did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp';
const line = (text: string) => ({ ...userMsg(text), sender_did: PRESENTER_DID });

describe('Coordinator [sessions] a person\'s session line goes to the sessions agent', () => {
  it('the USER_MSG factory routes `session …` lines, and only those, to the forward', () => {
    const f = userMsgFactory({ self: 'Coordinator', domain: DOMAIN, timeouts: T });
    const from = identify('presenter@localhost', DOMAIN);
    for (const t of ['session start Trip', 'session', 'Session add book a train', 'session done 2']) expect(f(userMsg(t), from).machine, t).to.equal(sessionForwardMachine);
    for (const t of ['sessions are fun?', 'what is a session?']) expect(f(userMsg(t), from).machine, t).to.not.equal(sessionForwardMachine);
  });

  it('forwards SESSION_CHAT (person, Presenter DID, the wait) and relays the answer as PRESENTER_REPLY', () => {
    const request = line('session add book the train');
    const h = harness(sessionForwardMachine, request, { timeouts: { ...T, sessionsTimeoutMs: 12000 } });
    const fwd = h.last();
    expect(fwd).to.include({ performative: 'REQUEST', sender: 'Coordinator', receiver: 'Sessions', conversation_id: request.conversation_id });
    expect(fwd.content).to.deep.equal({ type: 'SESSION_CHAT', text: 'session add book the train', on_behalf_of: USER, answer_within_ms: 12000, presenter_did: PRESENTER_DID });
    h.reply(fwd, 'INFORM', { type: 'SESSION_CHAT_REPLY', text: 'Session "Trip" (open, version 2, id x)\n1. [todo] book the train', rich: { kind: 'session', state_version: 2 } });
    expect(h.last()).to.deep.include({ performative: 'INFORM', receiver: 'Presenter', in_reply_to: request.reply_with });
    expect(h.last().content).to.deep.equal({ type: 'PRESENTER_REPLY', text: 'Session "Trip" (open, version 2, id x)\n1. [todo] book the train', rich: { kind: 'session', state_version: 2 } });
    expect(h.actor.getSnapshot().status).to.equal('done');
  });

  it('relays a FAILURE with its reason, and answers FAILURE TIMEOUT when the sessions agent is silent', () => {
    const a = harness(sessionForwardMachine, line('session'));
    a.reply(a.last(), 'FAILURE', { reason: 'INTERNAL_ERROR', detail: 'disk full' });
    expect(a.last()).to.include({ performative: 'FAILURE', receiver: 'Presenter' });
    expect(a.last().content).to.include({ reason: 'INTERNAL_ERROR' });
    expect(String(a.last().content.detail)).to.contain('disk full');

    const b = harness(sessionForwardMachine, line('session'), { timeouts: { ...T, sessionsTimeoutMs: 5000 } });
    b.clock.increment(4999);
    expect(b.sent).to.have.length(1);
    b.clock.increment(2);
    expect(b.last()).to.include({ performative: 'FAILURE', receiver: 'Presenter' });
    expect(b.last().content).to.include({ reason: 'TIMEOUT' });
    expect(b.notes.map((n) => n.decision)).to.include('sessions-timeout');
  });

  it('refuses to forward a line without the person (USER_MSG.user): FAILURE INVALID_ARGS, nothing sent to the sessions agent', () => {
    const h = harness(sessionForwardMachine, { ...line('session start X'), content: { type: 'USER_MSG', text: 'session start X', attachments: [] } });
    expect(h.sent).to.have.length(1);
    expect(h.last()).to.include({ performative: 'FAILURE', receiver: 'Presenter' });
    expect(h.last().content).to.include({ reason: 'INVALID_ARGS' });
  });
});

describe('Sessions [chat] a line the Coordinator gave up on is not applied', () => {
  const chat = (timestamp: string, within?: number) => ({
    ...makeEnvelope({ performative: 'REQUEST', sender: 'Coordinator', receiver: 'Sessions', conversation_id: 'c1', content: { type: 'SESSION_CHAT', text: 'session', on_behalf_of: USER, ...(within ? { answer_within_ms: within } : {}) } }),
    timestamp,
  });
  it('is too late from answer_within_ms after the timestamp, less 1 s for the way back', () => {
    const t0 = Date.parse('2026-05-03T10:00:00Z');
    const r = chat(new Date(t0).toISOString(), 10000);
    expect(tooLate(r, t0 + 8999)).to.equal(false);
    expect(tooLate(r, t0 + 9001)).to.equal(true);
    expect(tooLate(chat(new Date(t0).toISOString()), t0 + 3_600_000), 'no wait named: never').to.equal(false);
  });
});
