// A specialist host (issue 14 §3 "Thousands of agents in one process"):
// `node dist/agents/specialist/host.js --host NAME --count N [--role R] [--skills a,b]`.
// One XEP-0114 component connection (agents.<domain>, the operator's component secret) serves N
// virtual specialists NAME-0001@agents.<domain> …, each its own unchanged Agent (ComponentHost:
// pipeline, router, DID and signing, DF registration with heartbeat/lease, conversations), so the
// Coordinator and the DF treat them exactly like process-per-agent specialists. What they share
// keeps the per-agent cost low: one skill pool (workers), one trust store, one telemetry file and
// one replay-ledger file (each agent's rows under its own name). Trust: the component secret says
// the stanza comes from this host, the operator's enrolment (done here, on the operator's host,
// like `npm run enrol -- issue NAME --local`) says the JID is a specialist (shared/runtime/names.ts).
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { loadTunables, envFlag, envNumber, envString, loadConfig, paths } from '../../shared/config/index.js';
import { componentEndpoints, assertLocalpart } from '../../shared/ejabberd/index.js';
import { componentSecret } from '../../shared/ejabberd/index.js';
import {
  EnrolmentAuthority, loadOrCreateRing, pinnedDidsFile, installationRoster, joinedOperatorDid,
  TrustStore,
} from '../../shared/identity/index.js';
import { createLogger } from '../../shared/log/index.js';
import {
  type Agent, agentsDomain, jidOfName, useRoleBook, offlineWindowFromEnv, replayLedgerFile, Signing,
  signingEnabled, SqliteTelemetry, warmUp, RegisterBatcher, onProcessEnd, generatedLocals,
} from '../../shared/runtime/index.js';
import { ComponentHost, LeaseGroup, ShardClaims } from '../../shared/runtime/component-host.js';
import { defaultSkillDirs, loadCatalogue, loadRoles } from '../../shared/skills/index.js';
import { SkillHost } from '../../shared/skills/hosting.js';
import { GroupCommit, ReplayLedger } from '../../shared/store/index.js';
import { componentTransport } from '../../shared/transport/component.js';
import { coordinatorLink, eventMachine } from './a2a.js';
import { type CfpExchangeDeps, hostedExchanges, lostOffer, Slots, type SkillRunner } from './exchange.js';
import { buildProfile } from './profile.js';
import { packageVersion } from '../../shared/runtime/repo-root.js';
import { checkSelection, hostRunner, parseList, selector } from './skills.js';
import { DEFAULT_TERMS, parsePerExpert, termsFor } from './terms.js';
import {
  type DfRegistration, registerWithDf, REGISTERING_AT_ONCE, RegistrationGate,
} from '../../shared/runtime/registration.js';
import { announce, tellSupervisor } from '../../shared/supervisor/ipc.js';

/** Sharded: the probes that have not come back after this long of quiet went to other processes. */
const SHARD_PROBE_QUIET_MS = 2000;

const positive = (v: string): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError('must be a positive integer');
  return n;
};
const program = new Command('specialist-host')
  .description('One process serving many virtual specialists over the agents.<domain> component')
  .requiredOption('--host <name>', 'host name; its agents are NAME-0001@agents.<domain> …')
  .requiredOption('--count <n>', 'how many virtual specialists', positive)
  .option('--role <role>', 'their role (config/roles.json or $PARLEY_HOME/roles.json; default: the role named like the host, else general)', '')
  .option('--skills <list>', 'comma list of skills (default: every skill the role allows)', '')
  .option('--concurrency <n>', 'skill jobs running at once in the shared pool (PARLEY_SPECIALIST_CONCURRENCY)', positive)
  .option('--per-agent <n>', 'jobs one virtual agent accepts at once (PARLEY_VIRTUAL_AGENT_SLOTS)', positive, envNumber('PARLEY_VIRTUAL_AGENT_SLOTS'))
  .option('--shard <label>', 'one of PARLEY_AGENTS_SHARDS processes running these same agents: it serves those ejabberd routes to it (log/control name agents-NAME-LABEL)')
  .option('--compute-timeout-ms <ms>', 'FAILURE TIMEOUT after this long (PARLEY_SPECIALIST_COMPUTE_MS)', positive, envNumber('PARLEY_SPECIALIST_COMPUTE_MS'))
  .parse();
