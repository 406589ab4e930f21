// The Specialist process: `node dist/agents/specialist/main.js --name math --role math --skills arithmetic`.
// Answers REQUEST ASK_EXPERT (seed contract §2.3) and CFP AGORA_REQUEST (Agora §3 offers) with skills from the skills directory (run in
// worker threads, reloaded when the directory changes) and keeps itself registered with the DF
// (docs/runtime.md §5), its profile following its skills. Wiring only: behaviour lives in the
// machines and in shared/skills.
import { Command, InvalidArgumentError } from 'commander';
import type { Logger } from 'pino';
import { loadTunables, envFlag, envNumber, envString, loadConfig } from '../../shared/config/index.js';
import { accountSecrets, assertLocalpart, ensureAccount } from '../../shared/ejabberd/index.js';
import { createAgent, restoreExchanges, startUp, warmUp } from '../../shared/runtime/index.js';
import { registerWithDf } from '../../shared/runtime/registration.js';
import { describeLlm, llmSettings } from '../../shared/llm/index.js';
import { defaultSkillDirs, loadCatalogue, defaultRoleName, loadRoles } from '../../shared/skills/index.js';
import { SkillHost, watchSkills } from '../../shared/skills/hosting.js';
import { coordinatorLink, eventMachine } from './a2a.js';
import { askExpertExchange, cfpExchange, lostOffer, restoredHolds, Slots } from './exchange.js';
import { IdleWatch } from './idle.js';
import { buildProfile } from './profile.js';
import { packageVersion } from '../../shared/runtime/repo-root.js';
import { checkSelection, hostRunner, parseList, selector } from './skills.js';
import { DEFAULT_TERMS, parsePerExpert, termsFor } from './terms.js';
import { announce, tellSupervisor, whenSystemReady } from '../../shared/supervisor/ipc.js';

/** A supervisor that never says the start is over (an agent that keeps failing) holds the skills' workers this long at most. */
const WARM_AT_THE_LATEST_MS = 5000;

const positive = (v: string): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError('must be a positive integer');
  return n;
};
const program = new Command('specialist')
  .description('A Parley specialist answering ASK_EXPERT with skills')
  .option('--name <name>', 'specialist name; the account is specialist-<name>', envString('PARLEY_SPECIALIST_NAME'))
  .option('--role <role>', 'role from config/roles.json or $PARLEY_HOME/roles.json (default: the role named like the specialist, else general)', envString('PARLEY_SPECIALIST_ROLE') ?? '')
  .option('--skills <list>', 'comma list of skills (default: every skill the role allows)', envString('PARLEY_SPECIALIST_SKILLS') ?? '')
  .option('--experts <list>', 'alias of --skills', envString('PARLEY_SPECIALIST_EXPERTS') ?? '')
  .option('--concurrency <n>', 'skill jobs running at once (PARLEY_SPECIALIST_CONCURRENCY)', positive)
  // Jobs beyond the workers wait (AGREE now, INFORM when a worker is free: FIPA SC00026 allows it)
  // instead of REFUSE busy at once; only past concurrency + queue is a question refused busy.
  .option('--queue <n>', 'jobs accepted beyond --concurrency, waiting for a worker (PARLEY_SPECIALIST_QUEUE; default 2 × concurrency; 0 = none)')
  .option('--compute-timeout-ms <ms>', 'FAILURE TIMEOUT after this long (PARLEY_SPECIALIST_COMPUTE_MS)', positive, envNumber('PARLEY_SPECIALIST_COMPUTE_MS'))
  .option('--idle-after-ms <ms>', 'log "idle" after this long without work (the supervisor stops idle extras)', positive)
  // Agora §4 OFFER terms for CFPs: a number, or per skill "2,time=0.5" (docs/acl_contract.md).
  .option('--cost <n>', `offer cost (PARLEY_SPECIALIST_COST; default ${DEFAULT_TERMS.cost})`, envString('PARLEY_SPECIALIST_COST'))
  .option('--eta-ms <ms>', `offer eta (PARLEY_SPECIALIST_ETA_MS; default ${DEFAULT_TERMS.etaMs})`, envString('PARLEY_SPECIALIST_ETA_MS'))
  .option('--ttl-ms <ms>', `how long an offer may be accepted (PARLEY_SPECIALIST_OFFER_TTL_MS; default ${DEFAULT_TERMS.ttlMs})`, envString('PARLEY_SPECIALIST_OFFER_TTL_MS'))
  .parse();
