// Sessions in the Coordinator process (docs/sessions.md): the store, the SESSION_* handlers, the
// chat commands the factory routes here, and the Coordinator's own DF registration whose profile
// carries the RFC 0001 §3.3 `sessions` manifest (DESCRIBE capability SESSIONS finds it).
import { randomUUID } from 'node:crypto';
import { fromPromise } from 'xstate';
import type { Envelope } from '../../../shared/acl/index.js';
import { envNumber } from '../../../shared/config/index.js';
import type { AgentProfile, SessionsManifest } from '../../../shared/contracts/index.js';
import type { Booted, Answer, HandlerInput, ExchangeFactory, Identity } from '../../../shared/runtime/index.js';
import { registerWithDf } from '../../../shared/runtime/registration.js';
import { requestKey } from '../../../shared/store/index.js';
import { packageVersion } from '../../../shared/runtime/repo-root.js';
import { chatCommand, parseSessionCommand } from './chat.js';
import { sessionMachine } from './machine.js';
import { PLAN_SCHEMA } from './schemas.js';
import { type SessionLimits, SessionService } from './service.js';
import { sessionsDbFile, SessionStore } from './store.js';

export const SESSION_KINDS = ['SESSION_CREATE', 'SESSION_JOIN', 'SESSION_LEAVE', 'SESSION_STATE', 'SESSION_UPDATE', 'SESSION_CLOSE', 'SESSION_LOG', 'SESSION_HANDOFF', 'SESSION_DELETE'] as const;


/** PARLEY_SESSION_QUOTA (20 open sessions per convener), PARLEY_SESSION_MAX_PARTICIPANTS (16), PARLEY_SESSION_MAX_HOURS (720). */
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

export interface SessionsWiring {
  service: SessionService;
  /** For the USER_MSG factory: a chat line that is a session command, else undefined. */
  chatRoute: (request: Envelope, from: Identity) => ReturnType<ExchangeFactory> | undefined;
  /** After agent.start(): REGISTER with the DF, heartbeats, DEREGISTER at shutdown. */
  register: () => void;
}

export function wireSessions(booted: Booted, heartbeatMs: number): SessionsWiring {
  const { agent, config, logger } = booted;
  const limits = sessionLimits();
  const store = new SessionStore(sessionsDbFile(config));
  const service = new SessionService(store, limits);
  const request = sessionMachine.provide({
    actors: {
      // Answered once: a restored exchange re-runs this after a crash (shared/store/answered.ts).
      handle: fromPromise<Answer | null, HandlerInput>(async ({ input: { request: r, from } }) =>
        store.once(requestKey(r, from.jid), () => service.handle({ kind: String(r.content.type), sessionId: r.conversation_id, did: r.sender_did, name: from.name, role: from.role, content: r.content }))),
    },
  });
  for (const kind of SESSION_KINDS) agent.router.on(kind, (r, from) => ({ machine: request, input: { request: r, from, self: agent.name } }));
  const chat = sessionMachine.provide({
    actors: {
      handle: fromPromise<Answer | null, HandlerInput>(async ({ input: { request: r, from } }) =>
        store.once(requestKey(r, from.jid), () => {
          const reply = chatCommand(service, r, from, parseSessionCommand(String(r.content.text)) ?? { op: 'show' });
          return { performative: reply.performative, content: reply.content };
        })),
    },
  });
  const chatRoute = (r: Envelope, from: Identity) =>
    (parseSessionCommand(String(r.content.text ?? '')) ? { machine: chat, input: { request: r, from, self: agent.name } } : undefined);

  // Closed at exit, not in a hook: requests arriving while the transport stops still find it open.
  process.once('exit', () => store.close());
  logger.info({ ...limits, file: sessionsDbFile(config) }, 'sessions ready');
  return { service, chatRoute, register: () => registerManifest(booted, heartbeatMs, limits) };
}

/** The Coordinator's own DF registration (docs/runtime.md §5), so the manifest is in the DF. */
function registerManifest({ agent, logger, onShutdown }: Booted, heartbeatMs: number, limits: SessionLimits): void {
  const profile: AgentProfile = {
    jid: agent.self.jid, name: agent.name, version: packageVersion(), capabilities: ['SESSIONS'],
    ...(agent.signing?.did ? { did: agent.signing.did } : {}),
    description: 'Coordinator: OAP RFC 0001 Coordination Sessions (SESSION_CREATE, JOIN, LEAVE, STATE, UPDATE, CLOSE, LOG, HANDOFF, DELETE)',
    sessions: manifest(limits),
  };
  const registration = registerWithDf(agent, profile, { heartbeatMs, key: `reg-coordinator-${randomUUID()}`, onRegistered: (e) => logger.info(e, 'registered (sessions manifest)') });
  onShutdown(async () => {
    if (!(await registration.deregister())) logger.warn('deregister: no answer');
  });
}
