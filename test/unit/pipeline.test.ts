import { expect } from 'chai';
import { assign, setup } from 'xstate';
import { type Envelope, makeEnvelope, replyTo } from '../../shared/acl/index.js';
import { validateEnvelope } from '../../shared/contracts/index.js';
import { echoRequester, echoResponder } from '../../shared/bench/index.js';
import { identify, type Identity, classify } from '../../shared/runtime/index.js';
import { askExpert, badInputs, CID, JID } from '../support/bad-inputs.js';
import { DOMAIN, inbound, testAgent, type TestAgent } from '../support/fake-transport.js';
import { testSigning } from '../support/signing.js';

/** A pipeline context with the signature stage on (test keys, a fresh replay window). */
const ctx = (local: string, readsChat = false) => {
  const signing = testSigning(`${local}@${DOMAIN}`, DOMAIN);
  return {
    domain: DOMAIN, self: identify(`${local}@${DOMAIN}`, DOMAIN), readsChat,
    verify: (env: Envelope, from: Identity, kind: string) => signing.check(env, from, kind),
  };
};

describe('pipeline [classify] bad input', () => {
  // Each row is rebuilt when its test runs: the timestamp rows are relative to the clock, and a
  // loaded machine can take more than 25 s from loading this file to running the test.
  badInputs().forEach((row, i) => {
    it(`rejects ${row.name} with ${row.code}`, () => {
      const c = badInputs()[i] as typeof row;
      const r = classify(c.msg, ctx(c.self));
      expect(r.action).to.equal('reject');
      if (r.action !== 'reject') return;
      expect(r.code).to.equal(c.code);
      expect(r.in_reply_to).to.equal(c.inReplyTo);
      expect(r.conversation_id).to.equal(c.thread);
      expect(r.from.jid).to.equal(c.msg.fromBare);
    });
  });

  it('reports the ajv error paths of a content schema violation', () => {
    const env = askExpert();
    delete (env.content as Record<string, unknown>).args;
    const r = classify(inbound(JID.coordinator, env), ctx('specialist-echo'));
    expect(r).to.include({ action: 'reject', code: 'SCHEMA_VIOLATION' });
    expect(r.action === 'reject' && r.errors?.map((e) => e.instancePath)).to.include('/content');
  });
});

describe('pipeline [classify] what is not an envelope', () => {
  it('ignores error stanzas (never answers them)', () => {
    const r = classify(inbound(JID.coordinator, askExpert(), { type: 'error' }), ctx('specialist-echo'));
    expect(r).to.include({ action: 'ignore', reason: 'error stanza' });
  });

  it('ignores messages without a body (chat states)', () => {
    const msg = inbound(JID.alice, '', { thread: CID });
    expect(classify(msg, ctx('presenter', true))).to.include({ action: 'ignore' });
  });

  it("classifies a person's plain text as chat for a readsChat agent", () => {
    const r = classify(inbound(JID.alice, 'what is 2+2?', { thread: undefined }), ctx('presenter', true));
    expect(r).to.include({ action: 'chat' });
    expect(r.from).to.deep.equal({ jid: JID.alice, name: 'alice', role: 'person' });
  });

  it("treats a person's type=chat message as chat even when it is a JSON object", () => {
    const r = classify(inbound(JID.alice, '{"performative":"REQUEST"}', { thread: CID, type: 'chat' }), ctx('presenter', true));
    expect(r).to.include({ action: 'chat' });
  });

  it('treats chat from another domain as chat, so the Presenter can refuse it politely', () => {
    const r = classify(inbound('mallory@elsewhere.example', 'hello', { type: 'chat' }), ctx('presenter', true));
    expect(r).to.include({ action: 'chat' });
    expect(r.from.role).to.equal('foreign');
  });

  it("still treats a person's type=normal JSON as an envelope (then refused by role)", () => {
    const r = classify(inbound(JID.alice, askExpert(), { type: 'normal' }), ctx('presenter', true));
    expect(r.action).to.equal('reject');
  });

  it("rejects a person's plain text as INVALID_JSON when the agent does not read chat", () => {
    const r = classify(inbound(JID.alice, 'what is 2+2?', { thread: CID, id: 's1' }), ctx('coordinator'));
    expect(r).to.include({ action: 'reject', code: 'INVALID_JSON', in_reply_to: 's1' });
  });

  it("does not treat an agent's plain text as chat, even at a readsChat agent", () => {
    const r = classify(inbound(JID.coordinator, 'hello', { thread: CID }), ctx('presenter', true));
    expect(r).to.include({ action: 'reject', code: 'INVALID_JSON' });
  });

  it('delivers a valid, authorised ASK_EXPERT with its content kind', () => {
    const r = classify(inbound(JID.coordinator, askExpert()), ctx('specialist-echo'));
    expect(r.action).to.equal('deliver');
    expect(r.action === 'deliver' && r.kind.kind).to.equal('ASK_EXPERT');
  });
});

