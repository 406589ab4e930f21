// RECEIVED and LOOKUP(DF) of the expert flow (seed contract §3): the candidate cache, or a
// QUERY-REF need to the Registry answered with candidates, an error, or nothing in time.
import { assign, emit } from 'xstate';
import type { Envelope } from '../../../shared/acl/envelope.js';
import { answers, outbound, reasonOf } from '../envelopes.js';
import { DIRECTORY_UNAVAILABLE } from '../replies.js';
import { expertSetup, inbound, usableCandidates } from './setup.js';

export const lookupStates = {
  // RECEIVED: a fresh DF answer for a question of this shape (the candidate cache) skips LOOKUP.
  received: expertSetup.createStateConfig({
    always: [
      {
        guard: 'cached',
        target: 'route',
        actions: emit(({ context }) => ({ type: 'note' as const, decision: 'candidates', detail: { candidates: context.candidates.map((c) => c.name), cached: true } })),
      },
      { target: 'lookup' },
    ],
  }),
  // LOOKUP(DF): QUERY-REF need, with the text as a ranking hint (contracts/need.json).
  lookup: expertSetup.createStateConfig({
    entry: [
      assign(({ context }) => ({
        lookup: outbound(context.request, context.self, 'QUERY-REF', 'Registry', {
          need: 'ASK_EXPERT', hint: context.hint, ...(context.delegation?.role ? { role: context.delegation.role } : {}),
        }),
      })),
      emit(({ context }) => ({ type: 'send' as const, envelope: context.lookup as Envelope })),
    ],
    on: {
      inbound: [
        { guard: 'cancelled', target: 'cancelled' },
        {
          guard: ({ context, event }) => event.type === 'inbound' && answers(event, context.lookup) && Array.isArray(event.envelope.content.candidates),
          target: 'route',
          actions: [
            assign(({ context, event }) => ({
              candidates: usableCandidates(event.envelope.content.candidates, context.domain).filter((c) => c.name !== context.delegation?.exclude),
            })),
            { type: 'rememberCandidates', params: ({ context, event }) => ({ hint: context.hint, jids: event.envelope.content.candidates }) },
            emit(({ context }) => ({ type: 'note' as const, decision: 'candidates', detail: { candidates: context.candidates.map((c) => c.name) } })),
          ],
        },
        // The DF answered with an error: it cannot give us anyone.
        {
          guard: ({ context, event }) => event.type === 'inbound' && answers(event, context.lookup),
          target: 'failed',
          actions: [
            emit(({ event }) => ({ type: 'note' as const, decision: 'directory-error', detail: { performative: (inbound(event) as Envelope).performative, ...reasonOf(inbound(event) as Envelope) } })),
            { type: 'fail', params: { code: 'NO_CANDIDATE' as const, detail: DIRECTORY_UNAVAILABLE } },
          ],
        },
      ],
    },
    after: {
      REGISTRY_TIMEOUT: {
        target: 'failed',
        actions: [emit({ type: 'note', decision: 'directory-unavailable' }), { type: 'fail', params: { code: 'NO_CANDIDATE', detail: DIRECTORY_UNAVAILABLE } }],
      },
    },
  }),
};
