// PARLEY_CFP_MAX_CANDIDATES (issue 14 §3): with a host of 100 virtual specialists, a CFP to every
// candidate made each question 100 signed offers that arrived after the deadline; the round goes
// to the DF's first N only (the DF ranks least recently used first).
import { expect } from 'chai';
import { makeEnvelope } from '../../shared/acl/index.js';
import { type NegotiationCtx, openCfp } from '../../agents/coordinator/contract-net.js';
import { type AgoraSettings, candidatesWanted, needContent } from '../../agents/coordinator/negotiation.js';

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

describe('Contract net [CFP cap] the DF lists only what the Coordinator will use (NEED max_results)', () => {
  const agora = (mode: AgoraSettings['mode'], maxCandidates?: number): AgoraSettings =>
    ({ mode, cfpTimeoutMs: 1000, acceptMarginMs: 20, ...(maxCandidates !== undefined ? { maxCandidates } : {}) });

  it('asks for the first N when negotiating (auto, always), for all when it walks the list (never, no settings, no cap)', () => {
    expect(candidatesWanted(agora('auto', 8))).to.equal(8);
    expect(candidatesWanted(agora('always', 8))).to.equal(8);
    expect(candidatesWanted(agora('never', 8))).to.equal(undefined);
    expect(candidatesWanted(undefined)).to.equal(undefined);
    expect(candidatesWanted(agora('auto'))).to.equal(undefined);
  });

  it('asks for at least 2 (auto still negotiates whenever the DF has two), one more for a delegation, at most 100', () => {
    expect(candidatesWanted(agora('auto', 1))).to.equal(2);
    expect(candidatesWanted(agora('auto', 8), 1)).to.equal(9);
    expect(candidatesWanted(agora('auto', 500))).to.equal(100);
  });

  it('builds the expert flow\'s QUERY-REF NEED content with it', () => {
    expect(needContent('what is 2 * 3?', agora('auto', 8))).to.deep.equal({ need: 'ASK_EXPERT', hint: 'what is 2 * 3?', max_results: 8 });
    expect(needContent('what is 2 * 3?', agora('auto', 8), { exclude: 'vm-1@agents.localhost', role: 'math' }))
      .to.deep.equal({ need: 'ASK_EXPERT', hint: 'what is 2 * 3?', role: 'math', max_results: 9 });
    expect(needContent('what is 2 * 3?', undefined)).to.deep.equal({ need: 'ASK_EXPERT', hint: 'what is 2 * 3?' });
  });
});