const opts = program.opts<{
  name: string; role: string; skills: string; experts: string; concurrency?: number; queue?: string; computeTimeoutMs: number; idleAfterMs?: number;
  cost?: string; etaMs?: string; ttlMs?: string;
}>();

const config = loadConfig();
const tunables = loadTunables(process.env, config.domain);
const account = opts.name.startsWith('specialist-') ? opts.name : `specialist-${opts.name}`;
const dirs = defaultSkillDirs(config.home);
const { roles, problems: roleProblems } = loadRoles(config.home);
const wanted = parseList(opts.skills || opts.experts);
// Read once for the selection check and the first host.apply (reading compiles every inputSchema).
const catalogue = loadCatalogue(dirs);
const { role, terms, llm } = (() => {
  try {
    assertLocalpart(account);
    const name = defaultRoleName(roles, account, opts.role);
    const r = roles.get(name);
    if (!r) throw new Error(`unknown role ${JSON.stringify(name)}; known: ${[...roles.keys()].join(', ')}`);
    checkSelection(catalogue, r, wanted);
    const cost = parsePerExpert(opts.cost ?? '', DEFAULT_TERMS.cost, '--cost');
    const eta = parsePerExpert(opts.etaMs ?? '', DEFAULT_TERMS.etaMs, '--eta-ms', { integer: true });
    const ttl = parsePerExpert(opts.ttlMs ?? '', DEFAULT_TERMS.ttlMs, '--ttl-ms', { integer: true, min: 1 });
    return { role: r, terms: termsFor(cost, eta, ttl), llm: llmSettings(config) };
  } catch (err) {
    return program.error(`error: ${(err as Error).message}`);
  }
})();
const concurrency = opts.concurrency ?? tunables.specialistConcurrency;
const queue = (() => {
  if (opts.queue === undefined) return envNumber('PARLEY_SPECIALIST_QUEUE', process.env, 2 * concurrency);
  const n = Number(opts.queue);
  return Number.isInteger(n) && n >= 0 ? n : program.error(`error: --queue must be an integer ≥ 0, got ${JSON.stringify(opts.queue)}`);
})();

