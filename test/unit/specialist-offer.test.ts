import { expect } from 'chai';
import { createActor, fromPromise, SimulatedClock } from 'xstate';
import { type Envelope, makeEnvelope, replyTo } from '../../shared/acl/index.js';
import { validateEnvelope } from '../../shared/contracts/index.js';
import type { ComputeInput, ComputeOutput } from '../../agents/specialist/machine.js';
import { offerMachine } from '../../agents/specialist/offer-machine.js';
import { parsePerExpert, termsFor } from '../../agents/specialist/terms.js';

const COORDINATOR = { jid: 'coordinator@localhost', name: 'Coordinator', role: 'coordinator' as const };
const TERMS = { cost: 3, etaMs: 50, ttlMs: 1000 };

function cfp(question = 'what is 17 * 23?'): Envelope {
  return makeEnvelope({
    performative: 'CFP', sender: 'Coordinator', receiver: 'specialist-math', conversation_id: 'sess-offer-1',
    content: { type: 'AGORA_REQUEST', resource: 'parley:ask-expert:v1', params: { question } },
  });
}

function start(opts: { busy?: boolean; expert?: string | null; compute?: () => Promise<ComputeOutput>; workerFree?: boolean } = {}) {
  const clock = new SimulatedClock();
  const sent: Envelope[] = [];
  let released = 0;
  let workers = 0;
  const request = cfp();
  const machine = offerMachine.provide({
    actors: { compute: fromPromise<ComputeOutput, ComputeInput>(() => (opts.compute ?? (() => Promise.resolve({ answer: '391', meta: {} })))()) },
    guards: { workerFree: () => opts.workerFree ?? true },
    actions: { releaseSlot: () => void (released += 1), takeWorker: () => void (workers += 1), releaseWorker: () => void (workers -= 1) },
  });
  const actor = createActor(machine, {
    clock,
    input: {
      request, from: COORDINATOR, self: 'specialist-math', busy: opts.busy ?? false, expert: opts.expert === undefined ? 'arithmetic' : opts.expert,
      scope: 'arithmetic', computeMs: 10000, terms: TERMS, lingerMs: 2000,
    },
  });
  actor.on('send', (e) => {
    if (e.type !== 'send') return;
    expect(validateEnvelope(e.envelope), JSON.stringify(e.envelope.content)).to.include({ ok: true });
    sent.push(e.envelope);
  });
  actor.start();
  const propose = () => sent.find((e) => e.performative === 'PROPOSE') as Envelope;
  const answer = (performative: 'ACCEPT-PROPOSAL' | 'REJECT-PROPOSAL', content: object) => {
    const env = replyTo(propose(), { performative, content });
    actor.send({ type: 'inbound', envelope: env });
    return env;
  };
  const offerId = () => propose().content.offer_id as string;
  return { actor, clock, sent, request, propose, answer, offerId, released: () => released, workers: () => workers };
}

const flush = () => new Promise((r) => setImmediate(r));

describe('Specialist [offer] CFP → PROPOSE → ACCEPT → AGORA_RESULT (Agora §3-4, contract-net)', () => {
  it('answers a CFP with PROPOSE AGORA_OFFER carrying its configured cost, eta and ttl', () => {
    const s = start();
    expect(s.sent).to.have.length(1);
    expect(s.propose()).to.include({ performative: 'PROPOSE', in_reply_to: s.request.reply_with, protocol: 'fipa-contract-net' });
    expect(s.propose().content).to.deep.include({ type: 'AGORA_OFFER', request_id: s.request.reply_with, cost: 3, eta: 50, ttl: 1000 });
    expect(s.offerId()).to.match(/^offer-/);
  });

  it('on ACCEPT-PROPOSAL takes a worker, runs the expert, informs AGORA_RESULT in reply to the ACCEPT, then frees both', async () => {
    const s = start();
    const accept = s.answer('ACCEPT-PROPOSAL', { type: 'AGORA_ACCEPT', offer_id: s.offerId() });
    expect(s.workers()).to.equal(1);
    await flush();
    expect(s.workers()).to.equal(0);
    const result = s.sent.at(-1) as Envelope;
    expect(result).to.include({ performative: 'INFORM', in_reply_to: accept.reply_with });
    expect(result.content).to.deep.equal({ type: 'AGORA_RESULT', request_id: s.request.reply_with, status: 'success', data: { answer: '391', meta: {} } });
    expect(s.released()).to.equal(1);
    expect(s.actor.getSnapshot().status).to.equal('done');
  });

  it('a failing expert: FAILURE AGORA_ERROR with the Agora code of its reason', async () => {
    const s = start({ compute: () => Promise.reject(new Error('boom')) });
    s.answer('ACCEPT-PROPOSAL', { type: 'AGORA_ACCEPT', offer_id: s.offerId() });
    await flush();
    expect(s.sent.at(-1)?.performative).to.equal('FAILURE');
    expect(s.sent.at(-1)?.content).to.deep.include({ type: 'AGORA_ERROR', code: 500, reason: 'INTERNAL_ERROR', message: 'boom' });
  });

  it('ACCEPT with no free worker: FAILURE AGORA_ERROR BUSY (503), the offer is off', () => {
    const s = start({ workerFree: false });
    s.answer('ACCEPT-PROPOSAL', { type: 'AGORA_ACCEPT', offer_id: s.offerId() });
    expect(s.sent.at(-1)?.performative).to.equal('FAILURE');
    expect(s.sent.at(-1)?.content).to.deep.include({ code: 503, reason: 'BUSY' });
    expect([s.workers(), s.released()]).to.deep.equal([0, 1]);
  });

  it('REJECT-PROPOSAL frees the reservation without an answer', () => {
    const s = start();
    s.answer('REJECT-PROPOSAL', { type: 'AGORA_REJECT', offer_id: s.offerId(), reason: 'NOT_SELECTED' });
    expect(s.sent).to.have.length(1);
    expect(s.released()).to.equal(1);
    expect(s.actor.getSnapshot().status).to.equal('done');
  });

  it('past its ttl the offer is off: the slot is freed and a late ACCEPT gets FAILURE OFFER_EXPIRED (408)', () => {
    const s = start();
    s.clock.increment(TERMS.ttlMs);
    expect(s.released()).to.equal(1);
    const accept = s.answer('ACCEPT-PROPOSAL', { type: 'AGORA_ACCEPT', offer_id: s.offerId() });
    const failure = s.sent.at(-1) as Envelope;
    expect(failure).to.include({ performative: 'FAILURE', in_reply_to: accept.reply_with });
    expect(failure.content).to.deep.include({ type: 'AGORA_ERROR', code: 408, reason: 'OFFER_EXPIRED' });
    expect(s.actor.getSnapshot().status).to.equal('done');
  });

  it('an ACCEPT naming another offer is a FAILURE INVALID_ARGS', () => {
    const s = start();
    s.answer('ACCEPT-PROPOSAL', { type: 'AGORA_ACCEPT', offer_id: 'offer-someone-else' });
    expect(s.sent.at(-1)?.content).to.deep.include({ code: 400, reason: 'INVALID_ARGS' });
    expect(s.released()).to.equal(1);
  });

  it('busy or out of scope: REFUSE AGORA_ERROR 503 / 404 at once, nothing reserved', () => {
    const busy = start({ busy: true });
    expect(busy.sent[0]).to.include({ performative: 'REFUSE' });
    expect(busy.sent[0]?.content).to.deep.include({ type: 'AGORA_ERROR', code: 503, reason: 'BUSY', request_id: busy.request.reply_with });
    const scope = start({ expert: null });
    expect(scope.sent[0]?.content).to.deep.include({ code: 404, reason: 'OUT_OF_SCOPE' });
    expect(busy.released() + scope.released()).to.equal(0);
  });
});

