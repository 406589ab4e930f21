// The DF's exchanges (seed contract §2.2): each request is answered once from the directory by the
// shared answer-once machine (shared/runtime/answer-once.ts); main.ts gives it the directory's
// operations (DirectoryOps), and `now` comes in the input.
//   REQUEST REGISTER    → INFORM REGISTERED | REFUSE SENDER_MISMATCH | REFUSE DID_MISMATCH |
//                         REFUSE FORBIDDEN_SENDER (not enrolled; the key must be the operator's
//                         binding: bindings.ts, docs/architecture.md "Identities and trust")
//   REQUEST REGISTER_MANY → INFORM REGISTERED_MANY | REFUSE (the first failing entry's code; none
//                         registered): each entry is checked as a REGISTER alone (register-many.ts)
//   INFORM HEARTBEAT    → (nothing) | FAILURE NOT_REGISTERED | REFUSE SENDER_MISMATCH
//   REQUEST DEREGISTER  → INFORM DEREGISTERED | FAILURE NOT_REGISTERED (FIPA SC00023 DF: not-registered)
//   REQUEST ENROL       → INFORM ENROLLED {credential} | REFUSE DID_MISMATCH | REFUSE FORBIDDEN_SENDER
//                         (token unknown, used, expired or for another account)
//   QUERY-REF {need}    → INFORM {candidates, dids}
//   QUERY-REF DESCRIBE  → INFORM DIRECTORY
// A store error answers FAILURE INTERNAL_ERROR; nothing here throws.
import { type AnyStateMachine, fromPromise } from 'xstate';
import { type Envelope, errorContent, type ErrorCode, performativeFor } from '../../shared/acl/index.js';
import type {
  AgentProfile, DeregisterContent, DescribeContent, EnrolContent, DirectoryEntry, HeartbeatContent,
  NeedContent, RegisterContent,
} from '../../shared/contracts/index.js';
import type { RedeemOutcome } from '../../shared/identity/index.js';
import {
  type Answer, type AnswerOnceInput, type HandlerInput, type Note, hotPathAnswerOnceMachine,
} from '../../shared/runtime/index.js';
import { bare } from '../../shared/transport/index.js';
import type { BindOutcome } from './bindings.js';
import { type EntryCheck, registerMany } from './register-many.js';

export const REGISTRY_KINDS = ['REGISTER', 'REGISTER_MANY', 'HEARTBEAT', 'DEREGISTER', 'ENROL', 'NEED', 'DESCRIBE'] as const;
export type RegistryKind = (typeof REGISTRY_KINDS)[number];

export interface RegistryInput extends AnswerOnceInput {
  kind: RegistryKind;
  /** Epoch ms at arrival (main.ts passes Date.now(); tests pass fixed values). */
  now: number;
}

/** Output of the candidates lookup: JIDs best first, and the DF's DID binding of each. */
export interface CandidatesOutput {
  candidates: string[];
  dids?: Record<string, string>;
  /** How many at the head rank alike and take turns (directory.ts rank). */
  lead?: number;
}

type Maybe<T> = T | Promise<T>;

/** What the answers need of the directory and the enrolment authority (main.ts; fakes in tests). */
export interface DirectoryOps {
  register(input: { profile: AgentProfile; now: number }): Maybe<{ jid: string; lease_ms: number }>;
  heartbeat(input: { jid: string; now: number }): Maybe<boolean>;
  deregister(input: { jid: string }): Maybe<boolean>;
  bind(input: { jid: string; did: string; now: number }): Maybe<BindOutcome>;
  /** max: NEED max_results (FIPA SC00023 df search-constraints max-results). */
  candidates(input: { need: string; hint?: string; role?: string; max?: number; now: number }): Maybe<CandidatesOutput>;
  describe(input: { capability?: string; now: number }): Maybe<DirectoryEntry[]>;
  redeem(input: { token: string; jid: string; did: string }): Maybe<RedeemOutcome>;
  /** REGISTER_MANY: one entry checked as the pipeline checks a REGISTER alone (register-many.ts). */
  checkEntry(input: { entry: unknown }): EntryCheck;
}

/** The DID a REGISTER binds: the profile's, else the one that signed the envelope (none when unsigned). */
export function registeringDid(request: Envelope): string | undefined {
  const did = (request.content as { profile?: { did?: unknown } }).profile?.did;
  return typeof did === 'string' ? did : request.sender_did;
}

/** The JID an envelope's content speaks for: profile.jid for REGISTER, jid otherwise. */
export function claimedJid(request: Envelope): string | undefined {
  const c = request.content as { profile?: { jid?: unknown }; jid?: unknown };
  const jid = c.profile?.jid ?? c.jid;
  return typeof jid === 'string' ? bare(jid) : undefined;
}

type Request = Required<HandlerInput>;

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));
const inform = (content: object, note?: Note): Answer => ({ performative: 'INFORM', content, ...(note ? { note } : {}) });
const failure = (code: ErrorCode, detail: string): Answer => ({ performative: performativeFor(code), content: errorContent(code, detail) });
/** The validated content of the initiating envelope (the pipeline checked it against contracts/). */
const content = <T>(r: Request): T => r.request.content as unknown as T;

/** The profile/jid must be the sender's own authenticated JID: nobody registers for another. */
function speaksForAnother(r: Request): Answer | undefined {
  if (claimedJid(r.request) === r.from.jid) return undefined;
  return failure('SENDER_MISMATCH', `content jid ${JSON.stringify(claimedJid(r.request) ?? null)} is not the sender ${r.from.jid}`);
}

