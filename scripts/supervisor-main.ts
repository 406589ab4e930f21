// npm start: the project's ejabberd, then every agent as a supervised child (restart with
// back-off), one `ready` line with the time it took, a control endpoint (shared/supervisor/control.ts),
// and an orderly stop on Ctrl-C/SIGTERM: agents (SIGTERM, then SIGKILL), ejabberd if it started
// it (not one that was already running, e.g. docker-compose.yml's ejabberd service), exit 0.
import { Command } from 'commander';
import { configEnv, loadConfig, paths } from '../shared/config/index.js';
import { llmSettings } from '../shared/llm/index.js';
import { closeApiAgent, ensureAccount, provisionCore } from '../shared/ejabberd/index.js';
import { describeHosts, killNode, removeHosts, startCluster, stopCluster, control as ejabberd } from '../shared/ejabberd/operator.js';
import { defaultRoleName, loadRoles } from '../shared/skills/index.js';
import {
  startControl, checkSpawnSkills, calendarHostSpec, calendarSpec, consoleSpec, CORE_ROLES, coreSpec,
  agentsContext, DEFAULT_SPECIALISTS, onFailedStart, parseSpecialists, roomsSpec, type SpecContext, type SpecialistDef,
  specialistSpec, Supervisor, consoleLines, waitForStart, runningSupervisor, alreadyRunning, type HomeLock, lockHome,
} from '../shared/supervisor/index.js';
import { listCalendarPeople } from '../shared/calendar/config.js';
import { consoleEnabled, consoleSettings } from '../shared/console/settings.js';
import { envFlag, envNumber, envString } from '../shared/config/index.js';

const opts = new Command('start')
  .description('Start ejabberd and every Parley agent; Ctrl-C stops them all')
  .option('--specialists <list>', 'specialists as name[@role]:skill+skill,… (env PARLEY_SPECIALISTS)', envString('PARLEY_SPECIALISTS') ?? DEFAULT_SPECIALISTS)
  .option('--ready-timeout <ms>', 'how long to wait for every agent before saying what is missing', '60000')
  .parse()
  .opts<{ specialists: string; readyTimeout: string }>();

const since = (t: number) => `${((performance.now() - t) / 1000).toFixed(1)} s`;
const say = consoleLines(process.stdout); // quiet, not fatal, once its reader is gone (output.ts)
const cfg = loadConfig();
// The model's key (docs/llm.md): PARLEY_LLM_KEY goes into secrets/llm.key (0600) and out of the
// environment before any agent starts, so no child inherits it; the specialists read the file.
const llm = (() => {
  try {
    return llmSettings(cfg);
  } catch (err) {
    console.error(`[parley] ${(err as Error).message}`);
    return process.exit(1);
  }
})();
if (llm) say(`model: ${llm.model} at ${llm.url} (key ${llm.key ? 'stored in secrets/llm.key' : 'none'}); the llm skill is on`);
const ctx: SpecContext = {
  // Single-file agents from `npm run bundle` while they match dist/ (shared/supervisor/bundles.ts).
  ...agentsContext(),
  // Supervisor tests run a fake agent for every role (test/fixtures/fake-agent.ts).
  agentScript: envString('PARLEY_SUPERVISOR_AGENT_SCRIPT'),
};
const sup = new Supervisor({
  env: { ...process.env, ...configEnv(cfg) },
  logsDir: paths(cfg).logsDir,
  say,
  graceMs: envNumber('PARLEY_STOP_GRACE_MS'),
});
const { roles, problems: roleProblems } = loadRoles(cfg.home);
for (const p of roleProblems) say(`roles: ${p} (ignored)`);
// The supervisor knows each specialist's role (for POST /scale), resolved as the specialist does.
const specOf = (d: SpecialistDef) => specialistSpec(ctx, { ...d, role: defaultRoleName(roles, d.name, d.role) });
let control: Awaited<ReturnType<typeof startControl>> | undefined;
let stopping = false;
// An ejabberd already running when the supervisor starts (`npm run ejabberd -- start`, or the
// ejabberd service of docker-compose.yml) is someone else's to stop: stopping the agents leaves it up.
let ownsEjabberd = true;
/** Held while this supervisor runs; the kernel frees it when the process ends (home-lock.ts). */
let homeLock: HomeLock | undefined;

async function shutdown(signal: string): Promise<void> {
  if (stopping) {
    say(`${signal} again: killing everything now`);
    sup.killAll();
    if (ownsEjabberd) for (let i = 1; i <= cfg.ejabberdNodes; i++) killNode(cfg, i);
    if (ownsEjabberd) await removeHosts(cfg).catch(() => undefined); // the nodes' network namespaces, if any
    process.exit(130);
  }
  stopping = true;
  const t = performance.now();
  say(`${signal}: stopping agents…`);
  await control?.close().catch(() => undefined);
  await sup.stopAll();
  if (ownsEjabberd) {
    say('stopping ejabberd…');
    await stopCluster(cfg).catch((err: Error) => say(`ejabberd stop failed: ${err.message}`));
  }
  closeApiAgent();
  say(`stopped in ${since(t)}`);
  process.exit(0);
}

