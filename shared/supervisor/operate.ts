// Operator actions the CLIs and the web console share (issue 16): small functions over the
// supervisor's control endpoint and the skills catalogue, so `npm run stop` / `npm run spawn`
// and the console's HTTP API run the same code and give the same errors.
import type { ParleyConfig } from '../config/index.js';
import { defaultSkillDirs, loadCatalogue, defaultRoleName, loadRoles, roleAllows } from '../skills/index.js';
import type { ChildInfo } from './child.js';
import { controlRequest } from './ipc.js';

/** An operator error with a machine-readable code (the console maps it to an HTTP status). */
export class OperatorError extends Error {
  constructor(readonly code: 'UNKNOWN_SKILL' | 'SKILL_NOT_ALLOWED' | 'UNKNOWN_ROLE' | 'NO_SUPERVISOR' | 'NO_SUCH_AGENT' | 'SUPERVISOR_ERROR', message: string) {
    super(message);
  }
}

/**
 * Before anything starts: every named skill exists (and is valid) and the role allows it, so
 * `spawn --skills nosuch` fails at once with a clear error instead of a specialist that dies
 * at start and is restarted.
 */
export function checkSpawnSkills(home: string, opts: { name: string; role?: string; skills: readonly string[] }): { role: string } {
  const { roles } = loadRoles(home);
  if (opts.role && !roles.has(opts.role)) throw new OperatorError('UNKNOWN_ROLE', `unknown role ${JSON.stringify(opts.role)}; known: ${[...roles.keys()].join(', ')}`);
  const roleName = defaultRoleName(roles, opts.name, opts.role);
  const role = roles.get(roleName);
  const catalogue = loadCatalogue(defaultSkillDirs(home));
  for (const n of opts.skills) {
    const def = catalogue.skills.find((s) => s.name === n);
    if (!def) {
      const bad = catalogue.problems.find((p) => p.name === n);
      const known = catalogue.skills.map((s) => s.name).sort().join(', ');
      throw new OperatorError('UNKNOWN_SKILL', bad ? `skill ${JSON.stringify(n)} is invalid: ${bad.detail}` : `unknown skill ${JSON.stringify(n)}; known: ${known}`);
    }
    try {
      def.validateInput.ready(); // compiled on first use (skills/manifest.ts): a spawn checks now
    } catch (err) {
      throw new OperatorError('UNKNOWN_SKILL', `skill ${JSON.stringify(n)} is invalid: skill.json: /inputSchema does not compile: ${(err as Error).message}`);
    }
    if (role && !roleAllows(role, n)) throw new OperatorError('SKILL_NOT_ALLOWED', `role ${roleName} does not allow skill ${JSON.stringify(n)} (it allows ${role.skills.join(', ')})`);
  }
  return { role: roleName };
}

/** Stops a supervised agent and keeps it down (POST /stop); the console calls this too. */
export interface Serving {
  /** Supervised specialists that serve the skill now (their role allows it, their --skills include it). */
  by: string[];
  /** The specialist the supervisor started for it, when none did. */
  started?: string;
  /** No supervisor runs for this PARLEY_HOME: nobody could be started. */
  noSupervisor?: boolean;
}

/** Does this supervised specialist serve `skill` (role allows it, and --skills, when given, names it)? */
function serves(c: ChildInfo, skill: string, home: string): boolean {
  if (c.kind !== 'specialist' || !['ready', 'starting'].includes(c.status)) return false;
  const { roles } = loadRoles(home);
  const role = roles.get(defaultRoleName(roles, c.name, c.role));
  return role !== undefined && roleAllows(role, skill) && (!c.experts?.length || c.experts.includes(skill));
}

/** The role a specialist for `skill` gets: one that names the skill, else general ('*'). */
function roleFor(home: string, skill: string): string {
  const { roles } = loadRoles(home);
  return [...roles.values()].find((r) => r.skills.includes(skill))?.name ?? 'general';
}

/**
 * A newly added skill is answerable without further steps (README "Skills"): when no running
 * specialist takes it, the supervisor starts one for it (POST /spawn, answered once it
 * registered). Says which specialist serves it.
 */
export async function ensureServed(cfg: ParleyConfig, skill: string): Promise<Serving> {
  const res = await controlRequest(cfg, 'GET', '/agents').catch(() => undefined);
  if (!res) return { by: [], noSupervisor: true };
  const children = (res.body.agents ?? []) as ChildInfo[];
  const by = children.filter((c) => serves(c, skill, cfg.home)).map((c) => c.name);
  if (by.length > 0) return { by };
  const base = skill.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 30) || 'skill';
  const taken = new Set(children.map((c) => c.name));
  const name = taken.has(`specialist-${base}`) ? `${base}-${Math.random().toString(16).slice(2, 6)}` : base;
  const spawned = await controlRequest(cfg, 'POST', '/spawn', { kind: 'specialist', name, skills: [skill], role: roleFor(cfg.home, skill) });
  if (!spawned || spawned.status !== 201) {
    throw new OperatorError('SUPERVISOR_ERROR', `the skill is added, but no specialist could be started for it: ${String(spawned?.body.error ?? 'no answer')}: ${String(spawned?.body.detail ?? '')}`);
  }
  const a = spawned.body.agent as ChildInfo;
  return { by: [a.name], started: a.name };
}

/** At most `n` characters, cut at a word boundary (never mid-word), with an ellipsis when cut. */
export function clipWords(text: string, n: number): string {
  if (text.length <= n) return text;
  const cut = text.slice(0, n - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > n / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.]+$/, '')}…`;
}
