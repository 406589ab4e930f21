import { expect } from 'chai';
import { createActor, fromPromise, SimulatedClock } from 'xstate';
import { type Envelope, makeEnvelope, ParleyError } from '../../shared/acl/index.js';
import { VARIABLES } from '../../shared/config/index.js';
import { validateEnvelope } from '../../shared/contracts/index.js';
import { silentLogger } from '../../shared/log/index.js';
import { Router } from '../../shared/runtime/index.js';
import { askExpertExchange, type CfpExchangeDeps, hostedExchanges, Slots } from '../../agents/specialist/exchange.js';
import { type Expert, inProcessSkills } from '../../shared/skills/expert.js';
import { askExpertMachine, type ComputeInput, type ComputeOutput } from '../../agents/specialist/machine.js';

const flush = () => new Promise((r) => setImmediate(r));
const COORDINATOR = { jid: 'coordinator@localhost', name: 'Coordinator', role: 'coordinator' as const };

function request(question: string, conversation = 'sess-spec-1'): Envelope {
  return makeEnvelope({
    performative: 'REQUEST', sender: 'Coordinator', receiver: 'specialist-math', conversation_id: conversation,
    content: { type: 'ASK_EXPERT', args: { question }, context_ref: { session_id: conversation } },
  });
}
const cancelOf = (req: Envelope) => makeEnvelope({
  performative: 'CANCEL', sender: 'Coordinator', receiver: 'specialist-math', conversation_id: req.conversation_id,
  in_reply_to: req.reply_with, content: { reason: 'SPECIALIST_TIMEOUT' },
});

function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => [resolve, reject] = [res, rej]);
  return { promise, resolve, reject };
}

function start(opts: { busy?: boolean; expert?: string | null; compute?: (i: ComputeInput) => Promise<ComputeOutput> } = {}) {
  const clock = new SimulatedClock();
  const sent: Envelope[] = [];
  const calls: ComputeInput[] = [];
  let released = 0;
  const req = request('what is 17 * 23?');
  const machine = askExpertMachine.provide({
    actors: { compute: fromPromise<ComputeOutput, ComputeInput>(({ input }) => (calls.push(input), (opts.compute ?? (() => new Promise(() => undefined)))(input))) },
    actions: { releaseSlot: () => void (released += 1) },
  });
  const actor = createActor(machine, {
    clock,
    input: { request: req, from: COORDINATOR, self: 'specialist-math', busy: opts.busy ?? false, expert: opts.expert === undefined ? 'arithmetic' : opts.expert, scope: 'arithmetic', computeMs: 10000 },
  });
  actor.on('send', (e) => sent.push(e.envelope));
  actor.start();
  return { actor, clock, sent, calls, req, released: () => released };
}

function expectReplies(sent: Envelope[], req: Envelope, performatives: string[]) {
  expect(sent.map((e) => e.performative)).to.deep.equal(performatives);
  for (const e of sent) {
    expect(e).to.include({ in_reply_to: req.reply_with, conversation_id: req.conversation_id, sender: 'specialist-math', receiver: 'Coordinator' });
    expect(validateEnvelope(e), JSON.stringify(e.content)).to.include({ ok: true });
  }
}