async function main(): Promise<void> {
  const specialists = parseSpecialists(opts.specialists);
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  // One system per PARLEY_HOME: a second start took over every account, and the first system's
  // agents were cut off ("replaced by a newer session"). It now changes nothing (ejabberd included).
  // The lock first (home-lock.ts): of two starts at the same instant, exactly one goes on.
  homeLock = await lockHome(cfg.home);
  // A supervisor that answers on the home's control socket runs, lock or not: one started by a
  // build whose lock was another (an upgrade while it ran) took this start's agents' sessions over.
  const other = await runningSupervisor(cfg);
  if (!homeLock || other) {
    ownsEjabberd = false;
    throw new Error(other ? alreadyRunning(cfg, other) : `another npm start for ${cfg.home} is under way (or its supervisor is stopping); npm run status shows it once it is up`);
  }
  const t0 = performance.now();
  ownsEjabberd = !(await ejabberd.status(cfg, { online: false })).running;
  await startCluster(cfg); // every node of PARLEY_EJABBERD_NODES, joined (shared/ejabberd/cluster-control.ts)
  await provisionCore(cfg);
  // One calendar agent per person with a calendar (npm run user -- add creates it), or with
  // PARLEY_CALENDAR_HOST=1 one calendar host serving them all as virtual agents (issue 14 §3).
  const calendarHost = envFlag('PARLEY_CALENDAR_HOST') ? calendarHostSpec(ctx) : undefined;
  const people = calendarHost ? [] : listCalendarPeople(cfg);
  const calendars = calendarHost ? [calendarHost] : people.map((p) => calendarSpec(ctx, p));
  const where = cfg.ejabberdNodes > 1 ? `a cluster of ${cfg.ejabberdNodes} nodes (hosts: ${describeHosts(cfg)}), first` : 'ejabberd up';
  say(`${where} on 127.0.0.1:${cfg.c2sPort} (${since(t0)}); starting ${CORE_ROLES.length + 1 + specialists.length + calendars.length} agents${consoleEnabled() ? ' and the console' : ''} (logs in ${paths(cfg).logsDir})`);
  if (stopping) return;
  control = await startControl(cfg, {
    supervisor: sup, specialistSpec: specOf, calendarSpec: (p) => calendarSpec(ctx, p), roles,
    calendarHostSpec: (d) => calendarHostSpec(ctx, d), ...(calendarHost ? { calendarHost: calendarHost.name } : {}),
    idleAfterMs: envNumber('PARLEY_SPAWN_IDLE_MS'),
    checkSkills: (d) => void checkSpawnSkills(cfg.home, { name: `specialist-${d.name}`, ...(d.role ? { role: d.role } : {}), skills: d.experts }),
  });
  // The console (issue 13) unless PARLEY_CONSOLE=0; it reads telemetry, so it never slows an agent.
  const withConsole = consoleEnabled();
  // Specialists first (each is the longest start: its skills' sandboxes warm once it is online,
  // behind its registration), then the console (at nice 0 until it is online, then
  // PARLEY_CONSOLE_NICE: at nice 10 from the start it was ready last, after every agent).
  const specs = [...specialists.map(specOf), ...(withConsole ? [consoleSpec(ctx)] : []), ...CORE_ROLES.map((r) => coreSpec(ctx, r)), roomsSpec(ctx), ...calendars];
  for (const spec of specs) {
    const child = sup.add(spec);
    // provisionCore trusts an account ejabberd lists: one whose agent dies at start (its password
    // changed behind Parley's back) is ensured again before the restart.
    if (spec.kind === 'core') onFailedStart(child, () => ensureAccount(cfg, spec.name), (err) => say(`error: ${spec.name}'s account: ${err.message}`));
  }
  // A specialist, calendar, the rooms or the console that gives up is left out; a core agent ends the start.
  const without = await waitForStart(sup, specs, { timeoutMs: Number(opts.readyTimeout), say, stopping: () => stopping, logsDir: paths(cfg).logsDir });
  if (stopping || !without) return;
  sup.markSystemReady();
  const admin = `http://127.0.0.1:${cfg.httpPort}/admin/`;
  say(
    `parley ready in ${since(t0)}${without.length ? ` without ${without.join(', ')} (failed to start: see ${paths(cfg).logsDir})` : ''} — chat with presenter@${cfg.domain}; add a person: npm run user -- add alice; ` +
      `connect a client to 127.0.0.1:${cfg.c2sPort} (plain TCP, no TLS) — web admin ${admin}` +
      (withConsole ? ` — console http://${consoleSettings(cfg).bind}:${consoleSettings(cfg).port}/ (npm run console prints the token)` : ''),
  );
}

main().catch(async (err: Error) => {
  say(`cannot start: ${err.message}`);
  await sup.stopAll().catch(() => undefined);
  await control?.close().catch(() => undefined);
  // A cluster can be half up when start fails (a node that would not join): leave nothing running.
  if (ownsEjabberd && cfg.ejabberdNodes > 1) await stopCluster(cfg).catch(() => undefined);
  closeApiAgent();
  process.exit(1);
});
