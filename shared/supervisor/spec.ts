// What the supervisor runs: the core roles (shared/contracts/roles.ts), any number of specialists and one calendar
// agent per person with a calendar ($PARLEY_HOME/calendars/<person>.json; with
// PARLEY_CALENDAR_HOST=1 one calendar host for all of them instead), each a
// `node dist/agents/<role>/main.js` child that says it is usable with a typed IPC message
// (shared/supervisor/ipc.ts): core agents when online, specialists and calendars once the
// Registry accepted them.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CORE_ROLES } from '../contracts/index.js';
import type { ReadyMoment } from './ipc.js';
import { assertPerson } from '../calendar/config.js';
import { assertLocalpart } from '../ejabberd/index.js';
import { freshBundle } from './bundles.js';
import { envFlag, envNumber, VARIABLES } from '../config/index.js';
import { repoRoot } from '../runtime/repo-root.js';

export interface AgentSpec {
  /** Unique name: the log file name and the control endpoint's key (registry, specialist-math). */
  name: string;
  kind: 'core' | 'specialist' | 'calendar' | 'rooms' | 'console';
  command: string;
  args: string[];
  /** The moment the child tells (shared/supervisor/ipc.ts) that marks it ready. */
  readyOn: ReadyMoment;
  /** Specialists: the skills asked for (--skills; empty = every skill the role allows). */
  experts?: string[];
  role?: string;
  /** Started by the supervisor to absorb load (POST /scale): stopped again once idle. */
  extra?: boolean;
}

export interface SpecialistDef {
  name: string;
  /** Skills (named experts before skills existed; --experts is still an alias of --skills). */
  experts: string[];
  role?: string;
  /** The specialist logs {"msg":"idle"} after this long without work (extras only). */
  idleAfterMs?: number;
  extra?: boolean;
  /** A specialist host (agents/specialist/host.ts): `name` is the host, serving this many virtual agents. */
  count?: number;
  /** With count: one of PARLEY_AGENTS_SHARDS processes running the same agents (log/control name agents-<name>-<shard>). */
  shard?: string;
}

/** The core agents, each `dist/agents/<role>/main.js`, ready when online (roles.ts CORE_AGENTS). */
export { CORE_ROLES };
/** The specialists `npm start` runs, as PARLEY_SPECIALISTS' default says (one place: shared/config/variables.ts). */
export const DEFAULT_SPECIALISTS = VARIABLES.PARLEY_SPECIALISTS.default;

/**
 * "math:arithmetic,time:time+date" → [{name: math, experts: [arithmetic]}, {name: time, experts: [time, date]}];
 * "desk@researcher" names the role (default: the role named like the specialist, else general).
 */
export function parseSpecialists(text: string): SpecialistDef[] {
  const defs: SpecialistDef[] = [];
  for (const part of text.split(',').map((s) => s.trim()).filter(Boolean)) {
    const [head, experts = ''] = part.split(':', 2) as [string, string?];
    const [name, role] = head.split('@', 2) as [string, string?];
    assertLocalpart(`specialist-${name}`);
    if (defs.some((d) => d.name === name)) throw new Error(`specialist ${name} is listed twice`);
    defs.push({ name, experts: experts.split('+').map((s) => s.trim()).filter(Boolean), ...(role ? { role } : {}) });
  }
  return defs;
}

export interface SpecContext {
  /** dist/agents (compiled agents), or one script that plays every role (supervisor tests). */
  agentsDir: string;
  agentScript?: string;
  /** Where fresh single-file bundles of the roles may be (./bundles.ts), and the repository root their inputs are relative to. */
  bundles?: { dir: string; root: string };
}

/**
 * The compiled agents as the supervisor starts them: single-file bundles from `npm run bundle`
 * while they match dist/ (./bundles.ts), unless PARLEY_AGENT_BUNDLES=0. Also the bench's.
 */
