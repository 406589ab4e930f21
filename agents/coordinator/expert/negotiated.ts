// The negotiated expert flow (Agora §3 over FIPA contract-net, SC00029; contract-net.ts has the
// steps): ROUTE picks direct or negotiated, CFP collects offers, CHOOSING awards the best one
// (falling back to the next), PROCESSING waits for the AGORA_RESULT.
import { assign, emit } from 'xstate';
import type { Envelope } from '../../../shared/acl/index.js';
import { award, closeOpen, onDeadline, openCfp, winnerFailed } from '../contract-net.js';
import { whenExhausted } from './busy.js';
import { acceptAnswer, answersAccept, expertSetup, inbound } from './setup.js';

export const negotiatedStates = {
  // The direct flow (one candidate, or PARLEY_NEGOTIATE=never) or the negotiated one.
  // A fresh winning offer (auto) skips the CFP round: the winner first, the rest as fallbacks.
  route: expertSetup.createStateConfig({
    entry: 'preferWinner',
    always: [
      {
        guard: 'freshWinner',
        target: 'retryNext',
        actions: [
          assign(({ context }) => ({
            candidates: [...context.candidates].sort((a, b) => Number(b.name === context.preferred) - Number(a.name === context.preferred)), index: 0,
          })),
          emit(({ context }) => ({ type: 'note' as const, decision: 'fresh-offer', detail: { candidate: context.preferred } })),
        ],
      },
      { guard: 'negotiate', target: 'cfp' },
      { target: 'retryNext' },
    ],
  }),
  // Agora PENDING/NEGOTIATING: a CFP to every candidate; offers are collected (root `on`)
  // until every candidate answered or the CFP deadline passed.
  cfp: expertSetup.createStateConfig({
    entry: { type: 'step', params: { run: (c) => openCfp(c) } },
    always: { guard: 'allAnswered', target: 'choosing' },
    on: {
      inbound: { guard: 'cancelled', target: 'cancelled', actions: { type: 'step', params: { run: (c) => closeOpen(c, 'CANCELLED') } } },
    },
    after: { CFP_TIMEOUT: { target: 'choosing', actions: { type: 'step', params: { run: (c) => onDeadline(c) } } } },
  }),
  // The documented pick (negotiation.ts pickOffer); no open offer left → the direct flow for
  // candidates without contract-net, else the §4 verdict (402 when offers were only too dear).
  choosing: expertSetup.createStateConfig({
    always: [
      { guard: 'hasOffer', target: 'processing', actions: { type: 'step', params: { run: (c) => award(c) } } },
      {
        guard: 'directFallback',
        target: 'retryNext',
        actions: [
          assign(({ context }) => ({ candidates: context.notUnderstood, index: 0 })),
          emit(({ context }) => ({ type: 'note' as const, decision: 'direct-fallback', detail: { candidates: context.notUnderstood.map((c) => c.name) } })),
        ],
      },
      ...whenExhausted(true),
    ],
  }),
  // Agora PROCESSING: accepted; the AGORA_RESULT must follow within resultTimeoutMs.
  processing: expertSetup.createStateConfig({
    entry: { type: 'tellPresenter', params: ({ context }) => ({ by: context.offers[context.winner]?.candidate ?? 'a specialist' }) },
    on: {
      inbound: [
        {
          guard: 'cancelled',
          target: 'cancelled',
          actions: [
            { type: 'step', params: { run: (c) => winnerFailed(c, { outcome: 'failed', reason: 'CANCELLED' }, 'the person withdrew the question') } },
            { type: 'step', params: { run: (c) => closeOpen(c, 'CANCELLED') } },
          ],
        },
        {
          guard: ({ context, event }) => answersAccept(context, event, 'RESULT'),
          target: 'answered',
          actions: [
            'takeResult',
            {
              type: 'rememberWinner',
              params: ({ context }) => {
                const o = context.offers[context.winner];
                return { hint: context.hint, candidates: context.candidates.map((c) => c.name), winner: o?.candidate ?? '', ttlMs: (o?.ttl ?? 0) - (context.agora?.acceptMarginMs ?? 0) };
              },
            },
            { type: 'step', params: { run: (c) => closeOpen(c, 'NOT_SELECTED') } },
          ],
        },
        {
          guard: ({ context, event }) => answersAccept(context, event, 'ERROR'),
          target: 'choosing',
          actions: [
            { type: 'step', params: { run: (c, e) => winnerFailed(c, acceptAnswer(inbound(e) as Envelope)) } },
            { type: 'forgetCandidates', params: ({ context }) => ({ hint: context.hint }) },
          ],
        },
      ],
    },
    after: {
      RESULT_TIMEOUT: {
        target: 'choosing',
        actions: [
          { type: 'step', params: { run: (c) => winnerFailed(c, { outcome: 'timeout', reason: 'RESULT' }, `no RESULT within ${c.t.resultTimeoutMs} ms`) } },
          { type: 'forgetCandidates', params: ({ context }) => ({ hint: context.hint }) },
        ],
      },
    },
  }),
};
