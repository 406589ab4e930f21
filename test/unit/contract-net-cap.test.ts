// PARLEY_CFP_MAX_CANDIDATES (issue 14 §3): with a host of 100 virtual specialists, a CFP to every
// candidate made each question 100 signed offers that arrived after the deadline; the round goes
// to the DF's first N only (the DF ranks least recently used first).
import { expect } from 'chai';
import { makeEnvelope } from '../../shared/acl/index.js';
import { type NegotiationCtx, openCfp } from '../../agents/coordinator/contract-net.js';

function ctx(count: number, maxCandidates?: number): NegotiationCtx {
  const request = makeEnvelope({ performative: 'REQUEST', sender: 'Presenter', receiver: 'Coordinator', conversation_id: 'sess-cap', content: { type: 'USER_MSG', text: 'what is 2 * 3?' } });
  return {
    request, self: 'Coordinator', question: 'what is 2 * 3?', resultTimeoutMs: 30000, attempts: [],
    agora: { mode: 'auto', cfpTimeoutMs: 1000, acceptMarginMs: 20, ...(maxCandidates !== undefined ? { maxCandidates } : {}) },
    candidates: Array.from({ length: count }, (_, i) => ({ jid: `vm-${i + 1}@agents.localhost`, name: `vm-${i + 1}@agents.localhost` })),
    cfps: [], answered: [], offers: [], winner: -1, notUnderstood: [],
  } as unknown as NegotiationCtx;
}

describe('Contract net [CFP cap] the DF\'s first N candidates', () => {
  it('sends N CFPs, to the first N in the DF\'s order, and keeps only them as candidates', () => {
    const step = openCfp(ctx(100, 8));
    const cfps = step.patch.cfps ?? [];
    expect(cfps.map((e) => e.receiver)).to.deep.equal(Array.from({ length: 8 }, (_, i) => `vm-${i + 1}@agents.localhost`));
    expect(step.patch.candidates).to.have.length(8);
    expect(step.out.filter((o) => o.type === 'send')).to.have.length(8);
  });

  it('sends one to every candidate when there are fewer, or when no cap is set', () => {
    expect(openCfp(ctx(3, 8)).patch.cfps).to.have.length(3);
    expect(openCfp(ctx(20)).patch.cfps).to.have.length(20);
  });
});
