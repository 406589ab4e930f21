import { expect } from 'chai';
import { type AnyActorRef, SimulatedClock } from 'xstate';
import { type Envelope, replyTo } from '../../shared/acl/index.js';
import { echoRequester, echoResponder, type RequesterInput } from '../../shared/bench/index.js';
import { silentLogger } from '../../shared/log/index.js';
import { identify, Router } from '../../shared/runtime/index.js';
import { askExpert, CID } from '../support/bad-inputs.js';
import { DOMAIN, link, testAgent } from '../support/fake-transport.js';

const coordinator = identify(`coordinator@${DOMAIN}`, DOMAIN);
const echo = identify(`specialist-echo@${DOMAIN}`, DOMAIN);
const tick = () => new Promise((r) => setImmediate(r));

function harness() {
  const clock = new SimulatedClock();
  const sent: Array<{ envelope: Envelope; key: string }> = [];
  const crashes: string[] = [];
  const router = new Router({
    logger: silentLogger(),
    clock,
    send: (envelope, key) => sent.push({ envelope, key }),
    note: () => undefined,
    crashed: (key) => crashes.push(key),
  });
  return { clock, sent, crashes, router };
}

const requesterInput = (conversationId: string, over: Partial<RequesterInput> = {}): RequesterInput => ({
  self: 'Coordinator', peer: 'specialist-echo', conversationId, question: 'q', agreeTimeoutMs: 3000, resultTimeoutMs: 30000, ...over,
});

const agreeTo = (request: Envelope) => replyTo(request, { performative: 'AGREE', content: { status: 'accepted' } });
const resultTo = (request: Envelope, answer = 'a') => replyTo(request, { performative: 'INFORM', content: { type: 'RESULT', result: { answer } } });

describe('Router [exchanges] one actor per exchange', () => {
  it('opens one actor per initiating envelope, keyed conversation_id/reply_with', () => {
    const { router } = harness();
    router.on('ASK_EXPERT', (request, from) => ({ machine: echoResponder.provide({ actors: {} }), input: { request, from, self: 'specialist-echo', agree: true } }));
    const a = askExpert();
    const b = askExpert();
    expect(router.deliver(a, 'ASK_EXPERT', coordinator)).to.deep.equal({ outcome: 'opened', key: `${CID}/${a.reply_with}` });
    expect(router.deliver(b, 'ASK_EXPERT', coordinator)).to.deep.equal({ outcome: 'opened', key: `${CID}/${b.reply_with}` });
    expect(router.size).to.equal(2);
    expect(router.keys()).to.have.members([`${CID}/${a.reply_with}`, `${CID}/${b.reply_with}`]);
  });

  it('says unhandled for a kind nobody registered', () => {
    const { router } = harness();
    expect(router.deliver(askExpert(), 'ASK_EXPERT', coordinator)).to.deep.equal({ outcome: 'unhandled' });
    expect(router.size).to.equal(0);
  });

  it('routes each reply by in_reply_to to the actor that sent the request', () => {
    const { router, sent } = harness();
    const one = router.start('sess-1/ask', echoRequester, requesterInput('sess-1'));
    const two = router.start('sess-2/ask', echoRequester, requesterInput('sess-2'));
    const [req1, req2] = sent.map((s) => s.envelope) as [Envelope, Envelope];
    expect(sent.map((s) => s.key)).to.deep.equal(['sess-1/ask', 'sess-2/ask']);
    expect(router.deliver(agreeTo(req2), 'AGREE', echo)).to.deep.equal({ outcome: 'routed', key: 'sess-2/ask' });
    expect(two.getSnapshot().value).to.equal('awaitingResult');
    expect(one.getSnapshot().value).to.equal('awaitingAgree');
    expect(router.deliver(agreeTo(req1), 'AGREE', echo)).to.deep.equal({ outcome: 'routed', key: 'sess-1/ask' });
    expect(one.getSnapshot().value).to.equal('awaitingResult');
  });

  it('removes the actor on its final state and treats later replies as late', () => {
    const { router, sent } = harness();
    const actor = router.start('sess-1/ask', echoRequester, requesterInput('sess-1'));
    const req = sent[0]?.envelope as Envelope;
    router.deliver(agreeTo(req), 'AGREE', echo);
    expect(router.size).to.equal(1);
    expect(router.deliver(resultTo(req, '4'), 'RESULT', echo)).to.include({ outcome: 'routed' });
    expect(router.size).to.equal(0);
    expect(router.has('sess-1/ask')).to.equal(false);
    expect(actor.getSnapshot().output).to.include({ ok: true, answer: '4', agreed: true });
    expect(router.deliver(resultTo(req, 'again'), 'RESULT', echo)).to.deep.equal({ outcome: 'late' });
    expect(router.deliver({ ...resultTo(req), in_reply_to: 'msg-never' }, 'RESULT', echo)).to.deep.equal({ outcome: 'broken' });
  });

  it('drops a redelivered envelope (same sender and reply_with) as a duplicate', () => {
    const { router, sent } = harness();
    router.start('sess-1/ask', echoRequester, requesterInput('sess-1'));
    const agree = agreeTo(sent[0]?.envelope as Envelope);
    expect(router.deliver(agree, 'AGREE', echo)).to.include({ outcome: 'routed' });
    expect(router.deliver(agree, 'AGREE', echo)).to.deep.equal({ outcome: 'duplicate' });
  });
});

