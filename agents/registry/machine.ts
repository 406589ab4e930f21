// The DF's exchanges (seed contract §2.2), one pure xstate machine each. The directory is
// reached only through invoked promise actors that main.ts provides; `now` comes in the input.
//   REQUEST REGISTER    → INFORM REGISTERED | REFUSE SENDER_MISMATCH | REFUSE DID_MISMATCH |
//                         REFUSE FORBIDDEN_SENDER (not enrolled; the key must be the operator's
//                         binding: bindings.ts, docs/architecture.md "Identities and trust")
//   INFORM HEARTBEAT    → (nothing) | FAILURE NOT_REGISTERED | REFUSE SENDER_MISMATCH
//   REQUEST DEREGISTER  → INFORM DEREGISTERED | FAILURE NOT_REGISTERED (FIPA SC00023 DF: not-registered)
//   REQUEST ENROL       → INFORM ENROLLED {credential} | REFUSE DID_MISMATCH | REFUSE FORBIDDEN_SENDER
//                         (token unknown, used, expired or for another account)
//   QUERY-REF {need}    → INFORM {candidates, dids}
//   QUERY-REF DESCRIBE  → INFORM DIRECTORY
// A store error answers FAILURE INTERNAL_ERROR; nothing here throws.
import { emit, fromPromise, setup } from 'xstate';
import { type Envelope, replyTo } from '../../shared/acl/envelope.js';
import { errorContent, type ErrorCode, performativeFor } from '../../shared/acl/errors.js';
import type {
  AgentProfile, DeregisterContent, DescribeContent, EnrolContent, DirectoryEntry, HeartbeatContent, NeedContent, RegisterContent,
} from '../../shared/contracts/types.gen.js';
import type { ExchangeEmitted, ExchangeInput, InboundEvent } from '../../shared/runtime/exchange.js';
import { bare } from '../../shared/transport/stanza.js';
import type { Credential, RedeemOutcome } from '../../shared/identity/enrolment.js';
import type { BindOutcome } from './bindings.js';

export interface RegistryInput extends ExchangeInput {
  /** Epoch ms at arrival (main.ts passes Date.now(); tests pass fixed values). */
  now: number;
}

const notProvided = (name: string) => async (): Promise<never> => {
  throw new Error(`actor ${name} is provided by main.ts`);
};

/** The DID a REGISTER binds: the profile's, else the one that signed the envelope (none when unsigned). */
export function registeringDid(request: Envelope): string | undefined {
  const did = (request.content as { profile?: { did?: unknown } }).profile?.did;
  return typeof did === 'string' ? did : request.sender_did;
}

/** Output of the candidates lookup: JIDs best first, and the DF's DID binding of each. */
export interface CandidatesOutput {
  candidates: string[];
  dids?: Record<string, string>;
}

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
    bind: fromPromise<BindOutcome, { jid: string; did: string; now: number }>(notProvided('bind')),
    candidates: fromPromise<CandidatesOutput, { need: string; hint?: string; role?: string; now: number }>(notProvided('candidates')),
    describe: fromPromise<DirectoryEntry[], { capability?: string; now: number }>(notProvided('describe')),
    redeem: fromPromise<RedeemOutcome, { token: string; jid: string; did: string }>(notProvided('redeem')),
  },
  guards: {
    // The profile/jid must be the sender's own authenticated JID: nobody registers for another.
    speaksForAnother: ({ context }) => claimedJid(context.request) !== context.from.jid,
    // Agora §2: a profile may only name the key that signed the envelope.
    didNotSigner: ({ context }) => {
      const did = content<RegisterContent>(context).profile.did;
      return did !== undefined && context.request.sender_did !== undefined && did !== context.request.sender_did;
    },
    hasDid: ({ context }) => registeringDid(context.request) !== undefined,
  },
  actions: {
    refuseMismatch: emit(({ context }) =>
      answerError(context, 'SENDER_MISMATCH', `content jid ${JSON.stringify(claimedJid(context.request) ?? null)} is not the sender ${context.from.jid}`)),
    failInternal: emit(({ context }, params: { error: unknown }) => answerError(context, 'INTERNAL_ERROR', `directory: ${message(params.error)}`)),
  },
});

