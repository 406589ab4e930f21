// The answer ahead of STORED (agents/coordinator/kb-health.ts): while the KB keeps the facts it is
// sent, PRESENTER_REPLY follows its STORE_FACT at once; a failed or silent store makes the next
// answers wait for the KB again, so a KB that is down is noted on them (seed contract §4).
import { expect } from 'chai';
import { contentByteSize, type Envelope, MAX_CONTENT_BYTES } from '../../shared/acl/index.js';
import { assign } from 'xstate';
import { expertMachine } from '../../agents/coordinator/expert/machine.js';
import { KbHealth } from '../../agents/coordinator/kb-health.js';
import type { KbOutcome } from '../../agents/coordinator/replies.js';
import { harness, T, userMsg } from './coordinator-harness.js';

const A = 'specialist-a@localhost';

/** The expert flow as factory.ts provides it, with `kb` as the Coordinator's KbHealth. */
const withHealth = (kb: KbHealth) => expertMachine.provide({
  actions: {
    checkKb: assign(() => ({ kbAhead: kb.healthy() })),
    reportKb: (_, p: { kb: KbOutcome }) => kb.report(p.kb),
  },
});

/** One question up to the specialist's RESULT: the STORE_FACT is the last envelope sent. */
function answered(kb: KbHealth) {
  const h = harness(withHealth(kb), userMsg('How far is the moon?'));
  h.reply(h.last(), 'INFORM', { candidates: [A] });
  const ask = h.last();
  h.reply(ask, 'AGREE', { status: 'accepted' });
  h.reply(ask, 'INFORM', { type: 'RESULT', result: { answer: 'About 384,400 km.', meta: {} } });
  const store = h.sent.find((e) => e.content.type === 'STORE_FACT');
  if (!store) throw new Error('no STORE_FACT');
  const replies = () => h.sent.filter((e) => e.content.type === 'PRESENTER_REPLY');
  return { ...h, store, replies };
}

describe('Coordinator [kb ahead] the answer does not wait for STORED while the KB keeps facts', () => {
  it('unknown health (at start): the answer waits for STORED, then the next one goes ahead', () => {
    const kb = new KbHealth();
    const first = answered(kb);
    expect(first.replies(), 'nothing before the KB answered').to.have.length(0);
    first.reply(first.store, 'INFORM', { type: 'STORED', count: 1 });
    expect(first.replies()[0]?.content).to.deep.equal({ type: 'PRESENTER_REPLY', text: 'About 384,400 km.', rich: { answered_by: 'specialist-a', kb: 'stored' } });
    expect(first.isDone()).to.equal(true);
    expect(kb.healthy()).to.equal(true);

    const second = answered(kb);
    const kinds = second.sent.map((e) => e.content.type ?? e.performative);
    expect(kinds.slice(-2), 'STORE_FACT, then the answer at once (seed contract §3 order)').to.deep.equal(['STORE_FACT', 'PRESENTER_REPLY']);
    expect(second.replies()[0]?.content).to.deep.include({ rich: { answered_by: 'specialist-a', kb: 'pending' } });
    expect(second.isDone(), 'the exchange stays for the KB\'s answer').to.equal(false);
    second.reply(second.store, 'INFORM', { type: 'STORED', count: 1 });
    expect(second.isDone()).to.equal(true);
    expect(second.notes.find((n) => n.decision === 'kb-after-answer')?.detail).to.deep.equal({ kb: 'stored' });
    expect(second.replies(), 'one answer only').to.have.length(1);
  });

  it('a store that times out after an answer went ahead: the next answer waits and is marked KB_UNAVAILABLE', () => {
    const kb = new KbHealth();
    kb.report('stored');
    const ahead = answered(kb);
    expect(ahead.replies()).to.have.length(1);
    ahead.clock.increment(T.kbTimeoutMs);
    expect(ahead.isDone()).to.equal(true);
    expect(ahead.notes.find((n) => n.decision === 'kb-after-answer')?.detail).to.deep.equal({ kb: 'KB_UNAVAILABLE' });
    expect(kb.healthy()).to.equal(false);

    const next = answered(kb);
    expect(next.replies(), 'waits for the KB now').to.have.length(0);
    next.clock.increment(T.kbTimeoutMs);
    expect(next.replies()[0]?.content).to.deep.include({ rich: { answered_by: 'specialist-a', kb: 'KB_UNAVAILABLE' } });
  });

  it('an error answer to the STORE_FACT after an answer went ahead opens the breaker too (KB_STORE_FAILED)', () => {
    const kb = new KbHealth();
    kb.report('stored');
    const ahead = answered(kb);
    ahead.reply(ahead.store, 'FAILURE', { reason: 'KB_STORE_FAILED', detail: 'disk full' });
    expect(ahead.isDone()).to.equal(true);
    expect(ahead.notes.find((n) => n.decision === 'kb-after-answer')?.detail).to.deep.equal({ kb: 'KB_STORE_FAILED' });
    const next = answered(kb);
    expect(next.replies()).to.have.length(0);
    next.reply(next.store, 'FAILURE', { reason: 'KB_STORE_FAILED', detail: 'disk full' });
    expect(next.replies()[0]?.content).to.deep.include({ rich: { answered_by: 'specialist-a', kb: 'KB_STORE_FAILED' } });
  });

  it('the pure machine (no KbHealth provided) always waits for STORED', () => {
    const h = harness(expertMachine, userMsg('How far is the moon?'));
    h.reply(h.last(), 'INFORM', { candidates: [A] });
    const ask = h.last();
    h.reply(ask, 'INFORM', { type: 'RESULT', result: { answer: '1', meta: {} } });
    expect(h.sent.filter((e) => e.content.type === 'PRESENTER_REPLY')).to.have.length(0);
  });
});

