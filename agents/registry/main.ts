// The Registry (FIPA Directory Facilitator) process, seed contract §2.2. Wiring only: the
// SQLite directory, the Directory logic, the answer-once machine for every request (machine.ts),
// and the lease sweep timer (lookups also ignore expired leases lazily; the sweep only removes
// them and logs it).
import path from 'node:path';
import { loadTunables, paths } from '../../shared/config/index.js';
import { EnrolmentAuthority, pinnedDids } from '../../shared/identity/index.js';
import { createAgent, identify, startUp, warmUp } from '../../shared/runtime/index.js';
import { SqliteDirectoryStore } from '../../shared/store/index.js';
import { bare } from '../../shared/transport/index.js';
import { decideBinding } from './bindings.js';
import { entryChecker } from './register-many.js';
import { DirectoryChanges } from './changes.js';
import { Directory } from './directory.js';
import { type DirectoryOps, REGISTRY_KINDS, type RegistryInput, registryMachine } from './machine.js';
import { announce } from '../../shared/supervisor/ipc.js';

// No trust on first use: a REGISTER is verified against the DID the operator enrolled (or pinned)
// for the sending JID, and an account nobody enrolled is a person, refused by the role policy.
// ENROL is the one kind accepted from a JID with no binding: verified against its own sender_did,
// it redeems the operator's single-use token (the token is the authority, not the account).
const { agent, config, logger, roster, onShutdown } = createAgent({ account: 'registry', firstUse: ['ENROL'] });
const authority = new EnrolmentAuthority(config.home);
const { leaseMs } = loadTunables(process.env, config.domain);
const dbFile = path.join(paths(config).data, 'registry.sqlite');
const store = new SqliteDirectoryStore(dbFile);
// Only agents whose enrolment (or pin) holds now are listed: a revoked agent drops out of every
// lookup at once, and the sweep removes its entry.
const admits = (jid: string) => !['person', 'admin', 'foreign'].includes(identify(jid, config.domain).role);
const directory = new Directory(store, leaseMs, admits);
// Every change of the directory is told to the Coordinator, whose cached answers it makes stale (changes.ts).
const changes = new DirectoryChanges(agent.name, (e) => agent.send(e));

const ops: DirectoryOps = {
  register: (input) => {
    const r = directory.register(input.profile, input.now);
    changes.note([r.jid]);
    return r;
  },
  heartbeat: (input) => {
    const live = directory.heartbeat(input.jid, input.now);
    if (!live) changes.note([bare(input.jid)]); // its lease had run out: dropped now
    return live;
  },
  deregister: (input) => {
    const had = directory.deregister(input.jid);
    if (had) changes.note([bare(input.jid)]);
    return had;
  },
  bind: (input) => {
    // Read fresh: `npm run enrol` / `npm run keys -- rotate` may have just changed them.
    // The pin file is read only when there is no enrolment (decideBinding ignores it then): a
    // host's thousands of REGISTERs do not each read and parse it.
    const enrolled = roster.didOf(input.jid);
    const outcome = decideBinding(input.jid, input.did, enrolled, enrolled === undefined ? pinnedDids(config.home).get(input.jid) : undefined);
    if (!outcome.ok) logger.warn({ ...outcome, offered: input.did }, outcome.bound === undefined ? 'not enrolled' : 'did mismatch');
    return outcome;
  },
  candidates: (input) => {
    const { jids: candidates, lead } = directory.rank(input.need, input.hint, input.now, input.role, input.max);
    const dids: Record<string, string> = {};
    for (const jid of candidates) {
      const did = roster.didOf(jid) ?? pinnedDids(config.home).get(jid);
      if (did !== undefined) dids[jid] = did;
    }
    return { candidates, dids, lead };
  },
  describe: (input) => directory.describe(input.capability, input.now),
  // A REGISTER_MANY entry, checked as the pipeline checks a REGISTER alone (register-many.ts).
  checkEntry: entryChecker({ self: agent.name, domain: config.domain, signing: agent.signing }),
  redeem: (input) => {
    const outcome = authority.redeem(input.token, input.jid, input.did);
    if (outcome.ok) {
      // A key provisioning may have pinned for the account's name is not the agent's: its enrolment is.
      if (pinnedDids(config.home).get(input.jid) !== input.did) pinnedDids(config.home).unpin(input.jid);
      logger.info({ jid: input.jid, role: outcome.credential.role, did: input.did }, 'enrolled by token');
    }
    else logger.warn({ jid: input.jid, reason: outcome.reason }, 'enrolment refused');
    return outcome;
  },
};

// provide() builds a new machine: once, not once per request (hot path).
const machine = registryMachine(ops);
for (const kind of REGISTRY_KINDS) {
  agent.router.on(kind, (request, from) => ({ machine, input: { request, from, self: agent.name, kind, now: Date.now() } satisfies RegistryInput }));
}

const sweepEvery = Math.max(250, Math.min(Math.floor(leaseMs / 2), 30000));
const sweeper = setInterval(() => {
  try {
    const { expired, unenrolled } = directory.sweep(Date.now());
    if (expired.length + unenrolled.length > 0) changes.note([...expired, ...unenrolled]);
    if (expired.length > 0) logger.info({ dropped: expired, leaseMs }, 'lease expired');
    if (unenrolled.length > 0) logger.warn({ dropped: unenrolled }, 'enrolment revoked or expired');
  } catch (err) {
    logger.error({ err: (err as Error).message }, 'lease sweep failed');
  }
}, sweepEvery);
sweeper.unref();

onShutdown(() => {
  clearInterval(sweeper);
  changes.stop();
});
// Closed at exit, not in a shutdown hook: hooks run before the transport stops, and exchanges
// arriving meanwhile must still find the database open.
process.once('exit', () => {
  store.close();
});

// Compile the contracts before going online: the first request is not slowed by it, and a
// broken contract stops start-up instead of the first exchange.
warmUp(agent);
// No top-level await: the bundled agent is a CommonJS script, whose compiled code V8 can cache
// (scripts/bundle.ts, shared/supervisor/bundle-run.cts).
startUp(async () => {
  await agent.start();
  announce(logger, { jid: agent.self.jid, leaseMs, registered: store.all().length }, 'online');
  // Leases may have run out while the Registry was away: whatever the Coordinator kept is stale.
  changes.note();
}, logger);