// No top-level await: the bundled agent is a CommonJS script, whose compiled code V8 can cache
// (scripts/bundle.ts, shared/supervisor/bundle-run.cts).
startUp(async () => {
  // `npm run spawn` starts specialists nobody provisioned: create the account on first start.
  if (!accountSecrets(config).get(account)) await ensureAccount(config, account);

  // The skills' sandboxes start once the agent is online (below): a worker per skill imports its
  // handler and answers its examples, ≈ 0.4 s of CPU each, which competed with every agent's start
  // (issue 15). A skill reaches the Coordinator (ctx.a2a) and the log only through the agent, made
  // before any question arrives.
  const late: { link?: ReturnType<typeof coordinatorLink>; log?: Logger } = {};
  const host = new SkillHost({
    select: selector(role, wanted),
    maxWorkers: concurrency + 2,
    a2a: (kind, input, session) => (late.link ? late.link(kind, input, session) : Promise.reject(new Error('the specialist is not connected yet'))),
    onLog: (skill, line) => late.log?.info({ skill, line: line.slice(0, 500) }, 'skill output'),
    // Optional (docs/llm.md): without PARLEY_LLM_URL no skill that requires a model is served.
    ...(llm ? { llm: { settings: llm } } : {}),
  });
  let served!: () => void;
  const loaded = new Promise<void>((resolve) => { served = resolve; });

  // Durable (issue 12): accepted work and open offers are snapshotted after every transition in
  // $PARLEY_HOME/data/<name>-exchanges.sqlite and resumed after a crash (restoreExchanges below).
  const { agent, logger, store, onShutdown } = createAgent({ account, config, enrolAs: 'specialist', durable: true });
  late.link = coordinatorLink(agent, envNumber('PARLEY_A2A_TIMEOUT_MS'));
  late.log = logger;
  for (const p of roleProblems) logger.warn({ problem: p }, 'roles file ignored');
  if (llm) logger.info({ llm: describeLlm(llm) }, 'model configured');
  host.on('problem', (p) => logger.warn({ skill: p.name ?? null, dir: p.dir, detail: p.detail }, 'skill skipped'));

  // Admitted jobs: `concurrency` run, up to `queue` more wait in the skill pool's queue (pool.ts).
  const slots = new Slots(concurrency + queue);
  // Open offers wait a round trip for ACCEPT/REJECT: the book is larger than the worker pool
  // (PARLEY_SPECIALIST_MAX_OFFERS, default 16 × concurrency; bounded memory).
  const offers = new Slots(envNumber('PARLEY_SPECIALIST_MAX_OFFERS', process.env, 16 * concurrency));
  const idle = opts.idleAfterMs ? new IdleWatch(opts.idleAfterMs, () => slots.inFlight === 0 && offers.inFlight === 0, (ms) => {
    logger.info({ idle_ms: ms }, 'idle');
    tellSupervisor({ type: 'idle', idle_ms: ms });
  }) : undefined;
  // Before going online: the first REGISTERED and the first question pay no compile or JIT (the
  // skills answer their own examples in their workers, warming behind: host.apply below).
  warmUp(agent);
  const skills = hostRunner(host, loaded);
  agent.router.on('ASK_EXPERT', askExpertExchange({ skills, slots, computeMs: opts.computeTimeoutMs, onActivity: () => idle?.touch() }));
  // Agora §3 negotiated flow: CFP → PROPOSE (terms per skill) → ACCEPT-PROPOSAL → the same skills runner.
  agent.router.on('AGORA_REQUEST', cfpExchange({ skills, slots, offers, computeMs: opts.computeTimeoutMs, terms, onActivity: () => idle?.touch() }));
  agent.router.on('EVENT', (request) => ({ machine: eventMachine, input: { request } }));
  // An ACCEPT for an offer this process does not hold: FAILURE WORK_LOST (retryable), never NOT-UNDERSTOOD.
  agent.onOrphan('AGORA_ACCEPT', lostOffer);
  // Before going online: offers and accepted work of a killed predecessor come back (a skill that
  // was running runs again); what cannot be resumed is answered FAILURE WORK_LOST (retryable).
  if (store) restoreExchanges(agent, store, { onRestored: restoredHolds({ slots, offers }), failCode: 'WORK_LOST' });
  await agent.start();
  // Served at once, each skill's first worker warming behind (SkillHost.apply `warmBehind`): the
  // DF gets the profile now, a question that comes before the worker waits for it in the pool,
  // and a handler that fails there is withdrawn from the profile ('changed' below). Under a
  // supervisor the workers start when every agent of the start is ready (or the first question
  // comes), not while the others still start: ≈ 0.4 s of CPU each (issue 15).
  await host.apply(catalogue, { warmBehind: true }).finally(served);
  whenSystemReady(() => host.startWarming(), WARM_AT_THE_LATEST_MS);
  announce(logger, { jid: agent.self.jid, role: role.name, skills: host.skills().map((s) => s.name), concurrency, queue, terms: host.skills().map((s) => ({ skill: s.name, ...terms(s.name) })) }, 'online');

  const profile = () => buildProfile({
    jid: agent.self.jid, name: agent.name, version: packageVersion(), skills: host.skills().map((s) => s.manifest),
    maxConcurrent: concurrency, role: role.name, capabilities: role.capabilities, ...(agent.signing?.did ? { did: agent.signing.did } : {}),
  });
  // The supervisor counts it ready when it tells 'registered' (shared/supervisor/ipc.ts).
  const registration = registerWithDf(agent, profile(), {
    heartbeatMs: tunables.heartbeatMs,
    onRegistered: (e) => announce(logger, { ...e, heartbeat_ms: tunables.heartbeatMs, skills: host.skills().map((s) => s.name) }, 'registered'),
  });
  idle?.touch();

  // Hot reload: the skills directory changed → new pools, and the DF gets the new profile; or a
  // skill withdrawn because its handler failed while warming behind.
  host.on('changed', (skills) => {
    registration.update(profile());
    logger.info({ skills: skills.map((s) => s.name) }, 'skills changed');
  });
  const watcher = !envFlag('PARLEY_SKILLS_WATCH') ? undefined : watchSkills(dirs, () => {
    host.apply(loadCatalogue(dirs)).then(
      (r) => logger.info({ added: r.added, removed: r.removed, changed: r.changed, problems: r.problems.length }, 'skills reloaded'),
      (err: Error) => logger.error({ err: err.message }, 'skills reload failed'),
    );
  });

  onShutdown(async () => {
    idle?.stop();
    await watcher?.close();
    if (!(await registration.deregister())) logger.warn('deregister: no answer');
    await host.close();
  });
});