describe('Coordinator [kb fact] what the KB is sent always fits', () => {
  it('a long question with a long answer: the STORE_FACT keeps an abridged copy within 64 kB; the person reads it all', () => {
    const question = `what ${'ż'.repeat(15_000)}?`; // 30 kB of UTF-8
    const answer = '€'.repeat(20_000); // 60 kB: together over the 64 kB a message may carry
    const h = harness(expertMachine, userMsg(question));
    h.reply(h.last(), 'INFORM', { candidates: [A] });
    h.reply(h.last(), 'INFORM', { type: 'RESULT', result: { answer, meta: {} } });
    const store = h.sent.find((e) => e.content.type === 'STORE_FACT');
    expect(store, 'the STORE_FACT went out').to.not.equal(undefined);
    expect(contentByteSize(store?.content)).to.be.at.most(MAX_CONTENT_BYTES);
    const value = (store?.content as { fact: { value: { question: string; answer: string } } }).fact.value;
    expect(value.question).to.have.length(2001).and.match(/^what ż+…$/);
    expect(value.answer).to.match(/^€+…$/);
    expect(value.answer.length).to.be.above(10_000);
    h.reply(store as Envelope, 'INFORM', { type: 'STORED', count: 1 });
    const reply = h.sent.find((e) => e.content.type === 'PRESENTER_REPLY');
    expect((reply?.content as { text?: string }).text).to.equal(answer);
  });
});

describe('Coordinator [kb ahead] the KB\'s presence', () => {
  const KB = 'kb@localhost';
  it('unavailable presence from the KB opens the breaker at once; available lifts it, and the next answer waits for a STORED', () => {
    const kb = new KbHealth();
    const watch = kb.watch(KB);
    kb.report('stored');
    expect(kb.healthy()).to.equal(true);
    watch({ attrs: { from: `${KB}/agent`, type: 'unavailable' } });
    expect(kb.healthy(), 'the KB went away').to.equal(false);
    const waiting = answered(kb);
    expect(waiting.replies(), 'waits for the KB').to.have.length(0);
    watch({ attrs: { from: `${KB}/agent` } });
    expect(kb.healthy(), 'back, but not yet shown to store').to.equal(false);
    kb.report('stored');
    expect(kb.healthy()).to.equal(true);
  });

  it('attack: presence from another account (or the KB\'s name at another domain) changes nothing', () => {
    const kb = new KbHealth();
    const watch = kb.watch(KB);
    kb.report('stored');
    for (const from of ['mallory@localhost/kb', 'kb@evil.example/agent', 'kb@localhost.evil/agent', 'KB']) watch({ attrs: { from, type: 'unavailable' } });
    expect(kb.healthy()).to.equal(true);
    watch({ attrs: { from: `${KB}/agent`, type: 'subscribe' } });
    expect(kb.healthy(), 'a subscription request is not a session').to.equal(true);
  });
});
