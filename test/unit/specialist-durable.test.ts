// A durable specialist (issue 12): offers and accepted work persisted by the router after every
// transition; a new router over the same store (the restarted process) finishes them. The skill
// runner is in-process; SimulatedClock for the ttl and compute timers.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { SimulatedClock } from 'xstate';
import { type Envelope, makeEnvelope, replyTo } from '../../shared/acl/index.js';
import { silentLogger } from '../../shared/log/index.js';
import { identify, Router } from '../../shared/runtime/index.js';
import { ExchangeStore } from '../../shared/store/index.js';
import { askExpertExchange, cfpExchange, lostOffer, restoredHolds, type SkillRunner, Slots } from '../../agents/specialist/exchange.js';

const DOMAIN = 'localhost';
const coordinator = identify(`coordinator@${DOMAIN}`, DOMAIN);
const TERMS = { cost: 1, etaMs: 100, ttlMs: 5000 };

/** One specialist process over `file`; `run` answers when the test says so (never, by default). */
function specialist(file: string, now: number) {
  const clock = new SimulatedClock();
  clock.set(now);
  const store = new ExchangeStore(file, { now: () => clock.now() });
  const sent: Envelope[] = [];
  const pending: Array<{ question: string; resolve: (answer: string) => void }> = [];
  const skills: SkillRunner = {
    scope: () => 'slowmul',
    recognise: async () => 'slowmul',
    run: (_skill, args) => new Promise((resolve) => pending.push({ question: String(args.question), resolve: (answer) => resolve({ answer, meta: {} }) })),
  };
  const slots = new Slots(10);
  const offers = new Slots(10);
  const router = new Router({ logger: silentLogger(), clock, persist: store, send: (e) => sent.push(e), note: () => undefined, crashed: () => undefined });
  router.on('ASK_EXPERT', askExpertExchange({ skills, slots, computeMs: 10000 }));
  router.on('AGORA_REQUEST', cfpExchange({ skills, slots, offers, computeMs: 10000, terms: () => TERMS }));
  const holds = restoredHolds({ slots, offers });
  const restore = () => store.exchanges().map((rec) => {
    const actor = router.restore(rec);
    if (actor) holds(actor, rec);
    return actor;
  });
  const deliver = (env: Envelope, kind: string) => router.deliver(env, kind, coordinator);
  return { clock, store, sent, pending, slots, offers, router, restore, deliver };
}

const flush = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
};
const cfp = (question: string) => makeEnvelope({
  performative: 'CFP', sender: 'Coordinator', receiver: 'specialist-slow', conversation_id: `sess-${question}`,
  content: { type: 'AGORA_REQUEST', resource: 'parley:ask-expert:v1', params: { question } },
});
const accept = (propose: Envelope) => replyTo(propose, { performative: 'ACCEPT-PROPOSAL', content: { type: 'AGORA_ACCEPT', offer_id: propose.content.offer_id } });

describe('Specialist [durable] offers and accepted work survive a restart', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-spec-durable-'));
    file = path.join(dir, 'specialist-slow-exchanges.sqlite');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('work accepted before the crash runs again; an offer made before it is honoured after it; each answered once', async () => {
    const a = specialist(file, 1_000_000);
    const c1 = cfp('q1');
    const c2 = cfp('q2');
    a.deliver(c1, 'AGORA_REQUEST');
    a.deliver(c2, 'AGORA_REQUEST');
    await flush();
    const [p1, p2] = [c1, c2].map((c) => a.sent.find((e) => e.in_reply_to === c.reply_with && e.performative === 'PROPOSE') as Envelope);
    expect(p1 && p2, 'two offers').to.not.equal(undefined);
    a.deliver(accept(p1 as Envelope), 'AGORA_ACCEPT');
    await flush();
    expect(a.pending.map((p) => p.question)).to.deep.equal(['q1']); // working, then the crash: never answered

    const b = specialist(file, 1_001_000);
    expect(b.restore().every(Boolean)).to.equal(true);
    expect([b.slots.inFlight, b.offers.inFlight], 'one worker, two offer places').to.deep.equal([1, 2]);
    await flush();
    expect(b.pending.map((p) => p.question), 'the accepted task runs again').to.deep.equal(['q1']);
    const a2 = accept(p2 as Envelope);
    expect(b.deliver(a2, 'AGORA_ACCEPT').outcome).to.equal('routed');
    await flush();
    expect(b.pending.map((p) => p.question)).to.deep.equal(['q1', 'q2']);
    for (const p of b.pending) p.resolve(`answer ${p.question}`);
    await flush();
    const results = b.sent.filter((e) => e.performative === 'INFORM');
    expect(results.map((e) => (e.content as { data: { answer: string } }).data.answer).sort()).to.deep.equal(['answer q1', 'answer q2']);
    expect(results.find((e) => e.content.data && (e.content as { data: { answer: string } }).data.answer === 'answer q2')?.in_reply_to).to.equal(a2.reply_with);
    expect([b.slots.inFlight, b.offers.inFlight], 'everything freed').to.deep.equal([0, 0]);
  });

  it('an offer whose ttl ran out while the process was down answers a late ACCEPT OFFER_EXPIRED and holds no place', async () => {
    const a = specialist(file, 1_000_000);
    const c = cfp('q3');
    a.deliver(c, 'AGORA_REQUEST');
    await flush();
    const p = a.sent.find((e) => e.performative === 'PROPOSE') as Envelope;
    const b = specialist(file, 1_000_000 + TERMS.ttlMs + 10);
    b.restore();
    b.clock.increment(0); // the overdue ttl timer fires at once
    await flush();
    expect(b.offers.inFlight).to.equal(0);
    b.deliver(accept(p), 'AGORA_ACCEPT');
    expect(b.sent.at(-1)?.content).to.deep.include({ reason: 'OFFER_EXPIRED' });
  });

  it('an ACCEPT for an offer the process does not hold: FAILURE WORK_LOST (retryable), not NOT-UNDERSTOOD', () => {
    const p = replyTo(cfp('q4'), { performative: 'PROPOSE', content: { type: 'AGORA_OFFER', offer_id: 'offer-gone', cost: 1, ttl: 5000, eta: 100 } });
    const answer = lostOffer(accept(p)) as Envelope;
    expect(answer).to.include({ performative: 'FAILURE', in_reply_to: accept(p).in_reply_to === p.reply_with ? answer.in_reply_to : '' });
    expect(answer.content).to.deep.include({ type: 'AGORA_ERROR', reason: 'WORK_LOST', code: 503 });
    expect(lostOffer(replyTo(p, { performative: 'REJECT-PROPOSAL', content: { type: 'AGORA_REJECT', offer_id: 'offer-gone', reason: 'NOT_SELECTED' } }))).to.equal(undefined);
  });
});
