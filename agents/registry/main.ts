// The Registry (FIPA Directory Facilitator) process, seed contract §2.2. Wiring only: the
// SQLite directory, the Directory logic, one machine per exchange, and the lease sweep timer
// (lookups also ignore expired leases lazily; the sweep only removes them and logs it).
import path from 'node:path';
import { type AnyStateMachine, fromPromise } from 'xstate';
import { loadTunables } from '../../shared/config/agents.js';
import { paths } from '../../shared/config/index.js';
import { pinnedDids } from '../../shared/identity/keystore.js';
import { createAgent } from '../../shared/runtime/boot.js';
import { warmUp } from '../../shared/runtime/warm-up.js';
import type { ExchangeFactory } from '../../shared/runtime/exchange.js';
import { SqliteDirectoryStore } from '../../shared/store/directory.js';
import { DidBindings } from './bindings.js';
import { Directory } from './directory.js';
import { deregisterMachine, describeMachine, heartbeatMachine, needMachine, registerMachine } from './machine.js';

// REGISTER is the one kind accepted from a JID no binding knows yet (trust on first use): the
// envelope is verified against its own sender_did and that DID becomes the JID's binding.
const { agent, config, logger, onShutdown } = createAgent({ account: 'registry', firstUse: ['REGISTER'] });
const { leaseMs } = loadTunables(process.env, config.domain);
const dbFile = path.join(paths(config).data, 'registry.sqlite');
const store = new SqliteDirectoryStore(dbFile);
const bindings = new DidBindings(dbFile);
const directory = new Directory(store, leaseMs);
// The DF's bindings survive restarts: HEARTBEAT/DEREGISTER from a bound JID verify at once.
for (const b of bindings.all()) agent.signing?.trust.learn(b.jid, b.did);

const actors = {
  register: fromPromise(async ({ input }: { input: { profile: Parameters<Directory['register']>[0]; now: number } }) =>
    directory.register(input.profile, input.now)),
  heartbeat: fromPromise(async ({ input }: { input: { jid: string; now: number } }) => directory.heartbeat(input.jid, input.now)),
  deregister: fromPromise(async ({ input }: { input: { jid: string } }) => directory.deregister(input.jid)),
  bind: fromPromise(async ({ input }: { input: { jid: string; did: string; now: number } }) => {
    // The operator's pin (read fresh: `npm run keys -- rotate` may have just changed it) allows a new key.
    const outcome = bindings.bind(input.jid, input.did, pinnedDids(config.home).get(input.jid), input.now);
    if (outcome.ok) agent.signing?.trust.learn(outcome.jid, outcome.did);
    if (!outcome.ok || outcome.rotated) logger.warn({ ...outcome, offered: input.did }, outcome.ok ? 'did rotated' : 'did mismatch');
    return outcome;
  }),
  candidates: fromPromise(async ({ input }: { input: { need: string; hint?: string; role?: string; now: number } }) => {
    const candidates = directory.candidates(input.need, input.hint, input.now, input.role);
    return { candidates, dids: bindings.didsOf(candidates) };
  }),
  describe: fromPromise(async ({ input }: { input: { capability?: string; now: number } }) => directory.describe(input.capability, input.now)),
};

// provide() builds a new machine: once per kind, not once per request (hot path).
const exchange = (machine: AnyStateMachine): ExchangeFactory => {
  const provided = machine.provide({ actors });
  return (request, from) => ({ machine: provided, input: { request, from, self: agent.name, now: Date.now() } });
};
agent.router
  .on('REGISTER', exchange(registerMachine))
  .on('HEARTBEAT', exchange(heartbeatMachine))
  .on('DEREGISTER', exchange(deregisterMachine))
  .on('NEED', exchange(needMachine))
  .on('DESCRIBE', exchange(describeMachine));

const sweepEvery = Math.max(250, Math.min(Math.floor(leaseMs / 2), 30000));
const sweeper = setInterval(() => {
  try {
    const dropped = directory.sweep(Date.now());
    if (dropped.length > 0) logger.info({ dropped, leaseMs }, 'lease expired');
  } catch (err) {
    logger.error({ err: (err as Error).message }, 'lease sweep failed');
  }
}, sweepEvery);
sweeper.unref();

onShutdown(() => clearInterval(sweeper));
// Closed at exit, not in a shutdown hook: hooks run before the transport stops, and exchanges
// arriving meanwhile must still find the database open.
process.once('exit', () => {
  store.close();
  bindings.close();
});

// Compile the contracts before going online: the first request is not slowed by it, and a
// broken contract stops start-up instead of the first exchange.
warmUp(agent);
await agent.start();
logger.info({ jid: agent.self.jid, leaseMs, registered: store.all().length }, 'online');
