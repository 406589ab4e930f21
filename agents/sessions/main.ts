// The sessions agent, sessions@<domain>: the Tool of OAP RFC 0001 Coordination Sessions
// (docs/sessions.md). Agents with a DID send it SESSION_*; a person's `session …` chat lines reach
// it only through the Coordinator (SESSION_CHAT). Its store is $PARLEY_HOME/data/sessions.sqlite.
// Wiring only: config, transport, features (wire.ts).
import { loadTunables } from '../../shared/config/index.js';
import { createAgent, restoreExchanges, startUp, warmUp } from '../../shared/runtime/index.js';
import { announce } from '../../shared/supervisor/ipc.js';
import { wireSessions } from './wire.js';

// Durable (docs/runtime.md "Durability"): a request caught by a kill -9 is answered once after the restart.
const { agent, config, logger, roster, store: exchanges, onShutdown, groupWith } = createAgent({ account: 'sessions', durable: true });
const sessions = wireSessions({ agent, config, logger, roster, onShutdown, groupWith }, loadTunables(process.env, config.domain).heartbeatMs);
if (exchanges) restoreExchanges(agent, exchanges);
warmUp(agent);
// No top-level await: the bundled agent is a CommonJS script, whose compiled code V8 can cache
// (scripts/bundle.ts, shared/supervisor/bundle-run.cts).
startUp(async () => {
  await agent.start();
  sessions.register();
  announce(logger, { jid: agent.self.jid }, 'online');
}, logger);
