// The Coordinator process (seed contract §3): every USER_MSG from the Presenter opens one
// exchange actor; all operational traffic (DF, specialists, KB) goes through here.
import { loadTunables } from '../../shared/config/agents.js';
import { createAgent } from '../../shared/runtime/boot.js';
import { userMsgFactory } from './factory.js';

const { agent, config, logger } = createAgent({ account: 'coordinator' });
const { agreeTimeoutMs, resultTimeoutMs, registryTimeoutMs, kbTimeoutMs } = loadTunables(process.env, config.domain);
const timeouts = { agreeTimeoutMs, resultTimeoutMs, registryTimeoutMs, kbTimeoutMs };

agent.router.on('USER_MSG', userMsgFactory({ self: agent.name, domain: config.domain, timeouts }));
await agent.start();
logger.info({ jid: agent.self.jid, ...timeouts }, 'online');