export function agentsContext(env: NodeJS.ProcessEnv = process.env): SpecContext {
  const root = repoRoot();
  return { agentsDir: path.join(root, 'dist', 'agents'), ...(envFlag('PARLEY_AGENT_BUNDLES', env) ? { bundles: { dir: path.join(root, 'dist', 'bundle'), root } } : {}) };
}

/** The script a role's process runs: its fresh bundle, else dist/agents/<role>/main.js. */
export function script(ctx: SpecContext, role: string): string {
  if (ctx.agentScript) return ctx.agentScript;
  return (ctx.bundles && freshBundle(ctx.bundles.root, ctx.bundles.dir, role)) ?? path.join(ctx.agentsDir, role, 'main.js');
}

/** Node's arguments that run `file`: a bundle (.cjs) through bundle-run.cjs and its code cache, else the file itself. */
export function runArgs(file: string): string[] {
  return file.endsWith('.cjs') ? [BUNDLE_RUN, file] : [file];
}
const BUNDLE_RUN = fileURLToPath(new URL('./bundle-run.cjs', import.meta.url));

/** runArgs of the role's script. */
const launch = (ctx: SpecContext, role: string): string[] => runArgs(script(ctx, role));

export function coreSpec(ctx: SpecContext, role: string): AgentSpec {
  const args = ctx.agentScript ? ['--role', role] : [];
  return { name: role, kind: 'core', command: process.execPath, args: [...launch(ctx, role), ...args], readyOn: 'online' };
}

export function specialistSpec(ctx: SpecContext, def: SpecialistDef): AgentSpec {
  if (def.count !== undefined) return hostSpec(ctx, { ...def, count: def.count });
  assertLocalpart(`specialist-${def.name}`);
  for (const e of def.experts) if (!/^[a-z0-9_-]{1,40}$/.test(e)) throw new Error(`invalid skill name ${JSON.stringify(e)}`);
  if (def.role !== undefined && !/^[a-z][a-z0-9_-]{0,39}$/.test(def.role)) throw new Error(`invalid role name ${JSON.stringify(def.role)}`);
  const args = [
    '--name', def.name,
    ...(def.role ? ['--role', def.role] : []),
    ...(def.experts.length ? ['--skills', def.experts.join(',')] : []),
    ...(def.idleAfterMs ? ['--idle-after-ms', String(def.idleAfterMs)] : []),
  ];
  if (ctx.agentScript) args.push('--role', 'specialist');
  return {
    name: `specialist-${def.name}`,
    kind: 'specialist',
    command: process.execPath,
    args: [...launch(ctx, 'specialist'), ...args],
    readyOn: 'registered',
    experts: def.experts,
    ...(def.role ? { role: def.role } : {}),
    ...(def.extra ? { extra: true } : {}),
  };
}

/**
 * Node's flags for a host of virtual agents: V8's young generation capped at
 * PARLEY_HOST_SEMI_SPACE_MB per semi-space (V8's own cap is 16 MB). A host's start is one burst
 * of allocation that grows the young generation to its cap and RSS keeps it: at 1,000 agents
 * 62–65 kB of RSS per agent with V8's cap, 44.5 kB with 4 MB, while the heap in use is 22–31 kB
 * (npm run bench -- --only agents-scale). The flag must be on the command line: V8 sizes the
 * young generation when the heap is created.
 */
export function hostNodeArgs(env: NodeJS.ProcessEnv = process.env): string[] {
  const mb = envNumber('PARLEY_HOST_SEMI_SPACE_MB', env);
  return mb > 0 ? [`--max-semi-space-size=${mb}`] : [];
}

/**
 * A specialist host (issue 14 §3): one process serving `count` virtual specialists
 * <name>-0001@agents.<domain> …; log and control name agents-<name> (agents-<name>-<shard> for one
 * shard of several), ready once every one it serves registered.
 */
