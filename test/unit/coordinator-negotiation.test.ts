import { expect } from 'chai';
import type { Envelope } from '../../shared/acl/index.js';
import { expertMachine } from '../../agents/coordinator/expert/machine.js';
import type { AgoraSettings } from '../../agents/coordinator/negotiation.js';
import { harness, T, userMsg } from './coordinator-harness.js';

const A = 'specialist-a@localhost';
const B = 'specialist-b@localhost';
const C = 'specialist-c@localhost';
const AGORA: AgoraSettings = { mode: 'auto', cfpTimeoutMs: 1000, acceptMarginMs: 20 };

/** The expert flow with the negotiated flow on; the DF lists `candidates`. */
function negotiating(candidates: string[], settings: Partial<AgoraSettings> = {}) {
  const request = userMsg('what is 2 + 2?');
  const h = harness(expertMachine, request, { agora: { ...AGORA, ...settings } });
  h.reply(h.last(), 'INFORM', { candidates });
  const cfps = h.sent.filter((e) => e.performative === 'CFP');
  const cfp = (name: string) => cfps.find((e) => e.receiver === name) as Envelope;
  let n = 0;
  /** `name` answers its CFP with an offer. */
  const offer = (name: string, cost: number, eta: number, ttl: number) =>
    h.reply(cfp(name), 'PROPOSE', { type: 'AGORA_OFFER', request_id: cfp(name).reply_with, offer_id: `offer-${name}-${++n}`, cost, ttl, eta });
  const sentTo = (name: string, performative: string) => h.sent.filter((e) => e.receiver === name && e.performative === performative);
  const agora = () => h.notes.filter((x) => x.decision.startsWith('agora:')).map((x) => x.decision.slice(6));
  return { ...h, request, cfps, cfp, offer, sentTo, agora };
}

const result = (answer: string) => ({ type: 'AGORA_RESULT', request_id: 'r', status: 'success', data: { answer, meta: {} } });

