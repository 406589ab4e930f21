// npm run spawn -- specialist [--role R] [--skills a,b] [--name NAME]
// npm run spawn -- specialist --count N --host NAME [--role R] [--skills a,b]: one host process
// serving N virtual specialists NAME-0001@agents.<domain> … (agents/specialist/host.ts).
// … --shard LABEL (PARLEY_AGENTS_SHARDS > 1): one of several processes running the same agents,
// each serving those ejabberd routes to it (agents-NAME-LABEL).
// npm run spawn -- calendar --count N --host NAME: one calendar host serving N generated people's
// calendars NAME-0001@calendars.<domain> … as virtual agents (agents/calendar/host.ts; scale tests).
// One more specialist. With a supervisor running for this PARLEY_HOME it is added there
// (the service layer's spawnSpecialist → POST /spawn: supervised, restarted, stopped with the rest); otherwise it runs here in the
// foreground until Ctrl-C. Either way we wait for its `registered` line and print it.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import readline from 'node:readline';
import { Command } from 'commander';
import { configEnv, loadConfig } from '../shared/config/index.js';
import { repoRoot } from '../shared/runtime/repo-root.js';
import { loadRoles } from '../shared/skills/index.js';
import { OpsError } from '../shared/ops/errors.js';
import { spawnSpecialist } from '../shared/ops/index.js';
import { checkSpawnSkills, calendarHostSpec, specialistSpec } from '../shared/supervisor/index.js';
import { controlRequest } from '../shared/supervisor/ipc.js';

const cfg = loadConfig();
const program = new Command('spawn').description('Start one more agent');

program
  .command('specialist')
  .description('start a specialist (account specialist-NAME) that registers with the Registry')
  .option('--name <name>', 'its name; the account is specialist-NAME (default: ROLE-<random>)')
  .option('--role <role>', 'its role (config/roles.json, $PARLEY_HOME/roles.json); default: named like it, else general')
  .option('--skills <list>', 'comma list of skills (default: every skill the role allows)', '')
  .option('--experts <list>', 'alias of --skills', '')
  .option('--count <n>', 'a host process serving N virtual specialists (with --host)')
  .option('--host <name>', 'the host of --count: its agents are NAME-0001@agents.<domain> …')
  .option('--shard <label>', 'with --count and PARLEY_AGENTS_SHARDS > 1: one of the processes running these agents (agents-NAME-LABEL)')
  .action(async (o: { name?: string; role?: string; skills: string; experts: string; count?: string; host?: string; shard?: string }) => {
    const { roles } = loadRoles(cfg.home);
    if (o.role && !roles.has(o.role)) throw new Error(`unknown role ${JSON.stringify(o.role)}; known: ${[...roles.keys()].join(', ')}`);
    const count = o.count === undefined ? undefined : Number(o.count);
    if (count !== undefined && (!Number.isInteger(count) || count < 1)) throw new Error(`--count must be a positive integer, got ${JSON.stringify(o.count)}`);
    if ((count === undefined) !== (o.host === undefined)) throw new Error('--count and --host go together');
    const name = o.host ?? o.name ?? `${o.role ?? 'general'}-${randomBytes(2).toString('hex')}`;
    const experts = (o.skills || o.experts).split(',').map((s) => s.trim()).filter(Boolean);
    checkSpawnSkills(cfg.home, { name, ...(o.role ? { role: o.role } : {}), skills: experts }); // unknown skill: fail now, not at start
    const role = o.role ? { role: o.role } : {};
    if (o.shard !== undefined && count === undefined) throw new Error('--shard goes with --count and --host');
    const many = count !== undefined ? { count, ...(o.shard !== undefined ? { shard: o.shard } : {}) } : {};
    const spec = specialistSpec({ agentsDir: path.join(repoRoot(), 'dist', 'agents') }, { name, experts, ...role, ...many }); // validates
    // The service layer (shared/ops/agents.ts, shared with the console's POST /api/agents/spawn).
    const res = await spawnSpecialist(cfg, { name, skills: experts, ...role, ...many }).catch((err: Error) => {
      if (err instanceof OpsError && err.code === 'NO_SUPERVISOR') return undefined;
      throw new Error(`supervisor: ${err instanceof OpsError ? `${err.code}: ` : ''}${err.message}`);
    });
    if (res) {
      const a = res.agent;
      console.log(`${a.name} registered in ${res.ready_ms} ms (pid ${a.pid}, supervised by npm start, role ${a.role ?? 'general'}; log: logs/${a.name}.log)`);
      return;
    }
    await foreground(spec.command, spec.args, spec.name);
  });

program
  .command('calendar')
  .description('start a calendar host serving N generated people as virtual calendars NAME-0001@calendars.<domain> … (scale tests)')
  .requiredOption('--count <n>', 'how many calendars')
  .requiredOption('--host <name>', 'the host: its people are NAME-0001 …, its log calendars-NAME')
  .action(async (o: { count: string; host: string }) => {
    const count = Number(o.count);
    const spec = calendarHostSpec({ agentsDir: path.join(repoRoot(), 'dist', 'agents') }, { name: o.host, count }); // validates
    const res = await controlRequest(cfg, 'POST', '/spawn', { kind: 'calendar', name: o.host, count });
    if (res && res.status !== 201) throw new Error(`supervisor said ${String(res.body.error)}: ${String(res.body.detail)}`);
    if (res) {
      console.log(`${spec.name} registered in ${String(res.body.ready_ms)} ms (supervised by npm start; log: logs/${spec.name}.log)`);
      return;
    }
    await foreground(spec.command, spec.args, spec.name);
  });

/** No supervisor: run it here, print its log lines briefly, stop it on Ctrl-C. */
function foreground(command: string, args: string[], name: string): Promise<void> {
  const t0 = Date.now();
  const child = spawn(command, args, { env: { ...process.env, ...configEnv(cfg) }, stdio: ['ignore', 'pipe', 'inherit'] });
  console.log(`${name}: starting in the foreground (pid ${child.pid}; no supervisor running); Ctrl-C stops it`);
  readline.createInterface({ input: child.stdout }).on('line', (line) => {
    try {
      const r = JSON.parse(line) as { msg?: string; level?: number; lease_ms?: number; skills?: string[] };
      if (r.msg === 'calendars registered') console.log(`${name}: ${String((r as { calendars?: number }).calendars)} virtual calendars registered in ${Date.now() - t0} ms`);
      else if (r.msg === 'agents registered') console.log(`${name}: ${String((r as { agents?: number }).agents)} virtual agents registered in ${Date.now() - t0} ms; they now receive work`);
      else if (r.msg === 'registered') console.log(`${name} registered in ${Date.now() - t0} ms (lease ${r.lease_ms ?? '?'} ms, skills ${(r.skills ?? []).join(', ')}); it now receives work`);
      else if ((r.level ?? 0) >= 40 || r.msg === 'online' || r.msg === 'stopping' || r.msg === 'skills changed') console.log(`${name}: ${r.msg}`);
    } catch {
      console.log(line);
    }
  });
  const stop = () => child.kill('SIGTERM');
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  return new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      console.log(`${name} stopped (${signal ?? `code ${code}`}); the Registry drops it when its lease ends`);
      process.exitCode = code ?? 0;
      resolve();
    });
  });
}

program.parseAsync().catch((err: Error) => {
  console.error(`spawn: ${err.message}`);
  process.exit(1);
});