describe('Specialist [terms] --cost/--eta-ms/--ttl-ms', () => {
  it('takes a default and per-expert overrides', () => {
    const terms = termsFor(parsePerExpert('2,time=0.5', 1, '--cost'), parsePerExpert('', 100, '--eta-ms'), parsePerExpert('time=10', 5000, '--ttl-ms'));
    expect(terms('arithmetic')).to.deep.equal({ cost: 2, etaMs: 100, ttlMs: 5000 });
    expect(terms('time')).to.deep.equal({ cost: 0.5, etaMs: 100, ttlMs: 10 });
  });

  it('rejects values that are not numbers in range', () => {
    expect(() => parsePerExpert('cheap', 1, '--cost')).to.throw('--cost: "cheap" is not a number ≥ 0');
    expect(() => parsePerExpert('0', 5000, '--ttl-ms', { integer: true, min: 1 })).to.throw('--ttl-ms');
    expect(() => parsePerExpert('1.5', 100, '--eta-ms', { integer: true })).to.throw('integer');
  });
});

describe('Specialist [offer] recognition before the PROPOSE (the production path: no skill known yet)', () => {
  async function recognising(skill: string | null) {
    const sent: Envelope[] = [];
    let released = 0;
    const machine = offerMachine.provide({
      actors: { recognise: fromPromise<string | null, { question: string }>(async () => skill) },
      actions: { releaseSlot: () => void (released += 1) },
    });
    const request = cfp('what time is it in Tokyo?');
    const actor = createActor(machine, {
      clock: new SimulatedClock(),
      input: {
        request, from: COORDINATOR, self: 'specialist-math', busy: false, scope: 'arithmetic, time', computeMs: 10000, lingerMs: 2000,
        terms: TERMS, termsFor: (s: string) => (s === 'time' ? { cost: 0.5, etaMs: 20, ttlMs: 800 } : TERMS),
      },
    });
    actor.on('send', (e) => {
      if (e.type === 'send') sent.push(e.envelope);
    });
    actor.start();
    await new Promise((r) => setImmediate(r));
    return { sent, released: () => released, actor };
  }

  it('offers the terms of the skill that recognised the question', async () => {
    const r = await recognising('time');
    expect(r.sent.map((e) => e.performative)).to.deep.equal(['PROPOSE']);
    expect(r.sent[0]?.content).to.deep.include({ cost: 0.5, eta: 20, ttl: 800 });
    expect(r.released(), 'the place in the offer book is held while the offer is open').to.equal(0);
  });

  it('no skill recognises it: REFUSE AGORA_ERROR OUT_OF_SCOPE (404) and the place in the book is given back', async () => {
    const r = await recognising(null);
    expect(r.sent.map((e) => e.performative)).to.deep.equal(['REFUSE']);
    expect(r.sent[0]?.content).to.deep.include({ type: 'AGORA_ERROR', code: 404, reason: 'OUT_OF_SCOPE' });
    expect(r.released()).to.equal(1);
    expect(r.actor.getSnapshot().status).to.equal('done');
  });
});
