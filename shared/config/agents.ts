// Tunables of the agents (issue #3), from the environment, with the seed contract's defaults.
// Every role reads its own knobs through here so names stay consistent across processes.
import { envList, envNumber, envOptionalNumber, envEnum, envString } from './env.js';

export interface AgentTunables {
  /** Seed contract §3: AGREE within 3 s. */
  agreeTimeoutMs: number;
  /** Seed contract §3: RESULT within 30 s. */
  resultTimeoutMs: number;
  /** How long the Coordinator waits for the DF's candidates. */
  registryTimeoutMs: number;
  /** How long the Coordinator waits for the KB's STORED or FACTS before KB_UNAVAILABLE. */
  kbTimeoutMs: number;
  /** DF lease: an agent whose heartbeats stop is dropped after this long. */
  leaseMs: number;
  /** Heartbeat period of registered agents (default lease / 3). */
  heartbeatMs: number;
  /** Concurrent ASK_EXPERT per specialist before it REFUSEs busy. */
  specialistConcurrency: number;
  /** Presenter: a person's conversation_id is renewed after this much silence. */
  presenterIdleMs: number;
  /** Presenter: how long a person waits before "no answer" (must exceed the Coordinator's worst case). */
  presenterTimeoutMs: number;
  /** A person waiting this long is told the work is under way (PARLEY_PRESENTER_PROGRESS_MS, 5 s). */
  presenterProgressMs: number;
  /** Loopback port of the Presenter's attachment server (PARLEY_FILES_PORT; 0 = any free port). */
  presenterFilesPort: number;
  /** Presenter fairness (agents/presenter/fairness.ts): PARLEY_CHAT_RATE_PER_S, PARLEY_CHAT_BURST, PARLEY_CHAT_IN_FLIGHT, PARLEY_CHAT_QUEUE, PARLEY_CHAT_IN_FLIGHT_TOTAL. */
  chat: { ratePerS: number; burst: number; inFlightPerPerson: number; queuePerPerson: number; inFlightTotal: number };
  /** Presenter: who may subscribe and chat: comma list of domains and/or bare JIDs. */
  presenterAllow: string[];
  /** Coordinator, Agora §3: auto = negotiate when the DF lists ≥ 2 candidates; always; never. */
  negotiate: 'auto' | 'always' | 'never';
  /** Coordinator: the contract-net CFP deadline (default: the AGREE timeout). */
  cfpTimeoutMs: number;
  /** Coordinator: CFPs per negotiated question (the DF's first N). */
  cfpMaxCandidates: number;
  /** Coordinator: budget.max_cost of every CFP (unset = no budget). */
  agoraMaxCost?: number;
  /** Coordinator: an offer counts as expired this long before its ttl ends (the ACCEPT's trip). */
  offerMarginMs: number;
}

export function loadTunables(env: NodeJS.ProcessEnv = process.env, domain = envString('PARLEY_DOMAIN', env) as string): AgentTunables {
  const leaseMs = envNumber('PARLEY_LEASE_MS', env);
  const agreeTimeoutMs = envNumber('PARLEY_AGREE_TIMEOUT_MS', env);
  const maxCost = envOptionalNumber('PARLEY_AGORA_MAX_COST', env);
  return {
    agreeTimeoutMs,
    resultTimeoutMs: envNumber('PARLEY_RESULT_TIMEOUT_MS', env),
    registryTimeoutMs: envNumber('PARLEY_REGISTRY_TIMEOUT_MS', env),
    kbTimeoutMs: envNumber('PARLEY_KB_TIMEOUT_MS', env),
    leaseMs,
    heartbeatMs: envNumber('PARLEY_HEARTBEAT_MS', env, Math.max(100, Math.floor(leaseMs / 3))),
    specialistConcurrency: envNumber('PARLEY_SPECIALIST_CONCURRENCY', env),
    presenterIdleMs: envNumber('PARLEY_PRESENTER_IDLE_MS', env),
    presenterTimeoutMs: envNumber('PARLEY_PRESENTER_TIMEOUT_MS', env),
    presenterProgressMs: envNumber('PARLEY_PRESENTER_PROGRESS_MS', env),
    presenterFilesPort: envNumber('PARLEY_FILES_PORT', env),
    presenterAllow: envList('PARLEY_PRESENTER_ALLOW', env, [domain]),
    chat: {
      ratePerS: envNumber('PARLEY_CHAT_RATE_PER_S', env),
      burst: envNumber('PARLEY_CHAT_BURST', env),
      inFlightPerPerson: envNumber('PARLEY_CHAT_IN_FLIGHT', env),
      queuePerPerson: envNumber('PARLEY_CHAT_QUEUE', env),
      inFlightTotal: envNumber('PARLEY_CHAT_IN_FLIGHT_TOTAL', env),
    },
    negotiate: envEnum('PARLEY_NEGOTIATE', env),
    cfpTimeoutMs: envNumber('PARLEY_CFP_TIMEOUT_MS', env, agreeTimeoutMs),
    cfpMaxCandidates: envNumber('PARLEY_CFP_MAX_CANDIDATES', env),
    ...(maxCost !== undefined ? { agoraMaxCost: maxCost } : {}),
    offerMarginMs: envNumber('PARLEY_OFFER_MARGIN_MS', env),
  };
}
