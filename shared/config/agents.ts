// Tunables of the agents (issue #3), from the environment, with the seed contract's defaults.
// Every role reads its own knobs through here so names stay consistent across processes.
function ms(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got ${JSON.stringify(raw)}`);
  return n;
}

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
  /** Presenter: who may subscribe and chat: comma list of domains and/or bare JIDs. */
  presenterAllow: string[];
  /** Coordinator, Agora §3: auto = negotiate when the DF lists ≥ 2 candidates; always; never. */
  negotiate: 'auto' | 'always' | 'never';
  /** Coordinator: the contract-net CFP deadline (default: the AGREE timeout). */
  cfpTimeoutMs: number;
  /** Coordinator: budget.max_cost of every CFP (unset = no budget). */
  agoraMaxCost?: number;
  /** Coordinator: an offer counts as expired this long before its ttl ends (the ACCEPT's trip). */
  offerMarginMs: number;
}

function negotiateMode(raw: string | undefined): AgentTunables['negotiate'] {
  const v = raw === undefined || raw === '' ? 'auto' : raw;
  if (v !== 'auto' && v !== 'always' && v !== 'never') throw new Error(`PARLEY_NEGOTIATE must be auto, always or never, got ${JSON.stringify(raw)}`);
  return v;
}

function cost(raw: string | undefined): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`PARLEY_AGORA_MAX_COST must be a number ≥ 0, got ${JSON.stringify(raw)}`);
  return n;
}

export function loadTunables(env: NodeJS.ProcessEnv = process.env, domain = env.PARLEY_DOMAIN || 'localhost'): AgentTunables {
  const leaseMs = ms(env, 'PARLEY_LEASE_MS', 15000);
  const agreeTimeoutMs = ms(env, 'PARLEY_AGREE_TIMEOUT_MS', 3000);
  const maxCost = cost(env.PARLEY_AGORA_MAX_COST);
  return {
    agreeTimeoutMs,
    resultTimeoutMs: ms(env, 'PARLEY_RESULT_TIMEOUT_MS', 30000),
    registryTimeoutMs: ms(env, 'PARLEY_REGISTRY_TIMEOUT_MS', 3000),
    kbTimeoutMs: ms(env, 'PARLEY_KB_TIMEOUT_MS', 2000),
    leaseMs,
    heartbeatMs: ms(env, 'PARLEY_HEARTBEAT_MS', Math.max(100, Math.floor(leaseMs / 3))),
    specialistConcurrency: ms(env, 'PARLEY_SPECIALIST_CONCURRENCY', 8),
    presenterIdleMs: ms(env, 'PARLEY_PRESENTER_IDLE_MS', 30 * 60 * 1000),
    presenterTimeoutMs: ms(env, 'PARLEY_PRESENTER_TIMEOUT_MS', 120000),
    presenterProgressMs: ms(env, 'PARLEY_PRESENTER_PROGRESS_MS', 5000),
    presenterFilesPort: ms(env, 'PARLEY_FILES_PORT', 0),
    presenterAllow: (env.PARLEY_PRESENTER_ALLOW || domain).split(',').map((s) => s.trim()).filter(Boolean),
    negotiate: negotiateMode(env.PARLEY_NEGOTIATE),
    cfpTimeoutMs: ms(env, 'PARLEY_CFP_TIMEOUT_MS', agreeTimeoutMs),
    ...(maxCost !== undefined ? { agoraMaxCost: maxCost } : {}),
    offerMarginMs: env.PARLEY_OFFER_MARGIN_MS === '0' ? 0 : ms(env, 'PARLEY_OFFER_MARGIN_MS', 20),
  };
}