function echoSpecialist(agree = false): TestAgent {
  const t = testAgent('specialist-echo');
  t.agent.router.on('ASK_EXPERT', (request, from) => ({ machine: echoResponder, input: { request, from, self: t.agent.name, agree } }));
  return t;
}

/** A machine whose entry action throws when the question is "boom". */
const fragile = setup({ types: {} as { input: { request: Envelope }; context: { q: string } } }).createMachine({
  context: ({ input }) => ({ q: (input.request.content as { args: { question: string } }).args.question }),
  entry: assign(({ context }) => {
    if (context.q === 'boom') throw new Error('handler exploded');
    return {};
  }),
});

describe('Agent [receive] answers bad input with a FIPA error', () => {
  badInputs().forEach((row, i) => {
    it(`answers ${row.name} with ${row.performative} ${row.code}, correlated and in the same thread`, () => {
      const c = badInputs()[i] as typeof row; // built now (see above)
      const { agent, transport, telemetry } = testAgent(c.self);
      agent.receive(c.msg);
      expect(transport.sent).to.have.length(1);
      const out = transport.sent[0];
      const reply = transport.envelopes()[0] as Envelope;
      expect(out?.to).to.equal(c.msg.from); // the session that sent it (shared/runtime/reply-address.ts)
      expect(out?.thread).to.equal(c.thread).and.to.equal(reply.conversation_id);
      expect(reply.performative).to.equal(c.performative);
      expect(reply.content).to.include({ reason: c.code });
      expect(reply.in_reply_to).to.equal(c.inReplyTo);
      expect(validateEnvelope(reply).ok, 'the error reply itself satisfies the contracts').to.equal(true);
      expect(agent.counters.rejected[c.code]).to.equal(1);
      expect(telemetry.records.map((r) => r.decision)).to.deep.equal([`rejected:${c.code}`, 'sent']);
    });
  });
});

describe('Agent [receive] no error ping-pong', () => {
  const notUnderstood = () => makeEnvelope({
    performative: 'NOT-UNDERSTOOD', sender: 'Coordinator', receiver: 'specialist-echo', conversation_id: CID,
    in_reply_to: 'msg-1', content: { reason: 'SCHEMA_VIOLATION', detail: 'x' },
  });

  it('never answers a NOT-UNDERSTOOD, even a broken one', () => {
    const { agent, transport } = testAgent('specialist-echo');
    agent.receive(inbound(JID.coordinator, notUnderstood(), { thread: 'sess-other' }));
    const headerless: Record<string, unknown> = { ...notUnderstood() };
    delete headerless.timestamp;
    agent.receive(inbound(JID.coordinator, headerless, { thread: CID }));
    expect(transport.sent).to.have.length(0);
    expect(agent.counters.rejected).to.deep.equal({ BROKEN_CORRELATION: 1, SCHEMA_VIOLATION: 1 });
  });

  it('never answers a FAILURE that correlates to nothing', () => {
    const { agent, transport } = testAgent('coordinator');
    const failure = makeEnvelope({
      performative: 'FAILURE', sender: 'specialist-echo', receiver: 'Coordinator', conversation_id: CID,
      in_reply_to: 'msg-unknown', content: { reason: 'INTERNAL_ERROR', detail: 'x' },
    });
    agent.receive(inbound(JID.echo, failure));
    expect(transport.sent).to.have.length(0);
    expect(agent.counters.rejected.BROKEN_CORRELATION).to.equal(1);
  });
});