describe('Router [timeouts] named delays run on the simulated clock', () => {
  it('fires AGREE_TIMEOUT only when the clock advances past it, then removes the actor', async () => {
    const { router, clock } = harness();
    const actor: AnyActorRef = router.start('sess-1/ask', echoRequester, requesterInput('sess-1', { agreeTimeoutMs: 3000 }));
    await new Promise((r) => setTimeout(r, 30)); // real time passes: nothing happens
    expect(actor.getSnapshot().value).to.equal('awaitingAgree');
    clock.increment(2999);
    expect(actor.getSnapshot().status).to.equal('active');
    expect(router.size).to.equal(1);
    clock.increment(1);
    expect(actor.getSnapshot().status).to.equal('done');
    expect(actor.getSnapshot().output).to.include({ ok: false, reason: 'AGREE_TIMEOUT' });
    expect(router.size).to.equal(0);
  });

  it('cancels the AGREE timer once AGREE arrives and arms RESULT_TIMEOUT instead', () => {
    const { router, clock, sent } = harness();
    const actor = router.start('sess-1/ask', echoRequester, requesterInput('sess-1', { agreeTimeoutMs: 3000, resultTimeoutMs: 30000 }));
    clock.increment(2000);
    router.deliver(agreeTo(sent[0]?.envelope as Envelope), 'AGREE', echo);
    clock.increment(29999);
    expect(actor.getSnapshot().value).to.equal('awaitingResult');
    clock.increment(1);
    expect(actor.getSnapshot().output).to.include({ ok: false, reason: 'RESULT_TIMEOUT' });
    expect(router.size).to.equal(0);
  });
});

describe('Router [agents] two agents over a fake wire', () => {
  it('completes REQUEST → AGREE → INFORM RESULT with correct correlation and empties both routers', async () => {
    const coord = testAgent('coordinator');
    const spec = testAgent('specialist-echo');
    spec.agent.router.on('ASK_EXPERT', (request, from) => ({ machine: echoResponder, input: { request, from, self: spec.agent.name, agree: true } }));
    link(coord, spec, { async: true });
    const actor = coord.agent.router.start('sess-9/ask', echoRequester, requesterInput('sess-9', { question: 'ping' }));
    for (let i = 0; i < 5 && actor.getSnapshot().status === 'active'; i++) await tick();
    expect(actor.getSnapshot().output).to.include({ ok: true, answer: 'ping', agreed: true });
    const [request] = coord.transport.envelopes() as [Envelope];
    const replies = spec.transport.envelopes();
    expect(replies.map((e) => e.performative)).to.deep.equal(['AGREE', 'INFORM']);
    for (const r of replies) expect(r).to.include({ in_reply_to: request.reply_with, conversation_id: 'sess-9' });
    expect(spec.transport.sent.every((m) => m.thread === 'sess-9')).to.equal(true);
    expect(coord.agent.router.size + spec.agent.router.size).to.equal(0);
  });
});
