// The KB process, seed contract §2.4: facts in `$PARLEY_HOME/data/kb.sqlite`, durable across
// restarts. Wiring only; it talks to the Coordinator alone (the pipeline's policy, §5).
import path from 'node:path';
import { type AnyStateMachine, fromPromise } from 'xstate';
import { paths } from '../../shared/config/index.js';
import { createAgent } from '../../shared/runtime/boot.js';
import { warmUp } from '../../shared/runtime/warm-up.js';
import type { ExchangeFactory } from '../../shared/runtime/exchange.js';
import { type Fact, type FactFilter, SqliteFactStore } from '../../shared/store/facts.js';
import { getFactsMachine, storeFactMachine } from './machine.js';
import { tellSupervisor } from '../../shared/supervisor/ipc.js';

const { agent, config, logger } = createAgent({ account: 'kb' });
const store = new SqliteFactStore(path.join(paths(config).data, 'kb.sqlite'));

const actors = {
  store: fromPromise(async ({ input }: { input: { fact: Fact } }) => {
    store.add(input.fact);
    return 1;
  }),
  query: fromPromise(async ({ input }: { input: { filter: FactFilter } }) => store.query(input.filter)),
};

// provide() builds a new machine: once per kind, not once per request (hot path).
const exchange = (machine: AnyStateMachine): ExchangeFactory => {
  const provided = machine.provide({ actors });
  return (request, from) => ({ machine: provided, input: { request, from, self: agent.name } });
};
agent.router.on('STORE_FACT', exchange(storeFactMachine)).on('GET_FACTS', exchange(getFactsMachine));

// Closed at exit, not in a shutdown hook: hooks run before the transport stops, and exchanges
// arriving meanwhile must still find the database open.
process.once('exit', () => store.close());

// Compile the contracts before going online: the first request is not slowed by it, and a
// broken contract stops start-up instead of the first exchange.
warmUp(agent);
await agent.start();
logger.info({ jid: agent.self.jid }, 'online');
tellSupervisor({ type: 'ready', moment: 'online' });
