// Operator actions the CLIs and the web console share (issue 16): small functions over the
// supervisor's control endpoint and the skills catalogue, so `npm run stop` / `npm run spawn`
// and the console's HTTP API run the same code and give the same errors.
import type { ParleyConfig } from '../config/index.js';
import { defaultSkillDirs, loadCatalogue } from '../skills/catalogue.js';
import { defaultRoleName, loadRoles, roleAllows } from '../skills/roles.js';
import type { ChildInfo } from './child.js';
import { controlRequest } from './control.js';

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
    if (!catalogue.skills.some((s) => s.name === n)) {
      const bad = catalogue.problems.find((p) => p.name === n);
      const known = catalogue.skills.map((s) => s.name).sort().join(', ');
      throw new OperatorError('UNKNOWN_SKILL', bad ? `skill ${JSON.stringify(n)} is invalid: ${bad.detail}` : `unknown skill ${JSON.stringify(n)}; known: ${known}`);
    }
    if (role && !roleAllows(role, n)) throw new OperatorError('SKILL_NOT_ALLOWED', `role ${roleName} does not allow skill ${JSON.stringify(n)} (it allows ${role.skills.join(', ')})`);
  }
  return { role: roleName };
}

/** Stops a supervised agent and keeps it down (POST /stop); the console calls this too. */
export async function stopAgent(cfg: ParleyConfig, name: string): Promise<ChildInfo> {
  const res = await controlRequest(cfg, 'POST', '/stop', { name });
  if (!res) throw new OperatorError('NO_SUPERVISOR', 'no supervisor is running for this PARLEY_HOME (npm start); nothing to stop');
  if (res.status === 404) throw new OperatorError('NO_SUCH_AGENT', `no agent named ${name}${await knownNames(cfg)}`);
  if (res.status !== 200) throw new OperatorError('SUPERVISOR_ERROR', `supervisor: ${String(res.body.error)}: ${String(res.body.detail)}`);
  return res.body.agent as ChildInfo;
}

async function knownNames(cfg: ParleyConfig): Promise<string> {
  const res = await controlRequest(cfg, 'GET', '/agents').catch(() => undefined);
  const names = ((res?.body.agents ?? []) as ChildInfo[]).map((a) => a.name);
  return names.length ? `; running: ${names.join(', ')}` : '';
}
