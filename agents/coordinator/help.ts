// "help": the live directory (QUERY-REF DESCRIBE to the Registry) rendered as what the person can
// ask, plus the built-in commands. When the DF is silent the person still gets the built-ins.
import { emit, setup } from 'xstate';
import type { Envelope } from '../../shared/acl/index.js';
import type { AgentProfile, DirectoryEntry } from '../../shared/contracts/index.js';
import type { ChildSendEvent, ExchangeEmitted, InboundEvent } from '../../shared/runtime/index.js';
import { contentType, type CoordinatorInput, isCancelOf, presenterReply } from './envelopes.js';
import type { Greeting } from './intent.js';
import { forwardToLookup, lookupInput, REGISTRY_LOOKUP, registryLookupMachine, relayChildSend } from './registry-lookup.js';
import { BUILT_INS, briefText, helpText, MEETING_COMMANDS, roomsOf, roomsText } from './replies.js';

/** `greeting`: a short line with what to try instead of the full list ("hello", "thanks"). */
export interface HelpInput extends CoordinatorInput {
  greeting?: Greeting;
  /** "rooms": the rooms and their seats instead of the whole help. */
  topic?: 'rooms';
}

interface Ctx {
  request: Envelope;
  greeting?: Greeting;
  topic?: 'rooms';
  self: string;
  registryTimeoutMs: number;
}

function richOf(profiles: readonly AgentProfile[] | undefined): object {
  return {
    kind: 'help',
    directory: profiles === undefined ? 'unavailable' : 'ok',
    agents: (profiles ?? []).map((p) => ({ name: p.name, description: p.description ?? '', examples: p.examples ?? [], capabilities: p.capabilities })),
    commands: [
      ...((profiles ?? []).some((p) => p.capabilities.includes('CALENDAR')) ? MEETING_COMMANDS.map((m) => m.command) : []),
      ...BUILT_INS.map((b) => b.command),
    ],
  };
}

export const helpMachine = setup({
  types: {} as { input: HelpInput; context: Ctx; events: InboundEvent | ChildSendEvent; emitted: ExchangeEmitted },
  actors: { registryLookup: registryLookupMachine },
  actions: {
    reply: emit(({ context }, p: { profiles: AgentProfile[] | undefined }) => ({
      type: 'send' as const,
      envelope: context.greeting
        ? presenterReply(context.request, briefText(context.greeting, p.profiles, context.request.reply_with), { kind: 'smalltalk', greeting: context.greeting })
        : context.topic === 'rooms'
          ? presenterReply(context.request, roomsText(p.profiles), { kind: 'rooms', directory: p.profiles === undefined ? 'unavailable' : 'ok', rooms: roomsOf(p.profiles ?? []) })
          : presenterReply(context.request, helpText(p.profiles), richOf(p.profiles)),
    })),
  },
}).createMachine({
  id: 'coordinator-help',
  context: ({ input }) => ({ request: input.request, self: input.self, registryTimeoutMs: input.timeouts.registryTimeoutMs, ...(input.greeting ? { greeting: input.greeting } : {}), ...(input.topic ? { topic: input.topic } : {}) }),
  on: { 'child.send': { actions: relayChildSend() } },
  initial: 'describing',
  states: {
    // QUERY-REF DESCRIBE to the Registry (registry-lookup.ts): the directory, an error, or nothing in time.
    describing: {
      invoke: {
        id: REGISTRY_LOOKUP, src: 'registryLookup',
        input: lookupInput(() => [{ type: 'DESCRIBE' }], (c: Ctx) => c.registryTimeoutMs),
        onDone: [
          {
            guard: ({ event }) => event.output.timedOut,
            target: 'done',
            actions: [emit({ type: 'note', decision: 'directory-unavailable' }), { type: 'reply', params: { profiles: undefined } }],
          },
          {
            guard: ({ event }) => contentType(event.output.answers[0] as Envelope) === 'DIRECTORY',
            target: 'done',
            actions: {
              type: 'reply',
              // The Coordinator's own entry (its sessions manifest) is not a specialist to ask.
              params: ({ event }) => ({ profiles: (((event.output.answers[0] as Envelope).content.agents ?? []) as DirectoryEntry[]).map((a) => a.profile).filter((p) => !p.capabilities.includes('SESSIONS')) }),
            },
          },
          { target: 'done', actions: { type: 'reply', params: { profiles: undefined } } },
        ],
      },
      on: {
        inbound: [{ guard: ({ context, event }) => isCancelOf(event, context.request), target: 'done' }, { actions: forwardToLookup() }],
      },
    },
    done: { type: 'final' },
  },
});
