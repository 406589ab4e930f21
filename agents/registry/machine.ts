// The DF's exchanges (seed contract §2.2), one pure xstate machine each. The directory is
// reached only through invoked promise actors that main.ts provides; `now` comes in the input.
//   REQUEST REGISTER    → INFORM REGISTERED | REFUSE SENDER_MISMATCH
//   INFORM HEARTBEAT    → (nothing) | FAILURE NOT_REGISTERED | REFUSE SENDER_MISMATCH
//   REQUEST DEREGISTER  → INFORM DEREGISTERED | FAILURE NOT_REGISTERED (FIPA SC00023 DF: not-registered)
//   QUERY-REF {need}    → INFORM {candidates}
//   QUERY-REF DESCRIBE  → INFORM DIRECTORY
// A store error answers FAILURE INTERNAL_ERROR; nothing here throws.
import { emit, fromPromise, setup } from 'xstate';
import { type Envelope, replyTo } from '../../shared/acl/envelope.js';
import { errorContent, type ErrorCode, performativeFor } from '../../shared/acl/errors.js';
import type {
  AgentProfile, DeregisterContent, DescribeContent, DirectoryEntry, HeartbeatContent, NeedContent, RegisterContent,
} from '../../shared/contracts/types.gen.js';
import type { ExchangeEmitted, ExchangeInput, InboundEvent } from '../../shared/runtime/exchange.js';
import { bare } from '../../shared/transport/stanza.js';

export interface RegistryInput extends ExchangeInput {
  /** Epoch ms at arrival (main.ts passes Date.now(); tests pass fixed values). */
  now: number;
}

const notProvided = (name: string) => async (): Promise<never> => {
  throw new Error(`actor ${name} is provided by main.ts`);
};

/** The JID an envelope's content speaks for: profile.jid for REGISTER, jid otherwise. */
export function claimedJid(request: Envelope): string | undefined {
  const c = request.content as { profile?: { jid?: unknown }; jid?: unknown };
  const jid = c.profile?.jid ?? c.jid;
  return typeof jid === 'string' ? bare(jid) : undefined;
}

const send = (envelope: Envelope): ExchangeEmitted => ({ type: 'send', envelope });
const answer = (ctx: RegistryInput, performative: Envelope['performative'], content: object) =>
  send(replyTo(ctx.request, { performative, content, sender: ctx.self }));
const answerError = (ctx: RegistryInput, code: ErrorCode, detail: string) =>
  answer(ctx, performativeFor(code), errorContent(code, detail));
/** The validated content of the initiating envelope (the pipeline checked it against contracts/). */
const content = <T>(ctx: RegistryInput): T => ctx.request.content as unknown as T;
const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

export const registry = setup({
  types: {} as { input: RegistryInput; context: RegistryInput; events: InboundEvent; emitted: ExchangeEmitted },
  actors: {
    register: fromPromise<{ jid: string; lease_ms: number }, { profile: AgentProfile; now: number }>(notProvided('register')),
    heartbeat: fromPromise<boolean, { jid: string; now: number }>(notProvided('heartbeat')),
    deregister: fromPromise<boolean, { jid: string }>(notProvided('deregister')),
    candidates: fromPromise<string[], { need: string; hint?: string; now: number }>(notProvided('candidates')),
    describe: fromPromise<DirectoryEntry[], { capability?: string; now: number }>(notProvided('describe')),
  },
  guards: {
    // The profile/jid must be the sender's own authenticated JID: nobody registers for another.
    speaksForAnother: ({ context }) => claimedJid(context.request) !== context.from.jid,
  },
  actions: {
    refuseMismatch: emit(({ context }) =>
      answerError(context, 'SENDER_MISMATCH', `content jid ${JSON.stringify(claimedJid(context.request) ?? null)} is not the sender ${context.from.jid}`)),
    failInternal: emit(({ context }, params: { error: unknown }) => answerError(context, 'INTERNAL_ERROR', `directory: ${message(params.error)}`)),
  },
});

