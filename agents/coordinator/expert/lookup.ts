// RECEIVED and LOOKUP(DF) of the expert flow (seed contract §3): the candidate cache, or a
// QUERY-REF need to the Registry answered with candidates, an error, or nothing in time.
import { assign, emit } from 'xstate';
import type { Envelope } from '../../../shared/acl/index.js';
import { reasonOf } from '../envelopes.js';
import { forwardToLookup, lookupInput, REGISTRY_LOOKUP, type RegistryLookupOutput } from '../registry-lookup.js';
import { needContent } from '../negotiation.js';
import { DIRECTORY_UNAVAILABLE } from '../replies.js';
import { type Ctx, expertSetup, usableCandidates } from './setup.js';

/** The DF's answer to the one QUERY-REF (when the lookup did not time out). */
const answerOf = (out: RegistryLookupOutput): Envelope => out.answers[0] as Envelope;

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
  // LOOKUP(DF): QUERY-REF need, with the text as a ranking hint (contracts/need.json), run by the
  // shared DF-lookup child (registry-lookup.ts): candidates, an error answer, or REGISTRY_TIMEOUT.
  lookup: expertSetup.createStateConfig({
    invoke: {
      id: REGISTRY_LOOKUP, src: 'registryLookup',
      input: lookupInput((c: Ctx) => [needContent(c.hint, c.agora, c.delegation)], (c) => c.t.registryTimeoutMs),
      onDone: [
        {
          guard: ({ event }) => event.output.timedOut,
          target: 'failed',
          actions: [emit({ type: 'note', decision: 'directory-unavailable' }), { type: 'fail', params: { code: 'NO_CANDIDATE', detail: DIRECTORY_UNAVAILABLE } }],
        },
        {
          guard: ({ event }) => Array.isArray(answerOf(event.output).content.candidates),
          target: 'route',
          actions: [
            assign(({ context, event }) => ({
              candidates: usableCandidates(answerOf(event.output).content.candidates, context.domain).filter((c) => c.name !== context.delegation?.exclude),
            })),
            { type: 'rememberCandidates', params: ({ context, event }) => ({ hint: context.hint, jids: answerOf(event.output).content.candidates, lead: answerOf(event.output).content.lead }) },
            emit(({ context }) => ({ type: 'note' as const, decision: 'candidates', detail: { candidates: context.candidates.map((c) => c.name) } })),
          ],
        },
        // The DF answered with an error: it cannot give us anyone.
        {
          target: 'failed',
          actions: [
            emit(({ event }) => ({ type: 'note' as const, decision: 'directory-error', detail: { performative: answerOf(event.output).performative, ...reasonOf(answerOf(event.output)) } })),
            { type: 'fail', params: { code: 'NO_CANDIDATE' as const, detail: DIRECTORY_UNAVAILABLE } },
          ],
        },
      ],
    },
    on: {
      inbound: [{ guard: 'cancelled', target: 'cancelled' }, { actions: forwardToLookup() }],
    },
  }),
};