const opts = program.opts<{ host: string; count: number; role: string; skills: string; shard?: string; concurrency?: number; perAgent: number; computeTimeoutMs: number }>();

const config = loadConfig();
const tunables = loadTunables(process.env, config.domain);
// Sharded (PARLEY_AGENTS_SHARDS > 1): ejabberd picks the process by destination (shard-claims.ts).
const sharded = config.agentsShards > 1;
if (opts.shard !== undefined && (!sharded || !/^[a-z0-9]{1,16}$/.test(opts.shard))) {
  program.error(sharded ? 'error: --shard takes 1–16 lower-case letters or digits' : 'error: --shard needs PARLEY_AGENTS_SHARDS > 1 (ejabberd balancing agents.<domain>); without it ejabberd spreads each agent\'s stanzas over both processes at random');
}
const name = opts.shard ? `agents-${opts.host}-${opts.shard}` : `agents-${opts.host}`;
const logger = createLogger(name);
const domain = agentsDomain(config.domain);
const dirs = defaultSkillDirs(config.home);
const { roles } = loadRoles(config.home);
const wanted = parseList(opts.skills);
const role = (() => {
  try {
    assertLocalpart(`${opts.host}-0001`);
    const name = opts.role || (roles.has(opts.host) ? opts.host : 'general');
    const r = roles.get(name);
    if (!r) throw new Error(`unknown role ${JSON.stringify(name)}; known: ${[...roles.keys()].join(', ')}`);
    checkSelection(loadCatalogue(dirs), r, wanted);
    return r;
  } catch (err) {
    return program.error(`error: ${(err as Error).message}`);
  }
})();
const terms = termsFor(parsePerExpert(envString('PARLEY_SPECIALIST_COST') ?? '', DEFAULT_TERMS.cost, 'cost'),
  parsePerExpert(envString('PARLEY_SPECIALIST_ETA_MS') ?? '', DEFAULT_TERMS.etaMs, 'eta', { integer: true }),
  parsePerExpert(envString('PARLEY_SPECIALIST_OFFER_TTL_MS') ?? '', DEFAULT_TERMS.ttlMs, 'ttl', { integer: true, min: 1 }));
const concurrency = opts.concurrency ?? tunables.specialistConcurrency;
const t0 = performance.now();

// Roles come from the operator's enrolment; on the operator's host this process enrols its own
// agents (it holds the component secret, so it is the operator's); on a joined host it cannot.
const roster = installationRoster(config.home);
useRoleBook(roster);
// One key ring per host (secrets/keys/vagents-NAME.ring.json), not a key file per agent: a new file
// costs ≈ 1 ms of CPU (keystore.ts loadOrCreateRing); an agent's own key file, if any, still wins.
const locals = generatedLocals(opts.host, opts.count);
const identities = loadOrCreateRing(config.home, `vagents-${opts.host}.ring`, locals.map((local) => `vagent-${local}`));
const members = locals.map((local, i) => ({ local, jid: `${local}@${domain}`, identity: identities[i] as (typeof identities)[number] }));
const authority = new EnrolmentAuthority(config.home);
if (authority.operatorDid() !== undefined || !joinedOperatorDid(config.home)) {
  const { revoked, enrolled } = authority.ensureEnrolledMany(members.map((m) => ({ jid: m.jid, did: m.identity.did })), 'specialist');
  if (revoked.length > 0) logger.error({ revoked }, 'revoked agents: the Registry refuses them until the operator enrols them again');
  if (enrolled > 0) logger.info({ enrolled }, 'enrolled');
}
const tKeys = performance.now();

// Back home after a failover (docs/cluster.md "Back home"), but not when sharded: ejabberd gives a
// second connection another balancing slot of agents.<domain> (ejabberd_router_mnesia:register_route
// takes the first free one), so ejabberd would route another slot's agents here, ones this process
// has not claimed; with every slot taken the second connection gets no route at all, and closing the
// old one would leave its slot empty, where ejabberd drops the stanzas without an error.
const transport = componentTransport({
  domain, password: componentSecret(config), host: '127.0.0.1', port: config.agentsComponentPort, endpoints: componentEndpoints(config, 'agents'), logger,
  returnHomeMs: sharded ? 0 : envNumber('PARLEY_RETURN_HOME_MS'),
});
// The agents' REGISTERs go to the Registry in REGISTER_MANY batches, each still signed by its agent (register-batch.ts).
const agentsByJid = new Map<string, Agent>();
const batcher = envFlag('PARLEY_REGISTER_BATCH')
  ? new RegisterBatcher({ transport, domain: config.domain, registryJid: jidOfName('Registry', config.domain), agentOf: (jid) => agentsByJid.get(jid.toLowerCase()), logger })
  : undefined;