async function register(ops: DirectoryOps, r: Request, steps: Note[]): Promise<Answer> {
  const mismatch = speaksForAnother(r);
  if (mismatch) return mismatch;
  const { profile } = content<RegisterContent>(r);
  // Agora §2: a profile may only name the key that signed the envelope.
  if (profile.did !== undefined && r.request.sender_did !== undefined && profile.did !== r.request.sender_did) {
    return failure('DID_MISMATCH', 'profile.did is not the sender_did that signed the envelope');
  }
  const did = registeringDid(r.request);
  if (did !== undefined) {
    const bound = await ops.bind({ jid: r.from.jid, did, now: r.now });
    if (!bound.ok && bound.bound === undefined) {
      return failure('FORBIDDEN_SENDER',
        `${r.from.jid} is not an enrolled agent: the Registry accepts REGISTER only from identities the operator enrolled (\`npm run enrol -- issue ${r.from.name}\`)`);
    }
    if (!bound.ok) {
      return failure('DID_MISMATCH',
        `${r.from.jid} is enrolled with ${bound.bound}; another key needs the operator (\`npm run enrol -- issue ${r.from.name}\` or \`npm run keys -- rotate ${r.from.name}\`)`);
    }
    steps.push({ decision: 'did-bound', detail: bound });
  }
  const registered = await ops.register({ profile: did === undefined ? profile : { ...profile, did }, now: r.now });
  return inform({ type: 'REGISTERED', jid: registered.jid, lease_ms: registered.lease_ms }, { decision: 'registered', detail: registered });
}

async function enrol(ops: DirectoryOps, r: Request): Promise<Answer> {
  const { token, did } = content<EnrolContent>(r);
  // The credential binds the key that signed the request, nothing else (Agora §2).
  if (r.request.sender_did !== undefined && did !== r.request.sender_did) return failure('DID_MISMATCH', 'did is not the sender_did that signed the envelope');
  const outcome = await ops.redeem({ token, jid: r.from.jid, did });
  if (!outcome.ok) return failure('FORBIDDEN_SENDER', `enrolment refused (${outcome.reason}): ${outcome.detail}`);
  return inform({ type: 'ENROLLED', credential: outcome.credential }, { decision: 'enrolled', detail: { jid: r.from.jid } });
}

async function answer(ops: DirectoryOps, kind: RegistryKind, r: Request, steps: Note[]): Promise<Answer | null> {
  switch (kind) {
    case 'REGISTER':
      return register(ops, r, steps);
    case 'REGISTER_MANY':
      return registerMany(ops, r, steps);
    case 'HEARTBEAT': {
      // Renewed: HEARTBEAT is an INFORM, nothing to answer. No lease: tell the agent to register again.
      const mismatch = speaksForAnother(r);
      if (mismatch) return mismatch;
      if (await ops.heartbeat({ jid: content<HeartbeatContent>(r).jid, now: r.now })) return null;
      return failure('NOT_REGISTERED', `no live registration for ${r.from.jid}: send REGISTER again`);
    }
    case 'DEREGISTER': {
      const mismatch = speaksForAnother(r);
      if (mismatch) return mismatch;
      if (await ops.deregister({ jid: content<DeregisterContent>(r).jid })) return inform({ type: 'DEREGISTERED', jid: r.from.jid });
      return failure('NOT_REGISTERED', `${r.from.jid} is not registered`);
    }
    case 'ENROL':
      return enrol(ops, r);
    case 'NEED': {
      const c = content<NeedContent>(r);
      const found = await ops.candidates({
        need: c.need, ...(c.hint !== undefined ? { hint: c.hint } : {}), ...(c.role !== undefined ? { role: c.role } : {}),
        ...(c.max_results !== undefined ? { max: c.max_results } : {}), now: r.now,
      });
      return inform({
        candidates: found.candidates, ...(found.dids && Object.keys(found.dids).length > 0 ? { dids: found.dids } : {}),
        ...(found.lead !== undefined && found.lead > 1 ? { lead: found.lead } : {}),
      });
    }
    case 'DESCRIBE': {
      const c = content<DescribeContent>(r);
      return inform({ type: 'DIRECTORY', agents: await ops.describe({ ...(c.capability !== undefined ? { capability: c.capability } : {}), now: r.now }) });
    }
  }
}

/** The answer to one DF request, or null (a renewed heartbeat); a store error is answered, never thrown. */
export async function answerRegistry(ops: DirectoryOps, kind: RegistryKind, r: Request): Promise<Answer | null> {
  const steps: Note[] = [];
  const withSteps = (a: Answer | null) => (a === null || steps.length === 0 ? a : { ...a, steps });
  try {
    return withSteps(await answer(ops, kind, r, steps));
  } catch (err) {
    return withSteps(failure('INTERNAL_ERROR', `directory: ${message(err)}`));
  }
}

/** The machine every DF request runs (built once: provide() copies the machine). On the hot path: notes only for its decisions, no timer. */
export function registryMachine(ops: DirectoryOps): AnyStateMachine {
  return hotPathAnswerOnceMachine.provide({
    actors: {
      handle: fromPromise<Answer | null, HandlerInput>(async ({ input }) =>
        answerRegistry(ops, input.kind as RegistryKind, { ...input, now: input.now ?? Date.now() })),
    },
  });
}
