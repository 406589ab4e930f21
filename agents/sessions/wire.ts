// The sessions agent's features (docs/sessions.md): the store, the SESSION_* handlers, the
// person's chat lines the Coordinator forwards (SESSION_CHAT), and its DF registration whose
// profile carries the RFC 0001 §3.3 `sessions` manifest (DESCRIBE capability SESSIONS finds it).
import { randomUUID } from 'node:crypto';
import { fromPromise } from 'xstate';
import type { Envelope } from '../../shared/acl/index.js';
import { envNumber } from '../../shared/config/index.js';
import type { AgentProfile, SessionsManifest } from '../../shared/contracts/index.js';
import { pinnedDids } from '../../shared/identity/index.js';
import { type Booted, type Answer, answerOnceMachine, type HandlerInput } from '../../shared/runtime/index.js';
import { registerWithDf } from '../../shared/runtime/registration.js';
import { groupOn, requestKey } from '../../shared/store/index.js';
import { packageVersion } from '../../shared/runtime/repo-root.js';
import { parseSessionCommand, PLAN_SCHEMA, type SessionLimits, SessionService, sessionsDbFile, SessionStore } from '../../shared/sessions/index.js';
import { chatCommand } from './chat.js';

export const SESSION_KINDS = ['SESSION_CREATE', 'SESSION_JOIN', 'SESSION_LEAVE', 'SESSION_STATE', 'SESSION_UPDATE', 'SESSION_CLOSE', 'SESSION_LOG', 'SESSION_HANDOFF', 'SESSION_DELETE'] as const;

/** PARLEY_SESSION_QUOTA (20 open sessions per convener or person), PARLEY_SESSION_MAX_PARTICIPANTS (16), PARLEY_SESSION_MAX_HOURS (720). */
export function sessionLimits(env: NodeJS.ProcessEnv = process.env): SessionLimits {
  return {
    quota: envNumber('PARLEY_SESSION_QUOTA', env),
    maxParticipants: envNumber('PARLEY_SESSION_MAX_PARTICIPANTS', env),
    maxDurationHours: envNumber('PARLEY_SESSION_MAX_HOURS', env),
  };
}

export function manifest(limits: SessionLimits): SessionsManifest {
  return {
    supported: true, max_participants: limits.maxParticipants, max_duration_hours: limits.maxDurationHours, state_schema: PLAN_SCHEMA,
    concurrency_model: 'optimistic', resumable_after_disconnect: true, supports_pause: false, supports_handoff: true,
  };
}

/** Registers the handlers on the agent's router; returns the service and `register` (call after agent.start()). */
export function wireSessions(booted: Booted, heartbeatMs: number): { service: SessionService; register: () => void } {
  const { agent, config, logger } = booted;
  const limits = sessionLimits();
  const store = new SessionStore(sessionsDbFile(config));
  // A step and its stored answer commit with the inbound burst, before the exchange that records
  // it was handled (group-commit.ts): a kill -9 before the commit leaves the step unapplied and
  // the line to ejabberd's redelivery, never applied with the person told it timed out.
  booted.groupWith(groupOn(store.db));
  const service = new SessionService(store, limits);
  // Answered once: a restored exchange re-runs its handler after a crash (shared/store/answered.ts).
  const request = answerOnceMachine.provide({
    actors: {
      handle: fromPromise<Answer | null, HandlerInput>(async ({ input: { request: r, from } }) =>
        store.once(requestKey(r, from.jid), () => service.handle({ kind: String(r.content.type), sessionId: r.conversation_id, did: r.sender_did, name: from.name, role: from.role, content: r.content }))),
    },
  });
  for (const kind of SESSION_KINDS) agent.router.on(kind, (r, from) => ({ machine: request, input: { request: r, from, self: agent.name } }));

  // SESSION_CHAT reaches this handler only from the Coordinator (its declaration, enforced by the
  // pipeline's role policy). The convening DID it names must be the Presenter's pinned one. A line
  // taken up after the Coordinator stopped waiting (answer_within_ms, less 1 s for the way back:
  // e.g. a restart that took longer) is not applied: the person was told it failed.
  const presenterJid = `presenter@${config.domain}`;
  const chat = answerOnceMachine.provide({
    actors: {
      handle: fromPromise<Answer | null, HandlerInput>(async ({ input: { request: r, from } }) =>
        store.once(requestKey(r, from.jid), () => {
          if (tooLate(r, Date.now())) {
            return { performative: 'INFORM', content: { type: 'SESSION_CHAT_REPLY', text: 'Session: that line came too late and was not applied; please send it again.', rich: { kind: 'session', status: 'too-late' } } };
          }
          const claimed = typeof r.content.presenter_did === 'string' ? r.content.presenter_did : undefined;
          const presenterDid = claimed !== undefined && claimed === pinnedDids(config.home).get(presenterJid) ? claimed : undefined;
          const cmd = parseSessionCommand(String(r.content.text)) ?? { op: 'show' as const };
          const answer = chatCommand(service, r, String(r.content.on_behalf_of), presenterDid, cmd);
          return { performative: 'INFORM', content: { type: 'SESSION_CHAT_REPLY', ...answer } };
        })),
    },
  });
  agent.router.on('SESSION_CHAT', (r, from) => ({ machine: chat, input: { request: r, from, self: agent.name } }));

  // Closed at exit, not in a hook: requests arriving while the transport stops still find it open.
  process.once('exit', () => store.close());
  logger.info({ ...limits, file: sessionsDbFile(config) }, 'sessions ready');
  return { service, register: () => registerManifest(booted, heartbeatMs, limits) };
}

/** Whether the Coordinator has given up on `r` by `now` (its answer_within_ms from the envelope's timestamp, less 1 s). */
export function tooLate(r: Envelope, now: number): boolean {
  const within = typeof r.content.answer_within_ms === 'number' ? r.content.answer_within_ms : undefined;
  const sent = Date.parse(r.timestamp ?? '');
  return within !== undefined && Number.isFinite(sent) && now > sent + within - 1000;
}

/** The sessions agent's DF registration (docs/runtime.md §5), so the manifest is in the DF. */
function registerManifest({ agent, logger, onShutdown }: Booted, heartbeatMs: number, limits: SessionLimits): void {
  const profile: AgentProfile = {
    jid: agent.self.jid, name: agent.name, role: 'sessions', version: packageVersion(), capabilities: ['SESSIONS'],
    ...(agent.signing?.did ? { did: agent.signing.did } : {}),
    description: 'Sessions: OAP RFC 0001 Coordination Sessions (SESSION_CREATE, JOIN, LEAVE, STATE, UPDATE, CLOSE, LOG, HANDOFF, DELETE)',
    sessions: manifest(limits),
  };
  const registration = registerWithDf(agent, profile, { heartbeatMs, key: `reg-sessions-${randomUUID()}`, onRegistered: (e) => logger.info(e, 'registered (sessions manifest)') });
  onShutdown(async () => {
    if (!(await registration.deregister())) logger.warn('deregister: no answer');
  });
}