const checkSender = { always: [{ guard: 'speaksForAnother', target: 'done', actions: 'refuseMismatch' }, { target: 'working' }] } as const;
const onStoreError = { target: 'done', actions: { type: 'failInternal', params: ({ event }: { event: { error: unknown } }) => ({ error: event.error }) } } as const;

export const registerMachine = registry.createMachine({
  id: 'registry-register',
  context: ({ input }) => input,
  initial: 'checking',
  states: {
    checking: checkSender,
    working: {
      invoke: {
        src: 'register',
        input: ({ context }) => ({ profile: content<RegisterContent>(context).profile, now: context.now }),
        onDone: {
          target: 'done',
          actions: [
            emit(({ context, event }) => answer(context, 'INFORM', { type: 'REGISTERED', jid: event.output.jid, lease_ms: event.output.lease_ms })),
            emit(({ event }) => ({ type: 'note', decision: 'registered', detail: event.output })),
          ],
        },
        onError: onStoreError,
      },
    },
    done: { type: 'final' },
  },
});

export const heartbeatMachine = registry.createMachine({
  id: 'registry-heartbeat',
  context: ({ input }) => input,
  initial: 'checking',
  states: {
    checking: checkSender,
    working: {
      invoke: {
        src: 'heartbeat',
        input: ({ context }) => ({ jid: content<HeartbeatContent>(context).jid, now: context.now }),
        // Renewed: HEARTBEAT is an INFORM, nothing to answer. No lease: tell the agent to register again.
        onDone: [
          { guard: ({ event }) => event.output, target: 'done' },
          {
            target: 'done',
            actions: emit(({ context }) => answerError(context, 'NOT_REGISTERED', `no live registration for ${context.from.jid}: send REGISTER again`)),
          },
        ],
        onError: onStoreError,
      },
    },
    done: { type: 'final' },
  },
});

export const deregisterMachine = registry.createMachine({
  id: 'registry-deregister',
  context: ({ input }) => input,
  initial: 'checking',
  states: {
    checking: checkSender,
    working: {
      invoke: {
        src: 'deregister',
        input: ({ context }) => ({ jid: content<DeregisterContent>(context).jid }),
        onDone: [
          { guard: ({ event }) => event.output, target: 'done', actions: emit(({ context }) => answer(context, 'INFORM', { type: 'DEREGISTERED', jid: context.from.jid })) },
          { target: 'done', actions: emit(({ context }) => answerError(context, 'NOT_REGISTERED', `${context.from.jid} is not registered`)) },
        ],
        onError: onStoreError,
      },
    },
    done: { type: 'final' },
  },
});

export const needMachine = registry.createMachine({
  id: 'registry-need',
  context: ({ input }) => input,
  initial: 'working',
  states: {
    working: {
      invoke: {
        src: 'candidates',
        input: ({ context }) => {
          const c = content<NeedContent>(context);
          return { need: c.need, ...(c.hint !== undefined ? { hint: c.hint } : {}), now: context.now };
        },
        onDone: { target: 'done', actions: emit(({ context, event }) => answer(context, 'INFORM', { candidates: event.output })) },
        onError: onStoreError,
      },
    },
    done: { type: 'final' },
  },
});

export const describeMachine = registry.createMachine({
  id: 'registry-describe',
  context: ({ input }) => input,
  initial: 'working',
  states: {
    working: {
      invoke: {
        src: 'describe',
        input: ({ context }) => {
          const c = content<DescribeContent>(context);
          return { ...(c.capability !== undefined ? { capability: c.capability } : {}), now: context.now };
        },
        onDone: { target: 'done', actions: emit(({ context, event }) => answer(context, 'INFORM', { type: 'DIRECTORY', agents: event.output })) },
        onError: onStoreError,
      },
    },
    done: { type: 'final' },
  },
});
