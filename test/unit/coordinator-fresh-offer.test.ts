// Issue #3: PARLEY_NEGOTIATE=auto costs a CFP/PROPOSE round per question. While the winning
// offer of a negotiation is still valid (its ttl) and the candidates are the same, another round
// would pick the same specialist: the question goes straight to it (the direct flow).
import { expect } from 'chai';
import { WinnerMemory } from '../../agents/coordinator/candidate-cache.js';
import { userMsgFactory } from '../../agents/coordinator/factory.js';
import type { AgoraSettings } from '../../agents/coordinator/negotiation.js';
import { identify } from '../../shared/runtime/index.js';
import { DOMAIN, harness, T, userMsg } from './coordinator-harness.js';

const A = 'specialist-a@localhost';
const B = 'specialist-b@localhost';
const C = 'specialist-c@localhost';
const auto: AgoraSettings = { mode: 'auto', cfpTimeoutMs: 3000, acceptMarginMs: 20 };

function ask(winners: WinnerMemory, text: string, agora: AgoraSettings = auto) {
  const factory = userMsgFactory({ self: 'Coordinator', domain: DOMAIN, timeouts: T, winners, agora });
  const request = userMsg(text);
  const { machine, input } = factory(request, identify('presenter@localhost', DOMAIN));
  return harness(machine, request, input as object);
}

/** Negotiates "what is 17 * 23?" among A and B; B offers cheaper and wins. */
function negotiated(winners: WinnerMemory, candidates = [A, B], agora: AgoraSettings = auto) {
  const h = ask(winners, 'what is 17 * 23?', agora);
  h.reply(h.last(), 'INFORM', { candidates });
  const cfps = h.sent.filter((e) => e.performative === 'CFP');
  for (const cfp of cfps) {
    const cost = cfp.receiver === 'specialist-b' ? 1 : 5;
    h.reply(cfp, 'PROPOSE', { type: 'AGORA_OFFER', request_id: cfp.reply_with, offer_id: `o-${cfp.receiver}`, cost, ttl: 5000, eta: 10 });
  }
  const accept = h.sent.find((e) => e.performative === 'ACCEPT-PROPOSAL');
  expect(accept?.receiver).to.equal('specialist-b');
  h.reply(accept!, 'INFORM', { type: 'AGORA_RESULT', request_id: 'x', status: 'success', data: { answer: '391' } });
  h.reply(h.last(), 'INFORM', { type: 'STORED', count: 1 });
  expect(h.last().content).to.deep.include({ type: 'PRESENTER_REPLY' });
  return h;
}

describe('Coordinator [fresh offer] a negotiation winner is reused while its offer is valid (auto)', () => {
  it('the next question of the same shape goes straight to the winner: REQUEST ASK_EXPERT, no CFP', () => {
    let now = 0;
    const winners = new WinnerMemory(() => now);
    negotiated(winners);
    now += 1000;
    const h = ask(winners, 'what is 6 * 7?');
    h.reply(h.last(), 'INFORM', { candidates: [A, B] });
    expect(h.sent.map((e) => `${e.performative} ${e.receiver}`)).to.deep.equal(['QUERY-REF Registry', 'REQUEST specialist-b']);
    expect(h.notes).to.deep.include({ decision: 'fresh-offer', detail: { candidate: 'specialist-b' } });
    // the others stay fallbacks: B refuses → A, in the direct flow
    h.reply(h.last(), 'REFUSE', { reason: 'OUT_OF_SCOPE' });
    expect(h.last()).to.include({ performative: 'REQUEST', receiver: 'specialist-a' });
  });

  it('negotiates again once the offer ttl (less the margin) ran out, for another candidate set, or in mode always', () => {
    let now = 0;
    const winners = new WinnerMemory(() => now);
    negotiated(winners);
    now += 4980;
    const late = ask(winners, 'what is 6 * 7?');
    late.reply(late.last(), 'INFORM', { candidates: [A, B] });
    expect(late.last().performative).to.equal('CFP');

    negotiated(winners);
    const joined = ask(winners, 'what is 6 * 7?');
    joined.reply(joined.last(), 'INFORM', { candidates: [A, B, C] });
    expect(joined.sent.filter((e) => e.performative === 'CFP')).to.have.length(3);

    const always = ask(winners, 'what is 6 * 7?', { ...auto, mode: 'always' });
    always.reply(always.last(), 'INFORM', { candidates: [A, B] });
    expect(always.sent.filter((e) => e.performative === 'CFP')).to.have.length(2);
  });

  it('refreshes ahead: in the last third of the ttl one question negotiates, the others keep the winner', () => {
    let now = 0;
    const winners = new WinnerMemory(() => now);
    winners.put('what is 6 * 7?', [A, B], A, 3000);
    now = 1999;
    expect(winners.get('what is 1 * 2?', [A, B])).to.equal(A);
    now = 2000; // two thirds of the ttl: the first caller negotiates anew…
    expect(winners.get('what is 1 * 2?', [A, B])).to.equal(undefined);
    // …while every other one still goes to the winner, until the offer really expires.
    expect(winners.get('what is 3 * 4?', [A, B])).to.equal(A);
    now = 2999;
    expect(winners.get('what is 3 * 4?', [A, B])).to.equal(A);
    winners.put('what is 1 * 2?', [A, B], B, 3000); // the refresh picked B: a new ttl
    now = 3500;
    expect(winners.get('what is 5 * 6?', [A, B])).to.equal(B);
    now = 6000;
    expect(winners.get('what is 5 * 6?', [A, B])).to.equal(undefined); // expired: nobody keeps it
  });

  it('a turn that ends badly forgets the winner: the next question negotiates', () => {
    const winners = new WinnerMemory();
    negotiated(winners);
    const h = ask(winners, 'what is 6 * 7?');
    h.reply(h.last(), 'INFORM', { candidates: [A, B] });
    h.reply(h.last(), 'FAILURE', { reason: 'INTERNAL_ERROR', detail: 'boom' });
    expect(winners.get('what is 1 * 1?', ['specialist-a', 'specialist-b'])).to.equal(undefined);
  });
});