describe('Agent [receive] exchanges', () => {
  it('answers a machine that throws with FAILURE INTERNAL_ERROR and keeps serving the next message', () => {
    const { agent, transport } = echoSpecialist();
    agent.router.on('ASK_EXPERT', (request) => ({
      machine: (request.content as { args: { question: string } }).args.question === 'boom' ? fragile : echoResponder,
      input: { request, agree: false },
    }));
    const boom = askExpert({ question: 'boom' });
    agent.receive(inbound(JID.coordinator, boom));
    const [failure] = transport.envelopes();
    expect(failure).to.include({ performative: 'FAILURE', in_reply_to: boom.reply_with, conversation_id: CID });
    expect(failure?.content).to.include({ reason: 'INTERNAL_ERROR' });
    expect(agent.router.size).to.equal(0);
    return new Promise<void>((resolve) => {
      const ok = askExpert({ question: 'fine' });
      agent.receive(inbound(JID.coordinator, ok));
      setImmediate(() => {
        const second = transport.envelopes()[1];
        expect(second).to.include({ performative: 'INFORM', in_reply_to: ok.reply_with });
        resolve();
      });
    });
  });

  it('answers a factory that throws with FAILURE INTERNAL_ERROR', () => {
    const { agent, transport } = testAgent('specialist-echo');
    agent.router.on('ASK_EXPERT', () => {
      throw new Error('factory exploded');
    });
    const req = askExpert();
    agent.receive(inbound(JID.coordinator, req));
    const [failure] = transport.envelopes();
    expect(failure).to.include({ performative: 'FAILURE', in_reply_to: req.reply_with, conversation_id: CID });
    expect(failure?.content).to.include({ reason: 'INTERNAL_ERROR' });
  });

  it('drops a retransmitted signed envelope (REPLAYED, recorded) without a second answer', async () => {
    const { agent, transport, telemetry } = echoSpecialist();
    const msg = inbound(JID.coordinator, askExpert());
    agent.receive(msg);
    agent.receive(msg);
    await new Promise((r) => setImmediate(r));
    expect(transport.envelopes().map((e) => e.performative)).to.deep.equal(['INFORM']);
    expect(agent.counters.rejected.REPLAYED).to.equal(1);
    expect(telemetry.records.map((r) => r.decision)).to.include('rejected:REPLAYED');
  });

  it('with signing off, drops a duplicate (same sender and reply_with) in the router', async () => {
    const t = testAgent('specialist-echo', { signing: undefined });
    t.agent.router.on('ASK_EXPERT', (request, from) => ({ machine: echoResponder, input: { request, from, self: t.agent.name, agree: false } }));
    const msg = inbound(JID.coordinator, askExpert(), { unsigned: true });
    t.agent.receive(msg);
    t.agent.receive(msg);
    await new Promise((r) => setImmediate(r));
    expect(t.transport.envelopes().map((e) => e.performative)).to.deep.equal(['INFORM']);
    expect(t.agent.counters.duplicates).to.equal(1);
  });

  it('answers a reply to no message of ours with NOT-UNDERSTOOD BROKEN_CORRELATION', () => {
    const { agent, transport } = testAgent('coordinator');
    const agree = makeEnvelope({ performative: 'AGREE', sender: 'specialist-echo', receiver: 'Coordinator', conversation_id: CID, in_reply_to: 'msg-nobody', content: { status: 'accepted' } });
    agent.receive(inbound(JID.echo, agree));
    const [reply] = transport.envelopes();
    expect(reply).to.include({ performative: 'NOT-UNDERSTOOD', in_reply_to: agree.reply_with });
    expect(reply?.content).to.include({ reason: 'BROKEN_CORRELATION' });
  });

  it('drops a late reply to a closed exchange silently', () => {
    const { agent, transport } = testAgent('coordinator');
    agent.router.start(`${CID}/ask`, echoRequester, {
      self: 'Coordinator', peer: 'specialist-echo', conversationId: CID, question: 'q', agreeTimeoutMs: 3000, resultTimeoutMs: 30000,
    });
    const [request] = transport.envelopes() as [Envelope];
    const result = (answer: string) => replyTo(request, { performative: 'INFORM', content: { type: 'RESULT', result: { answer } } });
    agent.receive(inbound(JID.echo, result('first')));
    expect(agent.router.size).to.equal(0);
    agent.receive(inbound(JID.echo, result('again')));
    expect(transport.sent).to.have.length(1); // only our REQUEST
    expect(agent.counters.late).to.equal(1);
  });
});
