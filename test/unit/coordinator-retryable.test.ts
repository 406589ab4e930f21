// A restarted specialist's retryable FAILURE (WORK_LOST, issue 12): the Coordinator takes the next
// offer or candidate at once, and runs one fresh round at once when none is left — the clock never
// moves in these tests, so no answer here waits for a timeout.
import { expect } from 'chai';
import type { Envelope } from '../../shared/acl/index.js';
import { expertMachine } from '../../agents/coordinator/expert/machine.js';
import type { AgoraSettings } from '../../agents/coordinator/negotiation.js';
import { harness, userMsg } from './coordinator-harness.js';

const A = 'specialist-a@localhost';
const B = 'specialist-b@localhost';
const AGORA: AgoraSettings = { mode: 'auto', cfpTimeoutMs: 1000, acceptMarginMs: 20 };
const LOST = { type: 'AGORA_ERROR', code: 503, reason: 'WORK_LOST', message: 'specialist-a does not hold offer x (restarted)' };
const result = (answer: string) => ({ type: 'AGORA_RESULT', request_id: 'r', status: 'success', data: { answer, meta: {} } });

function negotiating(candidates: string[]) {
  const request = userMsg('what is 2 + 2?');
  const h = harness(expertMachine, request, { agora: AGORA });
  h.reply(h.last(), 'INFORM', { candidates });
  const sentTo = (name: string, performative: string) => h.sent.filter((e) => e.receiver === name && e.performative === performative);
  const cfp = (name: string) => sentTo(name, 'CFP').at(-1) as Envelope;
  let n = 0;
  const offer = (name: string, cost: number) =>
    h.reply(cfp(name), 'PROPOSE', { type: 'AGORA_OFFER', request_id: cfp(name).reply_with, offer_id: `offer-${name}-${++n}`, cost, ttl: 5000, eta: 10 });
  const finish = (accept: Envelope, answer: string) => {
    h.reply(accept, 'INFORM', result(answer));
    h.reply(h.sent.filter((e) => e.receiver === 'KB').at(-1) as Envelope, 'INFORM', { type: 'STORED', count: 1 });
  };
  return { ...h, request, sentTo, cfp, offer, finish };
}

describe('Coordinator [retryable] a restarted specialist never costs the RESULT timeout', () => {
  it('WORK_LOST to the ACCEPT: the next open offer is accepted at once', () => {
    const h = negotiating([A, B]);
    h.offer('specialist-a', 1);
    h.offer('specialist-b', 2);
    h.reply(h.sentTo('specialist-a', 'ACCEPT-PROPOSAL')[0] as Envelope, 'FAILURE', LOST);
    const [acceptB] = h.sentTo('specialist-b', 'ACCEPT-PROPOSAL');
    expect(acceptB, 'next offer without a timer').to.not.equal(undefined);
    h.finish(acceptB as Envelope, '4');
    expect(h.last().content).to.deep.include({ text: '4' });
    expect(h.sent.filter((e) => e.receiver === 'Presenter' && e.performative !== 'AGREE'), 'one answer').to.have.length(1);
  });

  it('WORK_LOST and no offer left: one fresh round at once, and the restarted specialist answers', () => {
    const h = negotiating([A, B]);
    h.offer('specialist-a', 1);
    h.reply(h.cfp('specialist-b'), 'REFUSE', { type: 'AGORA_ERROR', code: 404, reason: 'OUT_OF_SCOPE', message: 'not mine' });
    h.reply(h.sentTo('specialist-a', 'ACCEPT-PROPOSAL')[0] as Envelope, 'FAILURE', LOST);
    expect(h.notes.map((x) => x.decision)).to.include('retry-round');
    expect(h.sentTo('specialist-a', 'CFP'), 'a second CFP to the restarted one').to.have.length(2);
    h.offer('specialist-a', 1);
    h.reply(h.cfp('specialist-b'), 'REFUSE', { type: 'AGORA_ERROR', code: 404, reason: 'OUT_OF_SCOPE', message: 'not mine' });
    const accepts = h.sentTo('specialist-a', 'ACCEPT-PROPOSAL');
    expect(accepts).to.have.length(2);
    h.finish(accepts[1] as Envelope, '4');
    expect(h.last()).to.include({ receiver: 'Presenter', performative: 'INFORM' });
    expect(h.last().content).to.deep.include({ text: '4' });
  });

  it('the direct flow: WORK_LOST after AGREE asks again at once', () => {
    const h = negotiating([A]);
    const ask = h.last();
    expect(ask).to.include({ performative: 'REQUEST', receiver: 'specialist-a' });
    h.reply(ask, 'AGREE', { status: 'accepted' });
    h.reply(ask, 'FAILURE', { reason: 'WORK_LOST', detail: 'could not be resumed after a restart' });
    const asks = h.sentTo('specialist-a', 'REQUEST');
    expect(asks).to.have.length(2);
    h.reply(asks[1] as Envelope, 'INFORM', { type: 'RESULT', result: { answer: '4', meta: {} } });
    h.reply(h.sent.filter((e) => e.receiver === 'KB').at(-1) as Envelope, 'INFORM', { type: 'STORED', count: 1 });
    expect(h.last().content).to.deep.include({ text: '4' });
  });

  it('a second WORK_LOST ends the question with a clear failure (one fresh round only)', () => {
    const h = negotiating([A]);
    h.reply(h.last(), 'FAILURE', { reason: 'WORK_LOST' });
    h.reply(h.last(), 'FAILURE', { reason: 'WORK_LOST' });
    expect(h.last()).to.include({ performative: 'FAILURE', receiver: 'Presenter' });
    expect(h.isDone()).to.equal(true);
  });

  it('attack: a failure that is not retryable gets no fresh round', () => {
    const h = negotiating([A]);
    h.reply(h.last(), 'FAILURE', { reason: 'INVALID_ARGS', detail: 'no' });
    expect(h.notes.map((x) => x.decision)).to.not.include('retry-round');
    expect(h.last()).to.include({ performative: 'FAILURE', receiver: 'Presenter' });
  });
});
