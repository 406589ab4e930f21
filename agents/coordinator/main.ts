// The Coordinator process (seed contract §3): every USER_MSG from the Presenter opens one
// exchange actor; all operational traffic (DF, specialists, KB) goes through here.
import { loadTunables } from '../../shared/config/agents.js';
import { createAgent } from '../../shared/runtime/boot.js';
import { warmUp } from '../../shared/runtime/warm-up.js';
import { CandidateCache } from './candidate-cache.js';
import { userMsgFactory } from './factory.js';

const { agent, config, logger } = createAgent({ account: 'coordinator' });
const { agreeTimeoutMs, resultTimeoutMs, registryTimeoutMs, kbTimeoutMs } = loadTunables(process.env, config.domain);
const timeouts = { agreeTimeoutMs, resultTimeoutMs, registryTimeoutMs, kbTimeoutMs };
// PARLEY_CANDIDATE_CACHE_MS: how long a DF answer serves questions of the same shape (0 = off).
const cacheMs = Number(process.env.PARLEY_CANDIDATE_CACHE_MS ?? 250);
if (!Number.isFinite(cacheMs) || cacheMs < 0) throw new Error(`PARLEY_CANDIDATE_CACHE_MS must be a number ≥ 0, got ${process.env.PARLEY_CANDIDATE_CACHE_MS}`);

agent.router.on('USER_MSG', userMsgFactory({ self: agent.name, domain: config.domain, timeouts, cache: new CandidateCache(cacheMs) }));
// Compile the contracts before going online: the first question pays no compile.
warmUp(agent);
await agent.start();
logger.info({ jid: agent.self.jid, ...timeouts, candidateCacheMs: cacheMs }, 'online');