describe('Specialist [ask] ASK_EXPERT exchange (seed contract §2.3)', () => {
  it('AGREEs at once, then INFORMs the RESULT, and frees its slot', async () => {
    const t = start({ compute: async () => ({ answer: '391', meta: { expert: 'arithmetic' } }) });
    expectReplies(t.sent, t.req, ['AGREE']);
    expect(t.sent[0]?.content).to.deep.equal({ status: 'accepted' });
    await flush();
    expectReplies(t.sent, t.req, ['AGREE', 'INFORM']);
    expect(t.sent[1]?.content).to.deep.equal({ type: 'RESULT', result: { answer: '391', meta: { expert: 'arithmetic' } } });
    expect(t.calls).to.deep.equal([{ expert: 'arithmetic', question: 'what is 17 * 23?', args: { question: 'what is 17 * 23?' }, session_id: 'sess-spec-1', self: 'specialist-math', key: `specialist-math|${t.req.reply_with}` }]);
    expect(t.actor.getSnapshot().status).to.equal('done');
    expect(t.released()).to.equal(1);
  });

  it('REFUSEs busy at the concurrency limit without computing', () => {
    const t = start({ busy: true });
    expectReplies(t.sent, t.req, ['REFUSE']);
    expect(t.sent[0]?.content).to.deep.include({ reason: 'busy' });
    expect(t.calls).to.have.length(0);
    expect(t.actor.getSnapshot().status).to.equal('done');
    expect(t.released()).to.equal(0);
  });

  it('REFUSEs OUT_OF_SCOPE when no expert recognises the question', () => {
    const t = start({ expert: null });
    expectReplies(t.sent, t.req, ['REFUSE']);
    expect(t.sent[0]?.content).to.deep.include({ reason: 'OUT_OF_SCOPE' });
    expect((t.sent[0]?.content as { detail: string }).detail).to.match(/no skill of specialist-math recognises/);
  });

  it('answers FAILURE INVALID_ARGS when the expert cannot evaluate the arguments', async () => {
    const t = start({ compute: async () => { throw new ParleyError('INVALID_ARGS', 'unknown unit or name: blorps'); } });
    await flush();
    expectReplies(t.sent, t.req, ['AGREE', 'FAILURE']);
    expect(t.sent[1]?.content).to.deep.equal({ reason: 'INVALID_ARGS', detail: 'unknown unit or name: blorps' });
    expect(t.released()).to.equal(1);
  });

  it('answers FAILURE INTERNAL_ERROR when the expert throws', async () => {
    const t = start({ compute: async () => { throw new TypeError('boom'); } });
    await flush();
    expectReplies(t.sent, t.req, ['AGREE', 'FAILURE']);
    expect(t.sent[1]?.content).to.deep.equal({ reason: 'INTERNAL_ERROR', detail: 'boom' });
  });

  it('answers FAILURE TIMEOUT exactly at the COMPUTE_TIMEOUT delay', async () => {
    const t = start();
    t.clock.increment(9999);
    await flush();
    expectReplies(t.sent, t.req, ['AGREE']);
    t.clock.increment(1);
    expectReplies(t.sent, t.req, ['AGREE', 'FAILURE']);
    expect(t.sent[1]?.content).to.deep.include({ reason: 'TIMEOUT' });
    expect(t.actor.getSnapshot().status).to.equal('done');
    expect(t.released()).to.equal(1);
  });

  it('stops silently on CANCEL and never sends the late RESULT', async () => {
    const work = deferred<ComputeOutput>();
    const t = start({ compute: () => work.promise });
    t.actor.send({ type: 'inbound', envelope: cancelOf(t.req) });
    expect(t.actor.getSnapshot().value).to.equal('cancelled');
    expect(t.released()).to.equal(1);
    work.resolve({ answer: '391', meta: {} });
    await flush();
    t.clock.increment(20000);
    expectReplies(t.sent, t.req, ['AGREE']);
  });
});

/** PARLEY_SPECIALIST_AGREE_AFTER_MS's default (docs/bench.md stop 26; 0 agrees at once). */
const DEFAULT_AGREE_AFTER_MS = 250;
describe('Specialist [agree] the AGREE waits for a quick answer by default', () => {
  it('PARLEY_SPECIALIST_AGREE_AFTER_MS defaults to 250 ms', () => expect(VARIABLES.PARLEY_SPECIALIST_AGREE_AFTER_MS.default).to.equal(DEFAULT_AGREE_AFTER_MS));
});

