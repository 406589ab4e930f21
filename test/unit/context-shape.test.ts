// The Coordinator's expert context stays a fast V8 object through its flows (issue 15, stop 35).
// xstate copies a context with Object.assign on every assign; an object that grows past ~16 keys
// that way becomes a hash table, and then every assign and read of the flow is several times
// slower. expert/machine.ts declares every key at the start; a key added later by an assign
// without being declared there fails this test. (Not timed: V8's own predicate on the object.)
import { expect } from 'chai';
import v8 from 'node:v8';
import { type AnyActorRef, assign, createActor, createMachine } from 'xstate';
import type { Envelope } from '../../shared/acl/index.js';
import { expertMachine } from '../../agents/coordinator/expert/machine.js';
import type { AgoraSettings } from '../../agents/coordinator/negotiation.js';
import { harness, userMsg } from './coordinator-harness.js';

// A parser flag: it applies to code compiled after it is set, such as the Function below.
v8.setFlagsFromString('--allow-natives-syntax');
const hasFastProperties = new Function('o', 'return %HasFastProperties(o)') as (o: object) => boolean;

const A = 'specialist-a@localhost';
const B = 'specialist-b@localhost';
const AGORA: AgoraSettings = { mode: 'auto', cfpTimeoutMs: 1000, acceptMarginMs: 20 };

/** Every context the actor has from now on, with the key count, for the assertion. */
function watch(actor: AnyActorRef): Array<{ fast: boolean; keys: number; state: string }> {
  const seen: Array<{ fast: boolean; keys: number; state: string }> = [];
  const look = (s: { context: object; value: unknown }) => seen.push({ fast: hasFastProperties(s.context), keys: Object.keys(s.context).length, state: JSON.stringify(s.value) });
  look(actor.getSnapshot());
  actor.subscribe((s) => look(s));
  return seen;
}

describe('Coordinator [context shape] the expert context stays a fast object (issue 15)', () => {
  it('the direct flow: DF lookup, REFUSE busy, the next candidate, RESULT, STORED', () => {
    const h = harness(expertMachine, userMsg('How far is the moon?'));
    const seen = watch(h.actor);
    h.reply(h.last(), 'INFORM', { candidates: [A, B] });
    h.reply(h.last(), 'REFUSE', { reason: 'busy' });
    const ask = h.last();
    expect(ask.receiver).to.equal('specialist-b');
    h.reply(ask, 'AGREE', { status: 'accepted' });
    h.reply(ask, 'INFORM', { type: 'RESULT', result: { answer: 'About 384,400 km.', meta: {} } });
    h.reply(h.sent.find((e) => e.content.type === 'STORE_FACT') as Envelope, 'INFORM', { type: 'STORED', count: 1 });
    expect(h.isDone()).to.equal(true);
    expect(seen.length).to.be.greaterThan(4);
    expect(seen.filter((s) => !s.fast), 'contexts that became hash tables').to.deep.equal([]);
    expect(seen[0]?.keys, 'every key declared at the start').to.equal(seen[seen.length - 1]?.keys);
  });

  it('the negotiated flow: CFPs, offers, ACCEPT, RESULT, STORED', () => {
    const h = harness(expertMachine, userMsg('what is 2 + 2?'), { agora: AGORA });
    const seen = watch(h.actor);
    h.reply(h.last(), 'INFORM', { candidates: [A, B] });
    const cfps = h.sent.filter((e) => e.performative === 'CFP');
    expect(cfps).to.have.length(2);
    cfps.forEach((cfp, i) => h.reply(cfp, 'PROPOSE', { type: 'AGORA_OFFER', request_id: cfp.reply_with, offer_id: `o${i}`, cost: i + 1, ttl: 5000, eta: 10 }));
    const accept = h.sent.find((e) => e.performative === 'ACCEPT-PROPOSAL') as Envelope;
    h.reply(accept, 'INFORM', { type: 'AGORA_RESULT', request_id: 'r', status: 'success', data: { answer: '4', meta: {} } });
    h.reply(h.sent.find((e) => e.content.type === 'STORE_FACT') as Envelope, 'INFORM', { type: 'STORED', count: 1 });
    expect(h.isDone()).to.equal(true);
    expect(seen.filter((s) => !s.fast), 'contexts that became hash tables').to.deep.equal([]);
    expect(seen[0]?.keys).to.equal(seen[seen.length - 1]?.keys);
  });

  it('the negative control: a context with a spread of optional keys, as expert/machine.ts had it, becomes a hash table', () => {
    const optional = (on: boolean) => (on ? { user: 'alice' } : {});
    const machine = createMachine({
      context: () => ({
        a0: 0, a1: 1, a2: 2, a3: 3, a4: 4, a5: 5, a6: 6, a7: 7, a8: 8, a9: 9, ...optional(false),
        b0: 0, b1: 1, b2: 2, b3: 3, b4: 4, b5: 5, b6: 6, b7: 7, b8: 8, b9: 9,
      }),
      on: { set: { actions: assign({ a3: 33 }) } },
    });
    const actor = createActor(machine).start();
    actor.send({ type: 'set' });
    expect(hasFastProperties(actor.getSnapshot().context)).to.equal(false);
  });
});
