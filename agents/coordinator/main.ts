// The Coordinator process (seed contract §3): every USER_MSG from the Presenter opens one
// exchange actor; all operational traffic (DF, specialists, KB) goes through here, including a
// specialist's delegation (DELEGATE_TASK, QUERY_AGENTS, BROADCAST_EVENT).
import { fromPromise } from 'xstate';
import { loadTunables } from '../../shared/config/agents.js';
import { createAgent } from '../../shared/runtime/boot.js';
import { warmUp } from '../../shared/runtime/warm-up.js';
import { controlRequest } from '../../shared/supervisor/control.js';
import { broadcastMachine, queryAgentsMachine } from './agents-ops.js';
import { CandidateCache } from './candidate-cache.js';
import { delegateFactory, directoryFactory, userMsgFactory } from './factory.js';
import { expertMachine, type ScaleInput, type ScaleOutput } from './machine.js';

const { agent, config, logger } = createAgent({ account: 'coordinator' });
const { agreeTimeoutMs, resultTimeoutMs, registryTimeoutMs, kbTimeoutMs } = loadTunables(process.env, config.domain);
const scaleTimeoutMs = Number(process.env.PARLEY_SCALE_TIMEOUT_MS || 20000);
const timeouts = { agreeTimeoutMs, resultTimeoutMs, registryTimeoutMs, kbTimeoutMs, scaleTimeoutMs };
// PARLEY_CANDIDATE_CACHE_MS: how long a DF answer serves questions of the same shape (0 = off).
const cacheMs = Number(process.env.PARLEY_CANDIDATE_CACHE_MS ?? 250);
if (!Number.isFinite(cacheMs) || cacheMs < 0) throw new Error(`PARLEY_CANDIDATE_CACHE_MS must be a number ≥ 0, got ${process.env.PARLEY_CANDIDATE_CACHE_MS}`);

// Scaling is an operator-side action, not an agent message: the supervisor that started us
// listens on a local control socket ($PARLEY_HOME/run/supervisor.sock). No supervisor → the
// person gets NO_CANDIDATE as before. PARLEY_AUTOSCALE=0 turns it off.
const expert = expertMachine.provide({
  actors: {
    scale: fromPromise<ScaleOutput, ScaleInput>(async ({ input }) => {
      const res = await controlRequest(config, 'POST', '/scale', { busy: input.busy });
      if (!res) throw new Error('no supervisor is running for this PARLEY_HOME');
      if (res.status !== 200 && res.status !== 201) throw new Error(`${String(res.body.error)}: ${String(res.body.detail)}`);
      logger.info({ agent: (res.body.agent as { name?: string })?.name, ready_ms: res.body.ready_ms }, 'scaled up');
      return res.body as ScaleOutput;
    }),
  },
});
const opts = { self: agent.name, domain: config.domain, timeouts, expert, canScale: process.env.PARLEY_AUTOSCALE !== '0' };

agent.router.on('USER_MSG', userMsgFactory({ ...opts, cache: new CandidateCache(cacheMs) }));
agent.router.on('DELEGATE_TASK', delegateFactory(opts));
agent.router.on('QUERY_AGENTS', directoryFactory(opts, queryAgentsMachine));
agent.router.on('BROADCAST_EVENT', directoryFactory(opts, broadcastMachine));
// Compile the contracts before going online: the first question pays no compile.
warmUp(agent);
await agent.start();
logger.info({ jid: agent.self.jid, ...timeouts, candidateCacheMs: cacheMs }, 'online');
