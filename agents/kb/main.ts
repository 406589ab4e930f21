// The KB process, seed contract §2.4: facts in `$PARLEY_HOME/data/kb.sqlite`, durable across
// restarts. Wiring only; it talks to the Coordinator alone (the pipeline's policy, §5).
import path from 'node:path';
import { paths } from '../../shared/config/index.js';
import { createAgent, startUp, warmUp } from '../../shared/runtime/index.js';
import { SqliteFactStore } from '../../shared/store/index.js';
import { KB_KINDS, type KbInput, kbMachine } from './machine.js';
import { announce } from '../../shared/supervisor/ipc.js';

const { agent, config, logger, groupWith } = createAgent({ account: 'kb', presenceTo: ['Coordinator'] });
const store = new SqliteFactStore(path.join(paths(config).data, 'kb.sqlite'));
// A fact commits with its burst, before the replay ledger; the STORED leaves after it (docs/runtime.md "Group commit").
groupWith(store.group());

// provide() builds a new machine: once, not once per request (hot path).
const machine = kbMachine(store);
for (const kind of KB_KINDS) agent.router.on(kind, (request, from) => ({ machine, input: { request, from, self: agent.name, kind } satisfies KbInput }));

// Closed at exit, not in a shutdown hook: hooks run before the transport stops, and exchanges
// arriving meanwhile must still find the database open.
process.once('exit', () => store.close());

// Compile the contracts before going online: the first request is not slowed by it, and a
// broken contract stops start-up instead of the first exchange.
warmUp(agent);
// No top-level await: the bundled agent is a CommonJS script, whose compiled code V8 can cache
// (scripts/bundle.ts, shared/supervisor/bundle-run.cts).
startUp(async () => {
  await agent.start();
  announce(logger, { jid: agent.self.jid }, 'online');
}, logger);