const host = new ComponentHost({ transport: batcher?.transport ?? transport, domain: config.domain, logger, peerResource: envString('PARLEY_RESOURCE') });
const telemetry = new SqliteTelemetry(path.join(paths(config).telemetry, `${name}.sqlite`), name);
const ledger = signingEnabled() ? new ReplayLedger(replayLedgerFile(config, name)) : undefined;
// One commit of the shared replay ledger per inbound burst (docs/runtime.md "Group commit").
if (ledger && envFlag('PARLEY_GROUP_COMMIT')) transport.useGroupCommit(new GroupCommit([], ledger.group()));
const trust = new TrustStore(pinnedDidsFile(config.home), { enrolled: (jid) => roster.didOf(jid) });

// One skill pool for the host. A skill's delegation (ctx.a2a) goes out as the virtual agent that
// runs the job: the session is assigned to it, and only to it (policy.ts `assigned`).
const owners = new Map<string, Agent>();
const a2aTimeoutMs = envNumber('PARLEY_A2A_TIMEOUT_MS');
const skillHost = new SkillHost({
  select: selector(role, wanted),
  maxWorkers: concurrency + 2,
  a2a: (kind, input, session) => {
    const agent = owners.get(session);
    if (!agent) return Promise.reject(new Error(`no virtual agent runs session ${session}`));
    return coordinatorLink(agent, a2aTimeoutMs)(kind, input, session);
  },
  onLog: (skill, line) => logger.info({ skill, line: line.slice(0, 500) }, 'skill output'),
});
skillHost.on('problem', (p) => logger.warn({ skill: p.name ?? null, dir: p.dir, detail: p.detail }, 'skill skipped'));
await skillHost.apply(loadCatalogue(dirs));
const shared = hostRunner(skillHost);
const tSkills = performance.now();

// Per agent: its slots and its runner (the skill's delegation goes out as it); the exchange
// machines are provided once for the host (exchange.ts hostedExchanges), not once per agent.
const parts = new Map<string, CfpExchangeDeps>();
const sharedDeps: CfpExchangeDeps = { skills: shared, slots: new Slots(opts.perAgent), offers: new Slots(4 * opts.perAgent), computeMs: opts.computeTimeoutMs, terms };
const exchanges = hostedExchanges((self) => (self === undefined ? sharedDeps : parts.get(self) ?? sharedDeps));
const hosted = members.map((m) => {
  const signing = signingEnabled() && ledger ? new Signing({
    identity: m.identity, trust, domain: config.domain, ledger: new ReplayLedger({ share: ledger, scope: m.jid }), ...offlineWindowFromEnv(process.env),
  }) : undefined;
  const agent = host.host(m.jid, { telemetry: telemetry.view(m.jid), logger: logger.child({ agent: m.local }), ...(signing ? { signing } : {}) });
  agentsByJid.set(m.jid.toLowerCase(), agent);
  const skills: SkillRunner = {
    scope: shared.scope, recognise: shared.recognise,
    run: async (skill, args, session, signal, key) => {
      owners.set(session, agent);
      try {
        return await shared.run(skill, args, session, signal, key);
      } finally {
        if (owners.get(session) === agent) owners.delete(session);
      }
    },
  };
  parts.set(agent.self.name, { skills, slots: new Slots(opts.perAgent), offers: new Slots(4 * opts.perAgent), computeMs: opts.computeTimeoutMs, terms });
  agent.router.on('ASK_EXPERT', exchanges.ask);
  agent.router.on('AGORA_REQUEST', exchanges.cfp);
  agent.router.on('EVENT', (request) => ({ machine: eventMachine, input: { request } }));
  agent.onOrphan('AGORA_ACCEPT', lostOffer);
  return { agent, key: `reg-${agent.name}-${randomUUID()}` };
});
if (hosted[0]) warmUp(hosted[0].agent);
const tHosted = performance.now();
await host.start();
const tOnline = performance.now();
announce(logger, { domain, agents: hosted.length, role: role.name, skills: skillHost.skills().map((s) => s.name), concurrency }, 'online');

