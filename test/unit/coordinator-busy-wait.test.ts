// Issue #3: a busy system is slower, not failing. Every candidate busy and no scale-up → the
// Coordinator waits (BUSY_RETRY, back-off with jitter, SimulatedClock) and asks again, within
// the budget; cancel while waiting still ends the exchange.
import { expect } from 'chai';
import { fromPromise } from 'xstate';
import { busyDelay, type BusyRetrySettings, nextWait, onlyBusy } from '../../agents/coordinator/busy-wait.js';
import { expertMachine, type ScaleInput, type ScaleOutput } from '../../agents/coordinator/expert/machine.js';
import type { AgoraSettings } from '../../agents/coordinator/negotiation.js';
import { type Envelope, makeEnvelope } from '../../shared/acl/index.js';
import { harness, userMsg } from './coordinator-harness.js';

const A = 'specialist-a@localhost';
const B = 'specialist-b@localhost';
const RETRY: BusyRetrySettings = { baseMs: 20, maxMs: 1000, budgetMs: 30000 };
const flush = () => new Promise((r) => setImmediate(r));

function started(candidates: string[], extra: object = {}) {
  const request = userMsg('what is 17 * 23?');
  const h = harness(expertMachine, request, { busyRetry: RETRY, ...extra });
  h.reply(h.last(), 'INFORM', { candidates });
  return { ...h, request };
}
const waits = (h: { notes: Array<{ decision: string; detail?: object }> }) =>
  h.notes.filter((n) => n.decision === 'busy-wait').map((n) => (n.detail as { wait_ms: number }).wait_ms);

describe('Coordinator [busy-wait] back-off arithmetic', () => {
  it('doubles from the base up to the cap, with jitter in [0.5, 1) of the full wait', () => {
    const seq = Array.from({ length: 10 }, (_, n) => busyDelay(RETRY, n, 'conv-1'));
    seq.forEach((ms, n) => {
      const full = Math.min(1000, 20 * 2 ** n);
      expect(ms).to.be.within(Math.floor(full / 2), full);
    });
    expect(busyDelay(RETRY, 3, 'conv-1'), 'deterministic for a conversation').to.equal(busyDelay(RETRY, 3, 'conv-1'));
    const spread = new Set(Array.from({ length: 20 }, (_, i) => busyDelay(RETRY, 4, `conv-${i}`)));
    expect(spread.size, 'questions refused together come back apart').to.be.greaterThan(5);
  });

  it('stops when the next wait would pass the budget; off without settings', () => {
    expect(nextWait({ ...RETRY, budgetMs: 100 }, 0, 95, 'c')).to.equal(undefined);
    expect(nextWait({ ...RETRY, budgetMs: 100 }, 0, 0, 'c')).to.be.within(10, 20);
    expect(nextWait(undefined, 0, 0, 'c')).to.equal(undefined);
  });

  it('only busy or out-of-scope refusals (with one busy) count as "everyone busy"', () => {
    expect(onlyBusy([{ candidate: 'a', outcome: 'refused', reason: 'busy' }, { candidate: 'b', outcome: 'refused', reason: 'OUT_OF_SCOPE' }])).to.equal(true);
    expect(onlyBusy([{ candidate: 'a', outcome: 'refused', reason: 'BUSY' }])).to.equal(true);
    expect(onlyBusy([{ candidate: 'b', outcome: 'refused', reason: 'OUT_OF_SCOPE' }])).to.equal(false);
    expect(onlyBusy([{ candidate: 'a', outcome: 'refused', reason: 'busy' }, { candidate: 'b', outcome: 'timeout', reason: 'AGREE' }])).to.equal(false);
  });
});

