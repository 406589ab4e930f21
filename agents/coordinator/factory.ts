// One USER_MSG → one exchange actor; the intent of its text picks the machine (a session line
// forwarded to the sessions agent, help, recall, OACoP scheduling and tasks, or the seed contract
// §3 expert flow). main.ts registers this with router.on('USER_MSG', …), and the delegation
// factories below for a specialist's DELEGATE_TASK, QUERY_AGENTS, BROADCAST_EVENT.
import { assign } from 'xstate';
import type { Envelope } from '../../shared/acl/index.js';
import type { ExchangeFactory, Identity } from '../../shared/runtime/index.js';
import { parseSessionCommand } from '../../shared/sessions/index.js';
import type { queryAgentsMachine } from './agents-ops.js';
import type { BusyRetrySettings } from './busy-wait.js';
import type { CandidateCache, WinnerMemory } from './candidate-cache.js';
import type { CoordinatorTimeouts } from './envelopes.js';
import { userMsg } from './envelopes.js';
import { helpMachine } from './help.js';
import type { KbHealth } from './kb-health.js';
import type { KbOutcome } from './replies.js';
import { classifyIntent, type Intent } from './intent.js';
import { completion, openAskBack } from './scheduling/follow-up.js';
import { expertMachine, hintOf } from './expert/machine.js';
import type { AgoraSettings } from './negotiation.js';
import { recallMachine } from './recall.js';
import { sessionForwardMachine } from './session-forward.js';
import { type SchedulingDeps, schedulingRoute } from './scheduling/route.js';

export interface FactoryOptions {
  self: string;
  domain: string;
  timeouts: CoordinatorTimeouts;
  cache?: CandidateCache;
  /** Negotiation winners while their offers are fresh (PARLEY_NEGOTIATE=auto skips the CFP round). */
  winners?: WinnerMemory;
  /** Whether the KB keeps what it is sent: then an answer does not wait for STORED (kb-health.ts). */
  kb?: KbHealth;
  /** The expert flow with its `scale` actor provided (main.ts); the pure machine otherwise. */
  expert?: typeof expertMachine;
  canScale?: boolean;
  /** OACoP scheduling and tasks (docs/oacop.md). */
  scheduling?: SchedulingDeps;
  /** The negotiated flow (Agora §3 via contract-net); absent = the direct flow only. */
  agora?: AgoraSettings;
  /** Every candidate busy → wait and retry (busy-wait.ts); absent = NO_CANDIDATE at once. */
  busyRetry?: BusyRetrySettings;
}

export function userMsgFactory(opts: FactoryOptions): ExchangeFactory {
  const { cache, winners, kb } = opts;
  const base0 = opts.expert ?? expertMachine;
  // Provided once (provide() builds a new machine): the caches and the KB's health are the only side effects here.
  const expert = cache || winners || kb
    ? base0.provide({
      actions: {
        rememberCandidates: (_, p: { hint: string; jids: unknown; lead?: unknown }) => cache?.put(p.hint, p.jids, p.lead),
        forgetCandidates: (_, p: { hint: string }) => {
          cache?.forget(p.hint);
          winners?.forget(p.hint);
        },
        rememberWinner: (_, p: { hint: string; candidates: string[]; winner: string; ttlMs: number }) => winners?.put(p.hint, p.candidates, p.winner, p.ttlMs),
        preferWinner: assign(({ context }) => {
          // Asked again each round: a forgotten winner (its turn ended badly) is not preferred any more.
          return { preferred: winners?.get(context.hint, context.candidates.map((c) => c.name)) };
        }),
        checkKb: assign(() => ({ kbAhead: kb?.healthy() ?? false })),
        reportKb: (_, p: { kb: KbOutcome }) => kb?.report(p.kb),
      },
    })
    : base0;
  return (request: Envelope, from: Identity) => {
    const base = { request, from, self: opts.self, domain: opts.domain, timeouts: opts.timeouts, canScale: opts.canScale ?? false };
    const { text, user } = userMsg(request);
    // `session …` lines go to the sessions agent (session-forward.ts, docs/sessions.md).
    if (parseSessionCommand(text)) return { machine: sessionForwardMachine, input: base };
    const zone = user ? opts.scheduling?.zones?.()[user] : undefined;
    const now = opts.scheduling?.now?.();
    const intent = followUp(text, user, request.reply_with, opts.scheduling, now, zone) ?? classifyIntent(text, now, zone);
    const ask = () => {
      const cached = cache?.get(hintOf(text));
      const input = { ...base, ...(opts.agora ? { agora: opts.agora } : {}), ...(opts.busyRetry ? { busyRetry: opts.busyRetry } : {}), ...(zone ? { zone } : {}) };
      return { machine: expert, input: cached ? { ...input, cached } : input };
    };
    switch (intent.kind) {
      case 'help':
        return { machine: helpMachine, input: intent.topic ? { ...base, topic: intent.topic } : base };
      case 'smalltalk':
        return { machine: helpMachine, input: { ...base, greeting: intent.greeting } };
      case 'recall':
        return { machine: recallMachine, input: { ...base, topic: intent.topic, ...(zone ? { zone } : {}) } };
      case 'scheduling':
        return (opts.scheduling ? schedulingRoute(intent.command, base, opts.scheduling) : undefined) ?? ask();
      case 'ask':
        return ask();
    }
  };
}

/**
 * The line as the answer to what was asked back of this person (scheduling/follow-up.ts): the
 * completed request, when it reads as one; undefined reads the line on its own. The answering
 * line is recorded, so its copy after a restart completes it again and no other line does.
 */
function followUp(text: string, user: string | undefined, replyWith: string | undefined, deps: SchedulingDeps | undefined, now: Date | undefined, zone: string | undefined): Intent | undefined {
  if (!user || !deps?.askedBack) return undefined;
  const asked = openAskBack(deps.askedBack(user), replyWith, (now ?? new Date()).getTime());
  const completed = asked && completion(asked, text);
  if (!asked || !completed) return undefined;
  const intent = classifyIntent(completed, now, zone);
  if (intent.kind !== 'scheduling') return undefined;
  deps.saveAskedBack?.(user, { ...asked, usedBy: replyWith ?? '' });
  return intent;
}

/** A specialist's DELEGATE_TASK: the expert flow for another specialist (issue "Skills, roles and spawning"); no candidate cache (its lists are role-filtered and exclude the caller). */
export function delegateFactory(opts: FactoryOptions): ExchangeFactory {
  return (request: Envelope, from: Identity) => {
    const role = typeof request.content.role === 'string' ? request.content.role : undefined;
    const input = {
      request, from, self: opts.self, domain: opts.domain, timeouts: opts.timeouts, canScale: opts.canScale ?? false,
      delegation: { exclude: from.name, ...(role ? { role } : {}) }, ...(opts.busyRetry ? { busyRetry: opts.busyRetry } : {}),
    };
    return { machine: opts.expert ?? expertMachine, input };
  };
}

/** QUERY_AGENTS and BROADCAST_EVENT: answered from the live directory. */
export function directoryFactory(opts: FactoryOptions, machine: typeof queryAgentsMachine): ExchangeFactory {
  return (request: Envelope, from: Identity) => ({ machine, input: { request, from, self: opts.self, domain: opts.domain, timeouts: opts.timeouts } });
}
