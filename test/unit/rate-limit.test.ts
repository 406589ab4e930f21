import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { agoraError, agoraTable, reasonsFor, type Envelope, makeEnvelope, ERRORS } from '../../shared/acl/index.js';
import { validateEnvelope } from '../../shared/contracts/index.js';
import { RateLimiter, rateLimitFromEnv } from '../../shared/runtime/index.js';
import { echoResponder } from '../../shared/bench/index.js';
import { askExpert } from '../support/bad-inputs.js';
import { repoRoot } from '../../shared/runtime/repo-root.js';
import { inbound, testAgent } from '../support/fake-transport.js';

const flush = () => new Promise((r) => setImmediate(r));

describe('RateLimiter [token bucket] per sender DID (Agora 429)', () => {
  it('allows a burst, then refills at the configured rate', () => {
    let now = 0;
    const rl = new RateLimiter({ perSecond: 10, burst: 3, now: () => now });
    expect([1, 2, 3, 4].map(() => rl.take('did:a'))).to.deep.equal([true, true, true, false]);
    expect(rl.retryAfterMs('did:a')).to.equal(100);
    expect(rl.take('did:b'), 'another DID has its own bucket').to.equal(true);
    now = 100; // one token back
    expect([rl.take('did:a'), rl.take('did:a')]).to.deep.equal([true, false]);
    now = 10000; // refilled, never beyond the burst
    expect([1, 2, 3, 4].map(() => rl.take('did:a'))).to.deep.equal([true, true, true, false]);
  });

  it('keeps at most maxKeys buckets, forgetting the least recently used', () => {
    const rl = new RateLimiter({ perSecond: 1, burst: 1, maxKeys: 100, now: () => 0 });
    for (let i = 0; i < 1000; i++) rl.take(`did:${i}`);
    expect(rl.size).to.equal(100);
    expect(rl.take('did:999'), 'recent bucket kept (empty)').to.equal(false);
    expect(rl.take('did:0'), 'forgotten bucket comes back full').to.equal(true);
  });

  it('reads PARLEY_RATE_LIMIT_PER_S / _BURST (default 2000/s, burst 4000; 0 = off)', () => {
    expect(rateLimitFromEnv({})).to.deep.equal({ perSecond: 2000, burst: 4000 });
    expect(rateLimitFromEnv({ PARLEY_RATE_LIMIT_PER_S: '5', PARLEY_RATE_LIMIT_BURST: '2' })).to.deep.equal({ perSecond: 5, burst: 2 });
    expect(rateLimitFromEnv({ PARLEY_RATE_LIMIT_PER_S: '0' })).to.equal(undefined);
    expect(() => rateLimitFromEnv({ PARLEY_RATE_LIMIT_PER_S: 'lots' })).to.throw('PARLEY_RATE_LIMIT_PER_S');
  });
});

describe('Agent [rate limit] REFUSE RATE_LIMITED over the limit, still serving', () => {
  it('refuses the envelopes over the burst and serves the sender again once tokens are back', async () => {
    let now = 0;
    const { agent, transport } = testAgent('specialist-echo', { rateLimit: new RateLimiter({ perSecond: 10, burst: 2, now: () => now }) });
    agent.router.on('ASK_EXPERT', (request, from) => ({ machine: echoResponder, input: { request, from, self: agent.name, agree: false } }));
    for (let i = 0; i < 4; i++) agent.receive(inbound('coordinator@localhost', askExpert()));
    await flush();
    const replies = transport.envelopes() as Envelope[];
    expect(replies.map((e) => `${e.performative} ${(e.content.reason as string | undefined) ?? e.content.type}`).sort()).to.deep.equal([
      'INFORM RESULT', 'INFORM RESULT', 'REFUSE RATE_LIMITED', 'REFUSE RATE_LIMITED',
    ]);
    const refuse = replies.find((e) => e.performative === 'REFUSE') as Envelope;
    expect(refuse.content.detail).to.match(/over 10\/s \(burst 2\) from did:key:z6Mk\S+; retry in 100 ms/);
    expect(validateEnvelope(refuse).ok).to.equal(true);
    expect(agent.counters.rejected.RATE_LIMITED).to.equal(2);
    now = 200;
    agent.receive(inbound('coordinator@localhost', askExpert()));
    await flush();
    expect((transport.envelopes().at(-1) as Envelope).performative).to.equal('INFORM');
  });
});

describe('Agora [errors] one table of Agora codes ↔ FIPA reasons', () => {
  it('maps every Agora §5 code to at least one catalogue reason, RATE_LIMITED to 429 and BUDGET_EXCEEDED to 402', () => {
    for (const code of [400, 401, 402, 404, 408, 429, 500, 503] as const) expect(reasonsFor(code), String(code)).to.have.length.above(0);
    expect(ERRORS.RATE_LIMITED).to.include({ performative: 'REFUSE', agora: 429 });
    expect(ERRORS.BUDGET_EXCEEDED).to.include({ performative: 'FAILURE', agora: 402 });
    expect(ERRORS.OFFER_EXPIRED).to.include({ performative: 'FAILURE', agora: 408 });
  });

  it('docs/acl_contract.md holds the table generated from shared/acl/errors.ts', () => {
    const doc = fs.readFileSync(path.join(repoRoot(), 'docs', 'acl_contract.md'), 'utf8');
    expect(doc).to.contain(agoraTable());
  });

  it('AGORA_ERROR content validates in REFUSE and FAILURE for the codes that travel in them', () => {
    const env = (performative: 'REFUSE' | 'FAILURE', content: object) => makeEnvelope({ performative, sender: 'specialist-a', receiver: 'Coordinator', conversation_id: 'sess-1', in_reply_to: 'msg-1', content });
    expect(validateEnvelope(env('REFUSE', agoraError('BUSY', undefined, 'msg-1'))).ok).to.equal(true);
    expect(validateEnvelope(env('FAILURE', agoraError('OFFER_EXPIRED'))).ok).to.equal(true);
    expect(agoraError('BUDGET_EXCEEDED')).to.deep.include({ code: 402, reason: 'BUDGET_EXCEEDED' });
  });
});