export function hostSpec(ctx: SpecContext, def: SpecialistDef & { count: number }): AgentSpec {
  assertLocalpart(`${def.name}-0001`);
  if (!Number.isInteger(def.count) || def.count < 1 || def.count > 100_000) throw new Error(`--count must be an integer in 1..100000, got ${def.count}`);
  for (const e of def.experts) if (!/^[a-z0-9_-]{1,40}$/.test(e)) throw new Error(`invalid skill name ${JSON.stringify(e)}`);
  if (def.role !== undefined && !/^[a-z][a-z0-9_-]{0,39}$/.test(def.role)) throw new Error(`invalid role name ${JSON.stringify(def.role)}`);
  if (def.shard !== undefined && !/^[a-z0-9]{1,16}$/.test(def.shard)) throw new Error(`--shard takes 1–16 lower-case letters or digits, got ${JSON.stringify(def.shard)}`);
  const args = ['--host', def.name, '--count', String(def.count), ...(def.shard ? ['--shard', def.shard] : []), ...(def.role ? ['--role', def.role] : []), ...(def.experts.length ? ['--skills', def.experts.join(',')] : [])];
  const command = ctx.agentScript ? [ctx.agentScript, ...args, '--role', 'specialist-host'] : [path.join(ctx.agentsDir, 'specialist', 'host.js'), ...args];
  return {
    name: def.shard ? `agents-${def.name}-${def.shard}` : `agents-${def.name}`, kind: 'specialist', command: process.execPath, args: [...hostNodeArgs(), ...command], readyOn: 'agents registered',
    experts: def.experts, ...(def.role ? { role: def.role } : {}),
  };
}

/** One person's calendar agent (docs/oacop.md): account and log name calendar-<person>. */
export function calendarSpec(ctx: SpecContext, person: string): AgentSpec {
  assertLocalpart(`calendar-${person}`);
  const args = ['--person', person, ...(ctx.agentScript ? ['--role', 'calendar'] : [])];
  return { name: `calendar-${person}`, kind: 'calendar', command: process.execPath, args: [...launch(ctx, 'calendar'), ...args], readyOn: 'registered' };
}

/**
 * The calendar host (agents/calendar/host.ts, issue 14 §3): without `def`, the supervisor's one
 * host `calendars` serving every person's calendar (PARLEY_CALENDAR_HOST=1, instead of one
 * calendarSpec each); with `def`, `calendars-<name>` serving `count` generated people
 * <name>-0001@calendars.<domain> … (`npm run spawn -- calendar`). Ready once every one registered.
 */
export function calendarHostSpec(ctx: SpecContext, def?: { name: string; count: number }): AgentSpec {
  let args: string[] = [];
  if (def) {
    assertPerson(`${def.name}-0001`);
    if (!Number.isInteger(def.count) || def.count < 1 || def.count > 100_000) throw new Error(`--count must be an integer in 1..100000, got ${def.count}`);
    args = ['--host', def.name, '--count', String(def.count)];
  }
  const command = ctx.agentScript ? [ctx.agentScript, ...args, '--role', 'calendar-host'] : [path.join(ctx.agentsDir, 'calendar', 'host.js'), ...args];
  return { name: def ? `calendars-${def.name}` : 'calendars', kind: 'calendar', command: process.execPath, args: [...hostNodeArgs(), ...command], readyOn: 'calendars registered' };
}

/** The Room agents (docs/oacop.md "Rooms"): one component process for every room in rooms.json. */
export function roomsSpec(ctx: SpecContext): AgentSpec {
  const args = ctx.agentScript ? ['--role', 'rooms'] : [];
  return { name: 'rooms', kind: 'rooms', command: process.execPath, args: [...launch(ctx, 'rooms'), ...args], readyOn: 'rooms registered' };
}

/** The console (issue 13): HTTP API and dashboard, no XMPP account; ready once it listens. */
export function consoleSpec(ctx: SpecContext): AgentSpec {
  const args = ctx.agentScript ? ['--role', 'console'] : [];
  return { name: 'console', kind: 'console', command: process.execPath, args: [...launch(ctx, 'console'), ...args], readyOn: 'online' };
}