const checkSender = { always: [{ guard: 'speaksForAnother', target: 'done', actions: 'refuseMismatch' }, { target: 'working' }] } as const;
const onStoreError = { target: 'done', actions: { type: 'failInternal', params: ({ event }: { event: { error: unknown } }) => ({ error: event.error }) } } as const;

const refuseDid = (context: RegistryInput, detail: string) => answerError(context, 'DID_MISMATCH', detail);

export const registerMachine = registry.createMachine({
  id: 'registry-register',
  context: ({ input }) => input,
  initial: 'checking',
  states: {
    checking: {
      always: [
        { guard: 'speaksForAnother', target: 'done', actions: 'refuseMismatch' },
        {
          guard: 'didNotSigner', target: 'done',
          actions: emit(({ context }) => refuseDid(context, 'profile.did is not the sender_did that signed the envelope')),
        },
        { guard: 'hasDid', target: 'binding' },
        { target: 'working' },
      ],
    },
    binding: {
      invoke: {
        src: 'bind',
        input: ({ context }) => ({ jid: context.from.jid, did: registeringDid(context.request) as string, now: context.now }),
        onDone: [
          {
            guard: ({ event }) => event.output.ok,
            target: 'working',
            actions: emit(({ event }) => ({ type: 'note' as const, decision: 'did-bound', detail: event.output })),
          },
          {
            guard: ({ event }) => !event.output.ok && event.output.bound === undefined,
            target: 'done',
            actions: emit(({ context }) => answerError(context, 'FORBIDDEN_SENDER',
              `${context.from.jid} is not an enrolled agent: the Registry accepts REGISTER only from identities the operator enrolled (\`npm run enrol -- issue ${context.from.name}\`)`)),
          },
          {
            target: 'done',
            actions: emit(({ context, event }) => refuseDid(context,
              `${context.from.jid} is enrolled with ${event.output.ok ? '' : event.output.bound}; another key needs the operator (\`npm run enrol -- issue ${context.from.name}\` or \`npm run keys -- rotate ${context.from.name}\`)`)),
          },
        ],
        onError: onStoreError,
      },
    },
    working: {
      invoke: {
        src: 'register',
        input: ({ context }) => {
          const { profile } = content<RegisterContent>(context);
          const did = registeringDid(context.request);
          return { profile: did === undefined ? profile : { ...profile, did }, now: context.now };
        },
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
          return { need: c.need, ...(c.hint !== undefined ? { hint: c.hint } : {}), ...(c.role !== undefined ? { role: c.role } : {}), now: context.now };
        },
        onDone: {
          target: 'done',
          actions: emit(({ context, event }) => answer(context, 'INFORM', {
            candidates: event.output.candidates,
            ...(event.output.dids && Object.keys(event.output.dids).length > 0 ? { dids: event.output.dids } : {}),
          })),
        },
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

export const enrolMachine = registry.createMachine({
  id: 'registry-enrol',
  context: ({ input }) => input,
  initial: 'checking',
  states: {
    checking: {
      always: [
        {
          // The credential binds the key that signed the request, nothing else (Agora §2).
          guard: ({ context }) => context.request.sender_did !== undefined && content<EnrolContent>(context).did !== context.request.sender_did,
          target: 'done',
          actions: emit(({ context }) => refuseDid(context, 'did is not the sender_did that signed the envelope')),
        },
        { target: 'redeeming' },
      ],
    },
    redeeming: {
      invoke: {
        src: 'redeem',
        input: ({ context }) => ({ token: content<EnrolContent>(context).token, jid: context.from.jid, did: content<EnrolContent>(context).did }),
        onDone: [
          {
            guard: ({ event }) => event.output.ok,
            target: 'done',
            actions: [
              emit(({ context, event }) => answer(context, 'INFORM', { type: 'ENROLLED', credential: (event.output as { credential: Credential }).credential })),
              emit(({ context }) => ({ type: 'note' as const, decision: 'enrolled', detail: { jid: context.from.jid } })),
            ],
          },
          {
            target: 'done',
            actions: emit(({ context, event }) => {
              const o = event.output as Extract<RedeemOutcome, { ok: false }>;
              return answerError(context, 'FORBIDDEN_SENDER', `enrolment refused (${o.reason}): ${o.detail}`);
            }),
          },
        ],
        onError: onStoreError,
      },
    },
    done: { type: 'final' },
  },
});
