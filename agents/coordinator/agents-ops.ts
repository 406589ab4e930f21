// A specialist's query_agents and broadcast_event (plan part 2), answered by the Coordinator
// from the live directory (QUERY-REF DESCRIBE to the DF): the specialist never talks to the DF
// or to other specialists for this (seed contract §5 "no shortcuts"). Pure machines.
import { emit, enqueueActions, setup } from 'xstate';
import { type Envelope, replyTo, errorContent } from '../../shared/acl/index.js';
import type { DirectoryEntry } from '../../shared/contracts/index.js';
import {
  type ChildSendEvent, type ExchangeEmitted, type InboundEvent, identify, jidOfName,
} from '../../shared/runtime/index.js';
import { contentType, type CoordinatorInput, outbound } from './envelopes.js';
import { forwardToLookup, lookupInput, REGISTRY_LOOKUP, registryLookupMachine, relayChildSend } from './registry-lookup.js';

interface Ctx {
  request: Envelope;
  self: string;
  domain: string;
  registryTimeoutMs: number;
}

type Profile = DirectoryEntry['profile'];

/** QUERY_AGENTS filter: {role?, skill?}. */
export function matchAgents(profiles: readonly Profile[], filter: { role?: unknown; skill?: unknown }): object[] {
  return profiles
    .filter((p) => typeof filter.role !== 'string' || p.role === filter.role)
    .filter((p) => typeof filter.skill !== 'string' || (p.skills ?? []).includes(filter.skill))
    .map((p) => ({ name: p.name, ...(p.role ? { role: p.role } : {}), ...(p.skills ? { skills: p.skills } : {}), ...(p.description ? { description: p.description.slice(0, 2000) } : {}) }));
}

const unavailable = (request: Envelope, why: string) =>
  replyTo(request, { performative: 'FAILURE', content: errorContent('NO_CANDIDATE', `directory unavailable: ${why}`) });

/** Both operations: DESCRIBE first (the shared DF-lookup child, registry-lookup.ts), then `onDirectory` decides what to send. */
function directoryMachine(id: string, onDirectory: (context: Ctx, profiles: Profile[]) => Envelope[]) {
  return setup({
    types: {} as { input: CoordinatorInput; context: Ctx; events: InboundEvent | ChildSendEvent; emitted: ExchangeEmitted },
    actors: { registryLookup: registryLookupMachine },
  }).createMachine({
    id,
    context: ({ input }) => ({ request: input.request, self: input.self, domain: input.domain, registryTimeoutMs: input.timeouts.registryTimeoutMs }),
    on: { 'child.send': { actions: relayChildSend() } },
    initial: 'describing',
    states: {
      describing: {
        invoke: {
          id: REGISTRY_LOOKUP, src: 'registryLookup',
          input: lookupInput(() => [{ type: 'DESCRIBE', capability: 'ASK_EXPERT' }], (c: Ctx) => c.registryTimeoutMs),
          onDone: [
            {
              guard: ({ event }) => event.output.timedOut,
              target: 'done',
              actions: emit(({ context }) => ({ type: 'send' as const, envelope: unavailable(context.request, 'the Registry did not answer') })),
            },
            {
              guard: ({ event }) => contentType(event.output.answers[0] as Envelope) === 'DIRECTORY',
              target: 'done',
              actions: enqueueActions(({ context, event, enqueue }) => {
                const profiles = (((event.output.answers[0] as Envelope).content.agents ?? []) as DirectoryEntry[]).map((a) => a.profile);
                for (const envelope of onDirectory(context, profiles)) enqueue.emit({ type: 'send', envelope });
              }),
            },
            {
              target: 'done',
              actions: emit(({ context, event }) => ({ type: 'send' as const, envelope: unavailable(context.request, `the Registry answered ${(event.output.answers[0] as Envelope).performative}`) })),
            },
          ],
        },
        on: { inbound: { actions: forwardToLookup() } },
      },
      done: { type: 'final' },
    },
  });
}

export const queryAgentsMachine = directoryMachine('coordinator-query-agents', (context, profiles) => [
  replyTo(context.request, { performative: 'INFORM', content: { type: 'AGENTS', agents: matchAgents(profiles, context.request.content) } }),
]);

/** INFORM EVENT to every other live specialist, then INFORM BROADCAST_DONE to the sender. */
export const broadcastMachine = directoryMachine('coordinator-broadcast', (context, profiles) => {
  const c = context.request.content as { event: string; data: string };
  const targets = profiles
    .map((p) => identify(jidOfName(p.name, context.domain), context.domain))
    .filter((id) => id.role === 'specialist' && id.name !== context.request.sender)
    .map((id) => id.name);
  const events = targets.map((name) => outbound(context.request, context.self, 'INFORM', name, { type: 'EVENT', event: c.event, data: c.data, origin: context.request.sender }));
  return [...events, replyTo(context.request, { performative: 'INFORM', content: { type: 'BROADCAST_DONE', delivered: targets } })];
});