const version = packageVersion();
// Batched, 64 REGISTERs are one message to the Registry: let a few batches be outstanding.
const gate = new RegistrationGate(batcher ? 4 * REGISTERING_AT_ONCE : REGISTERING_AT_ONCE);
// One HEARTBEAT per interval renews every agent's lease (shared/runtime/lease-group.ts), not one per agent.
const group = new LeaseGroup(tunables.heartbeatMs);
const registrations = new Map<string, DfRegistration>();
const ms = (a: number, b: number) => Math.round((b - a) * 10) / 10;
/** How many this process registers: all, or (sharded) those ejabberd routes here, once known. */
let expected: number | undefined = sharded ? undefined : hosted.length;
let registered = 0;
let ready = false;
const maybeReady = () => {
  if (ready || expected === undefined || registered < expected) return;
  ready = true;
  // The supervisor waits for this moment (shared/supervisor/spec.ts, readyOn of a host).
  const mem = process.memoryUsage();
  logger.info({
    agents: registered, ...(sharded ? { of: hosted.length, shard: opts.shard ?? null } : {}), total_ms: ms(t0, performance.now()), keys_ms: ms(t0, tKeys), skills_ms: ms(tKeys, tSkills),
    hosted_ms: ms(tSkills, tHosted), connect_ms: ms(tHosted, tOnline), register_ms: ms(tOnline, performance.now()), rss_bytes: mem.rss, heap_used_bytes: mem.heapUsed,
    ...(batcher ? { register_many: batcher.stats } : {}),
  }, 'agents registered');
  tellSupervisor({ type: 'ready', moment: 'agents registered' });
};
const register = (agent: Agent, key: string) => {
  if (registrations.has(agent.self.jid)) return;
  registrations.set(agent.self.jid, registerWithDf(agent, buildProfile({
    jid: agent.self.jid, name: agent.name, version, skills: skillHost.skills().map((s) => s.manifest), maxConcurrent: opts.perAgent,
    role: role.name, capabilities: role.capabilities, ...(agent.signing?.did ? { did: agent.signing.did } : {}),
  }), {
    heartbeatMs: tunables.heartbeatMs,
    key,
    // At most 64 REGISTERs outstanding, at the start and after a Registry restart alike.
    gate,
    group,
    onRegistered: (e) => {
      if (e.count !== 1) return;
      logger.debug({ agent: agent.name, lease_ms: e.lease_ms }, 'registered');
      registered += 1;
      maybeReady();
    },
  }));
};

if (!sharded) {
  for (const h of hosted) register(h.agent, h.key);
} else {
  const byJid = new Map(hosted.map((h) => [h.agent.self.jid.toLowerCase(), h]));
  const claims = new ShardClaims({
    transport, logger,
    onClaim: (jid) => {
      const h = byJid.get(jid);
      if (h) register(h.agent, h.key);
    },
  });
  host.intercept((m) => claims.handle(m));
  const jids = hosted.map((h) => h.agent.self.jid);
  claims.probe(jids);
  void claims.settled(SHARD_PROBE_QUIET_MS).then(() => {
    expected = claims.size;
    if (expected === 0) logger.warn({ shards: config.agentsShards }, 'ejabberd routes none of these agents here: every balancing slot of agents.<domain> was taken (PARLEY_AGENTS_SHARDS)');
    logger.info({ claimed: expected, of: hosted.length, shards: config.agentsShards }, 'shard claimed');
    maybeReady();
  });
  // After a reconnect ejabberd may have given this process another slot: claim what it routes here now.
  transport.on('online', () => claims.probe(jids));
}

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'stopping');
  group.close();
  await Promise.all([...registrations.values()].map((r) => r.deregister()));
  await host.stop().catch(() => undefined);
  await skillHost.close().catch(() => undefined);
  telemetry.close();
  ledger?.close();
  process.exit(0);
}
onProcessEnd(logger, shutdown);