describe('Specialist [slots] concurrency through the router', () => {
  function harness(limit: number) {
    const pending: Array<ReturnType<typeof deferred<string>>> = [];
    const slow: Expert = {
      name: 'slow', description: 'test', topics: [], examples: ['anything slow'],
      recognise: (q) => q.startsWith('slow'),
      answer: () => { const d = deferred<string>(); pending.push(d); return d.promise; },
    };
    const sent: Envelope[] = [];
    const slots = new Slots(limit);
    const clock = new SimulatedClock();
    const router = new Router({ logger: silentLogger(), clock, send: (e) => sent.push(e), note: () => undefined, crashed: () => undefined });
    router.on('ASK_EXPERT', askExpertExchange({ skills: inProcessSkills([slow]), slots, computeMs: 10000, agreeAfterMs: DEFAULT_AGREE_AFTER_MS }));
    const ask = (q: string, n: number) => {
      const req = request(q, `sess-slots-${n}`);
      router.deliver(req, 'ASK_EXPERT', COORDINATOR);
      return req;
    };
    const repliesTo = (req: Envelope) => sent.filter((e) => e.in_reply_to === req.reply_with).map((e) => `${e.performative} ${JSON.stringify(e.content)}`);
    // A slow skill's AGREE waits DEFAULT_AGREE_AFTER_MS for the answer (machine.ts), then goes out.
    const settle = async () => {
      await flush();
      clock.increment(DEFAULT_AGREE_AFTER_MS);
      await flush();
    };
    return { router, slots, pending, ask, repliesTo, settle };
  }

  it('REFUSEs busy over the limit and accepts again once a slot is free', async () => {
    const h = harness(2);
    const [a, b, c] = [h.ask('slow 1', 1), h.ask('slow 2', 2), h.ask('slow 3', 3)];
    expect(h.repliesTo(c)[0]).to.match(/^REFUSE \{"reason":"busy"/); // at once: no recognition needed
    await flush(); // recognition runs in the skills' workers, so AGREE follows it, once the skill took its time
    expect(h.repliesTo(a)).to.deep.equal([]);
    expect(h.slots.inFlight).to.equal(2);
    await h.settle();
    expect(h.repliesTo(a)).to.deep.equal(['AGREE {"status":"accepted"}']);
    expect(h.repliesTo(b)).to.deep.equal(['AGREE {"status":"accepted"}']);
    expect(h.slots.inFlight).to.equal(2);
    h.pending[0]?.resolve('done 1');
    await flush();
    expect(h.repliesTo(a)[1]).to.equal('INFORM {"type":"RESULT","result":{"answer":"done 1","meta":{"expert":"slow"}}}');
    expect(h.slots.inFlight).to.equal(1);
    const d = h.ask('slow 4', 4);
    await h.settle();
    expect(h.repliesTo(d)).to.deep.equal(['AGREE {"status":"accepted"}']);
    expect(h.router.size).to.equal(2);
  });

  it('an out-of-scope question holds no slot once refused, and a CANCEL frees one', async () => {
    const h = harness(1);
    const out = h.ask('what is the meaning of life?', 1);
    await flush();
    expect(h.repliesTo(out)[0]).to.match(/^REFUSE \{"reason":"OUT_OF_SCOPE"/);
    expect(h.slots.inFlight).to.equal(0);
    const a = h.ask('slow 1', 2);
    await flush();
    expect(h.slots.inFlight).to.equal(1);
    expect(h.router.deliver(cancelOf(a), 'CANCEL', COORDINATOR)).to.deep.include({ outcome: 'routed' });
    expect(h.slots.inFlight).to.equal(0);
    expect(h.router.size).to.equal(0);
    const again = h.ask('slow 2', 3);
    await h.settle();
    expect(h.repliesTo(again)).to.deep.equal(['AGREE {"status":"accepted"}']);
  });

  it('attack on the deferred AGREE: an answer ready in time goes out alone, exactly once; a slow one is agreed first, once', async () => {
    const h = harness(2);
    const quick = h.ask('slow quick', 1);
    await flush();
    h.pending[0]?.resolve('done quick');
    await flush();
    const slow = h.ask('slow late', 2);
    await h.settle();
    await h.settle(); // more time passing sends nothing more
    expect(h.repliesTo(quick)).to.deep.equal(['INFORM {"type":"RESULT","result":{"answer":"done quick","meta":{"expert":"slow"}}}']);
    expect(h.repliesTo(slow)).to.deep.equal(['AGREE {"status":"accepted"}']);
    h.pending[1]?.resolve('done late');
    await flush();
    expect(h.repliesTo(slow).map((r) => r.split(' ')[0])).to.deep.equal(['AGREE', 'INFORM']);
    expect(h.slots.inFlight).to.equal(0);
  });

  it('PARLEY_SPECIALIST_AGREE_AFTER_MS=0 (agreeAfterMs 0): AGREE at once, as before', async () => {
    const sent: Envelope[] = [];
    const router = new Router({ logger: silentLogger(), clock: new SimulatedClock(), send: (e) => sent.push(e), note: () => undefined, crashed: () => undefined });
    const quick: Expert = { name: 'quick', description: 'test', topics: [], examples: ['quick'], recognise: () => true, answer: async () => 'ok' };
    router.on('ASK_EXPERT', askExpertExchange({ skills: inProcessSkills([quick]), slots: new Slots(1), computeMs: 10000, agreeAfterMs: 0 }));
    const req = request('quick one', 'sess-agree-0');
    router.deliver(req, 'ASK_EXPERT', COORDINATOR);
    await flush();
    expect(sent.filter((e) => e.in_reply_to === req.reply_with).map((e) => e.performative)).to.deep.equal(['AGREE', 'INFORM']);
  });
});

describe('Specialist [hosted] one provided machine for a host\'s agents', () => {
  it('keeps each agent\'s slots and runner its own: one agent busy, the other still serves, and runs its own jobs', async () => {
    const pending: Array<ReturnType<typeof deferred<string>>> = [];
    const ran: string[] = [];
    const slow = (who: string): Expert => ({
      name: 'slow', description: 'test', topics: [], examples: ['anything slow'],
      recognise: (q) => q.startsWith('slow'),
      answer: () => { ran.push(who); const d = deferred<string>(); pending.push(d); return d.promise; },
    });
    const deps = (who: string): CfpExchangeDeps => ({ skills: inProcessSkills([slow(who)]), slots: new Slots(1), offers: new Slots(4), computeMs: 10000, agreeAfterMs: 0, terms: () => ({ cost: 1, etaMs: 1, ttlMs: 1000 }) });
    const parts = new Map([['specialist-a', deps('a')], ['specialist-b', deps('b')]]);
    const shared = deps('shared');
    const ex = hostedExchanges((self) => (self === undefined ? shared : parts.get(self) ?? shared));
    const sent: Envelope[] = [];
    const router = new Router({ logger: silentLogger(), clock: new SimulatedClock(), send: (e) => sent.push(e), note: () => undefined, crashed: () => undefined });
    router.on('ASK_EXPERT', ex.ask);
    const ask = (to: string, n: number) => {
      const req = makeEnvelope({
        performative: 'REQUEST', sender: 'Coordinator', receiver: to, conversation_id: `sess-h-${n}`,
        content: { type: 'ASK_EXPERT', args: { question: `slow ${n}` }, context_ref: { session_id: `sess-h-${n}` } },
      });
      router.deliver(req, 'ASK_EXPERT', COORDINATOR);
      return req;
    };
    const replies = (req: Envelope) => sent.filter((e) => e.in_reply_to === req.reply_with).map((e) => e.performative);
    const a1 = ask('specialist-a', 1);
    const a2 = ask('specialist-a', 2);
    const b1 = ask('specialist-b', 3);
    await flush();
    expect(replies(a1)).to.deep.equal(['AGREE']);
    expect(replies(a2)).to.deep.equal(['REFUSE']); // a's one slot is taken
    expect(replies(b1)).to.deep.equal(['AGREE']); // b's is its own
    expect(ran).to.deep.equal(['a', 'b']);
    expect([parts.get('specialist-a')?.slots.inFlight, parts.get('specialist-b')?.slots.inFlight, shared.slots.inFlight]).to.deep.equal([1, 1, 0]);
    pending[0]?.resolve('done');
    await flush();
    expect(replies(a1)).to.deep.equal(['AGREE', 'INFORM']);
    expect(parts.get('specialist-a')?.slots.inFlight).to.equal(0);
  });
});