describe('Coordinator [busy-wait] every candidate busy → wait and ask again, not NO_CANDIDATE', () => {
  it('waits BUSY_RETRY after a round of busy refusals, then asks the same candidates again and answers', () => {
    const h = started([A, B]);
    h.reply(h.last(), 'REFUSE', { reason: 'busy' });
    h.reply(h.last(), 'REFUSE', { reason: 'OUT_OF_SCOPE', detail: 'not mine' });
    const [first] = waits(h);
    expect(first).to.be.within(10, 20);
    const sentBefore = h.sent.length;
    h.clock.increment((first as number) - 1);
    expect(h.sent.length, 'nothing is sent while waiting').to.equal(sentBefore);
    h.clock.increment(1);
    const ask = h.last();
    expect(ask).to.include({ performative: 'REQUEST', receiver: 'specialist-a' });
    expect(ask.conversation_id).to.equal(h.request.conversation_id);
    h.reply(ask, 'AGREE', { status: 'accepted' });
    h.reply(ask, 'INFORM', { type: 'RESULT', result: { answer: '391', meta: {} } });
    h.reply(h.last(), 'INFORM', { type: 'STORED', count: 1 });
    expect(h.last().content).to.deep.include({ type: 'PRESENTER_REPLY', text: '391' });
    expect(h.sent.filter((e) => e.performative === 'FAILURE')).to.have.length(0);
  });

  it('backs off longer each time, and after the budget answers NO_CANDIDATE naming the busy ones', () => {
    const h = started([A], { busyRetry: { ...RETRY, budgetMs: 500 } });
    for (let i = 0; i < 50 && !h.isDone(); i++) {
      h.reply(h.last(), 'REFUSE', { reason: 'busy' });
      const w = waits(h);
      if (!h.isDone()) h.clock.increment(w[w.length - 1] as number);
    }
    const w = waits(h);
    expect(w.length).to.be.within(3, 6);
    expect(w.reduce((a, b) => a + b, 0)).to.be.at.most(500);
    for (let i = 1; i < w.length; i++) expect(w[i] as number).to.be.greaterThan((w[i - 1] as number) * 0.9);
    expect(h.last()).to.include({ performative: 'FAILURE', receiver: 'Presenter' });
    expect(h.last().content).to.deep.include({ reason: 'NO_CANDIDATE' });
    expect(String(h.last().content.detail)).to.match(/busy right now \(specialist-a/);
  });

  it('does not wait when a candidate failed or timed out (not a capacity problem)', () => {
    const h = started([A, B]);
    h.reply(h.last(), 'REFUSE', { reason: 'busy' });
    h.reply(h.last(), 'FAILURE', { reason: 'INTERNAL_ERROR', detail: 'boom' });
    expect(waits(h)).to.deep.equal([]);
    expect(h.last().content).to.include({ reason: 'INTERNAL_ERROR' });
  });

  it('a CANCEL from the Presenter while waiting ends the exchange silently', () => {
    const h = started([A]);
    h.reply(h.last(), 'REFUSE', { reason: 'busy' });
    expect(waits(h)).to.have.length(1);
    h.inbound(makeEnvelope({
      performative: 'CANCEL', sender: 'Presenter', receiver: 'Coordinator', conversation_id: h.request.conversation_id,
      in_reply_to: h.request.reply_with, content: { reason: 'the person left' },
    }));
    expect(h.isDone()).to.equal(true);
    const n = h.sent.length;
    h.clock.increment(5000);
    expect(h.sent.length).to.equal(n);
  });

  it('a refused scale-up (no supervisor) waits instead of failing, and does not ask to scale again', async () => {
    const calls: ScaleInput[] = [];
    const machine = expertMachine.provide({
      actors: {
        scale: fromPromise<ScaleOutput, ScaleInput>(async ({ input }) => {
          calls.push(input);
          throw new Error('no supervisor is running for this PARLEY_HOME');
        }),
      },
    });
    const request = userMsg('what is 2 + 2?');
    const h = harness(machine, request, { canScale: true, busyRetry: RETRY });
    h.reply(h.last(), 'INFORM', { candidates: [A] });
    h.reply(h.last(), 'REFUSE', { reason: 'busy' });
    await flush();
    expect(h.notes.map((n) => n.decision)).to.include.members(['scale-up', 'scale-up-refused', 'busy-wait']);
    h.clock.increment(waits(h)[0] as number);
    h.reply(h.last(), 'REFUSE', { reason: 'busy' });
    await flush();
    expect(calls, 'one scale-up request per question').to.have.length(1);
    expect(waits(h)).to.have.length(2);
  });

  it('negotiated: BUSY to every ACCEPT → waits, then a fresh CFP round', () => {
    const agora: AgoraSettings = { mode: 'always', cfpTimeoutMs: 3000, acceptMarginMs: 20 };
    const h = started([A], { agora });
    const cfp = h.last();
    expect(cfp.performative).to.equal('CFP');
    const propose = h.reply(cfp, 'PROPOSE', { type: 'AGORA_OFFER', request_id: cfp.reply_with, offer_id: 'o1', cost: 1, ttl: 5000, eta: 10 });
    const accept = h.sent.filter((e) => e.performative === 'ACCEPT-PROPOSAL').at(-1) as Envelope;
    expect(accept).to.include({ in_reply_to: propose.reply_with });
    expect(h.last()).to.deep.include({ performative: 'AGREE', receiver: 'Presenter', content: { status: 'accepted', by: 'specialist-a' } });
    h.reply(accept, 'FAILURE', { type: 'AGORA_ERROR', code: 503, message: 'no free worker', reason: 'BUSY' });
    expect(waits(h)).to.have.length(1);
    h.clock.increment(waits(h)[0] as number);
    const again = h.last();
    expect(again.performative).to.equal('CFP');
    expect(again.reply_with).to.not.equal(cfp.reply_with);
  });
});