describe('Coordinator [negotiation] Agora REQUEST → OFFER → ACCEPT → RESULT over contract-net', () => {
  it('sends one CFP AGORA_REQUEST per candidate (fipa-contract-net) and notes PENDING', () => {
    const h = negotiating([A, B, C], { maxCost: 10 });
    expect(h.cfps.map((e) => e.receiver)).to.deep.equal(['specialist-a', 'specialist-b', 'specialist-c']);
    for (const e of h.cfps) {
      expect(e.protocol).to.equal('fipa-contract-net');
      expect(e.content).to.deep.equal({
        type: 'AGORA_REQUEST', resource: 'parley:ask-expert:v1', params: { question: 'what is 2 + 2?' }, budget: { max_cost: 10 },
        timeout: T.resultTimeoutMs, context_ref: { session_id: h.request.conversation_id },
      });
    }
    expect(h.agora()).to.deep.equal(['PENDING']);
  });

  it('three offers with different terms: accepts the lowest cost, ties by eta then DF rank, and rejects the rest when done', () => {
    const h = negotiating([A, B, C]);
    h.offer('specialist-a', 5, 10, 5000);
    h.offer('specialist-b', 3, 900, 5000); // cheapest, slowest among the cheapest
    h.offer('specialist-c', 3, 200, 5000); // same cost, sooner: wins
    const [accept] = h.sentTo('specialist-c', 'ACCEPT-PROPOSAL');
    expect(accept?.content).to.deep.equal({ type: 'AGORA_ACCEPT', offer_id: 'offer-specialist-c-3' });
    expect(h.sentTo('specialist-a', 'ACCEPT-PROPOSAL').length + h.sentTo('specialist-b', 'ACCEPT-PROPOSAL').length).to.equal(0);
    expect(h.sentTo('specialist-a', 'REJECT-PROPOSAL'), 'the runners-up stay open as fallbacks').to.have.length(0);
    h.reply(accept as Envelope, 'INFORM', result('4'));
    for (const name of ['specialist-a', 'specialist-b']) {
      expect(h.sentTo(name, 'REJECT-PROPOSAL')[0]?.content).to.deep.include({ type: 'AGORA_REJECT', reason: 'NOT_SELECTED' });
    }
    h.reply(h.sent.find((e) => e.receiver === 'KB') as Envelope, 'INFORM', { type: 'STORED', count: 1 });
    expect(h.last().content).to.deep.include({ text: '4', rich: { answered_by: 'specialist-c', kb: 'stored' } });
    expect(h.agora()).to.deep.equal(['PENDING', 'NEGOTIATING', 'PROCESSING', 'COMPLETED']);
  });

  it('equal cost and eta: the DF rank decides', () => {
    const h = negotiating([A, B]);
    h.offer('specialist-b', 2, 100, 5000);
    h.offer('specialist-a', 2, 100, 5000);
    expect(h.sentTo('specialist-a', 'ACCEPT-PROPOSAL')).to.have.length(1);
  });

  it('an offer past its ttl is never accepted: it is rejected OFFER_EXPIRED and the next best wins', () => {
    const h = negotiating([A, B, C]);
    h.offer('specialist-a', 1, 10, 300); // best terms, short ttl
    h.clock.increment(300); // ttl − 20 ms margin passed before the others answered
    expect(h.sentTo('specialist-a', 'REJECT-PROPOSAL')[0]?.content).to.deep.include({ reason: 'OFFER_EXPIRED' });
    h.offer('specialist-b', 4, 10, 5000);
    h.offer('specialist-c', 2, 10, 5000);
    expect(h.sentTo('specialist-a', 'ACCEPT-PROPOSAL')).to.have.length(0);
    expect(h.sentTo('specialist-c', 'ACCEPT-PROPOSAL')).to.have.length(1);
    expect(h.notes.map((x) => x.decision)).to.include('offer-expired');
  });

  it('an offer whose ttl is within the margin is rejected on arrival', () => {
    const h = negotiating([A, B]);
    h.offer('specialist-a', 0, 1, 1);
    h.offer('specialist-b', 9, 1, 5000);
    expect(h.sentTo('specialist-a', 'REJECT-PROPOSAL')[0]?.content).to.deep.include({ reason: 'OFFER_EXPIRED' });
    expect(h.sentTo('specialist-b', 'ACCEPT-PROPOSAL')).to.have.length(1);
  });

  it('every offer over the budget: REJECT BUDGET_EXCEEDED to each and FAILURE BUDGET_EXCEEDED (Agora 402) to the Presenter', () => {
    const h = negotiating([A, B], { maxCost: 2 });
    h.offer('specialist-a', 3, 10, 5000);
    h.offer('specialist-b', 7, 10, 5000);
    for (const name of ['specialist-a', 'specialist-b']) expect(h.sentTo(name, 'REJECT-PROPOSAL')[0]?.content).to.deep.include({ reason: 'BUDGET_EXCEEDED' });
    const failure = h.last();
    expect(failure).to.include({ performative: 'FAILURE', receiver: 'Presenter', in_reply_to: h.request.reply_with });
    expect(failure.content.reason).to.equal('BUDGET_EXCEEDED');
    expect(failure.content.detail).to.contain('exceeded the budget (cost 3 > budget 2)');
    expect(h.agora().at(-1)).to.equal('FAILED');
    expect(h.isDone()).to.equal(true);
  });

  it('an offer within the budget wins over a cheaper-looking one above it', () => {
    const h = negotiating([A, B], { maxCost: 5 });
    h.offer('specialist-a', 6, 1, 5000);
    h.offer('specialist-b', 5, 999, 5000);
    expect(h.sentTo('specialist-b', 'ACCEPT-PROPOSAL')).to.have.length(1);
  });

  it('the winner fails: falls back to the next still-valid offer', () => {
    const h = negotiating([A, B, C]);
    h.offer('specialist-a', 1, 10, 5000);
    h.offer('specialist-b', 2, 10, 5000);
    h.offer('specialist-c', 3, 10, 100); // will have expired by the fallback
    const [acceptA] = h.sentTo('specialist-a', 'ACCEPT-PROPOSAL');
    h.clock.increment(200);
    h.reply(acceptA as Envelope, 'FAILURE', { type: 'AGORA_ERROR', code: 500, reason: 'INTERNAL_ERROR', message: 'expert crashed' });
    expect(h.notes).to.deep.include({ decision: 'next-offer', detail: { candidate: 'specialist-a', cause: 'failed INTERNAL_ERROR: expert crashed' } });
    const [acceptB] = h.sentTo('specialist-b', 'ACCEPT-PROPOSAL');
    expect(acceptB).to.not.equal(undefined);
    expect(h.sentTo('specialist-c', 'ACCEPT-PROPOSAL')).to.have.length(0);
    h.reply(acceptB as Envelope, 'INFORM', result('4'));
    expect(h.agora()).to.deep.equal(['PENDING', 'NEGOTIATING', 'PROCESSING', 'PROCESSING', 'COMPLETED']);
  });

  it('the winner does not deliver within the RESULT timeout: CANCEL to it, then the next offer', () => {
    const h = negotiating([A, B]);
    h.offer('specialist-a', 1, 10, 60000);
    h.offer('specialist-b', 2, 10, 60000);
    h.clock.increment(T.resultTimeoutMs);
    const [cancel] = h.sentTo('specialist-a', 'CANCEL');
    expect(cancel?.in_reply_to, 'CANCEL answers the CFP the specialist opened its exchange with').to.equal(h.cfp('specialist-a').reply_with);
    expect(h.sentTo('specialist-b', 'ACCEPT-PROPOSAL')).to.have.length(1);
  });

  it('the winner has no free worker (FAILURE BUSY): the next offer, and NO_CANDIDATE if none is left', () => {
    const h = negotiating([A, B]);
    h.offer('specialist-a', 1, 10, 5000);
    h.offer('specialist-b', 2, 10, 5000);
    const busy = { type: 'AGORA_ERROR', code: 503, reason: 'BUSY', message: 'no worker' };
    h.reply(h.sentTo('specialist-a', 'ACCEPT-PROPOSAL')[0] as Envelope, 'FAILURE', busy);
    h.reply(h.sentTo('specialist-b', 'ACCEPT-PROPOSAL')[0] as Envelope, 'FAILURE', busy);
    expect(h.last().content.reason).to.equal('NO_CANDIDATE');
  });

  it('every accepted offer failed: the §4 verdict from the attempts', () => {
    const h = negotiating([A, B]);
    h.offer('specialist-a', 1, 10, 5000);
    h.reply(h.cfp('specialist-b'), 'REFUSE', { type: 'AGORA_ERROR', code: 503, reason: 'BUSY', message: 'full' });
    h.reply(h.sentTo('specialist-a', 'ACCEPT-PROPOSAL')[0] as Envelope, 'FAILURE', { type: 'AGORA_ERROR', code: 400, reason: 'INVALID_ARGS', message: 'no' });
    expect(h.last().content.reason).to.equal('INVALID_ARGS');
    expect(h.agora().at(-1)).to.equal('FAILED');
  });

  it('the CFP deadline: silent candidates are skipped, the offers so far are compared', () => {
    const h = negotiating([A, B]);
    h.offer('specialist-b', 9, 10, 5000);
    expect(h.sentTo('specialist-b', 'ACCEPT-PROPOSAL')).to.have.length(0);
    h.clock.increment(AGORA.cfpTimeoutMs);
    expect(h.sentTo('specialist-b', 'ACCEPT-PROPOSAL')).to.have.length(1);
    expect(h.notes).to.deep.include({ decision: 'cfp-deadline', detail: { silent: ['specialist-a'], offers: 1 } });
  });

  it('all refuse the CFP: FAILURE NO_CANDIDATE in words, each refusal in the trace', () => {
    const h = negotiating([A, B]);
    for (const n of ['specialist-a', 'specialist-b']) h.reply(h.cfp(n), 'REFUSE', { type: 'AGORA_ERROR', code: 404, reason: 'OUT_OF_SCOPE', message: 'not mine' });
    expect(h.last().content.reason).to.equal('NO_CANDIDATE');
    expect(h.last().content.detail).to.match(/^I can't help with that one\./);
    const note = h.notes.find((n) => n.decision === 'exhausted')?.detail as { attempts: Array<{ candidate: string; reason: string }> };
    expect(note.attempts).to.deep.include({ candidate: 'specialist-a', outcome: 'refused', reason: 'OUT_OF_SCOPE', detail: 'not mine' });
  });

  it('a candidate that does not speak contract-net (NOT-UNDERSTOOD) gets the direct flow', () => {
    const h = negotiating([A, B]);
    h.reply(h.cfp('specialist-a'), 'NOT-UNDERSTOOD', { reason: 'UNEXPECTED_MESSAGE' });
    h.reply(h.cfp('specialist-b'), 'REFUSE', { type: 'AGORA_ERROR', code: 503, reason: 'BUSY', message: 'full' });
    const ask = h.last();
    expect(ask).to.include({ performative: 'REQUEST', receiver: 'specialist-a' });
    expect(ask.content.type).to.equal('ASK_EXPERT');
    expect(h.notes.map((x) => x.decision)).to.include('direct-fallback');
  });

  it('one candidate (auto) or PARLEY_NEGOTIATE=never: the direct flow', () => {
    expect(negotiating([A]).last()).to.include({ performative: 'REQUEST', receiver: 'specialist-a' });
    expect(negotiating([A, B], { mode: 'never' }).last()).to.include({ performative: 'REQUEST', receiver: 'specialist-a' });
    expect(negotiating([A], { mode: 'always' }).cfps).to.have.length(1);
  });

  it('candidates from the candidate cache are negotiated too (no DF lookup)', () => {
    const h = harness(expertMachine, userMsg('what is 3 + 4?'), { agora: AGORA, cached: [A, B] });
    expect(h.sent.map((e) => `${e.performative} ${e.receiver}`)).to.deep.equal(['CFP specialist-a', 'CFP specialist-b']);
  });

  it('the person withdraws while the offer is processed: CANCEL to the winner, REJECT CANCELLED to the rest', () => {
    const h = negotiating([A, B]);
    h.offer('specialist-a', 1, 10, 5000);
    h.offer('specialist-b', 2, 10, 5000);
    h.inbound({ ...h.request, performative: 'CANCEL', in_reply_to: h.request.reply_with, reply_with: 'msg-cancel', content: { reason: 'gone' } });
    expect(h.sentTo('specialist-a', 'CANCEL')).to.have.length(1);
    expect(h.sentTo('specialist-b', 'REJECT-PROPOSAL')[0]?.content).to.deep.include({ reason: 'CANCELLED' });
    expect(h.isDone()).to.equal(true);
  });
});
