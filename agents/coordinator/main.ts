// The Coordinator process (seed contract §3): every USER_MSG from the Presenter opens one
// exchange actor; all operational traffic (DF, specialists, KB) goes through here.
import { loadTunables } from '../../shared/config/agents.js';
import { contracts } from '../../shared/contracts/index.js';
import { createAgent } from '../../shared/runtime/boot.js';
import { CandidateCache } from './candidate-cache.js';
import { userMsgFactory } from './factory.js';

const { agent, config, logger } = createAgent({ account: 'coordinator' });
const tunables = loadTunables(process.env, config.domain);
const { agreeTimeoutMs, resultTimeoutMs, registryTimeoutMs, kbTimeoutMs } = tunables;
const timeouts = { agreeTimeoutMs, resultTimeoutMs, registryTimeoutMs, kbTimeoutMs };
// PARLEY_CANDIDATE_CACHE_MS: how long a DF answer serves questions of the same shape (0 = off).
const cacheMs = Number(process.env.PARLEY_CANDIDATE_CACHE_MS ?? 250);
if (!Number.isFinite(cacheMs) || cacheMs < 0) throw new Error(`PARLEY_CANDIDATE_CACHE_MS must be a number ≥ 0, got ${process.env.PARLEY_CANDIDATE_CACHE_MS}`);
// Agora §3 negotiated flow (docs/acl_contract.md "Negotiated requests").
const agora = {
  mode: tunables.negotiate, cfpTimeoutMs: tunables.cfpTimeoutMs, acceptMarginMs: tunables.offerMarginMs,
  ...(tunables.agoraMaxCost !== undefined ? { maxCost: tunables.agoraMaxCost } : {}),
};

agent.router.on('USER_MSG', userMsgFactory({ self: agent.name, domain: config.domain, timeouts, cache: new CandidateCache(cacheMs), agora }));
// Compile the contracts before going online: the first question pays no compile.
contracts();
await agent.start();
logger.info({ jid: agent.self.jid, ...timeouts, candidateCacheMs: cacheMs, agora }, 'online');
