// Roles as configuration (plan part 2, "Agent Rollen & Capabilities", translated to Parley): a
// role names the capabilities a specialist registers with, the skills it may serve and how many
// specialists of the role may run at once (maxConcurrent, the supervisor's scaling limit).
// Built-in roles: config/roles.json; the operator's $PARLEY_HOME/roles.json adds or replaces.
import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../runtime/repo-root.js';
import { formatErrors, manifestValidator } from './manifest.js';
import { draft07Check, precompiledValidator } from './own-validators.js';

export interface Role {
  name: string;
  description: string;
  capabilities: string[];
  /** Allowed skills; '*' allows every enabled skill. */
  skills: string[];
  maxConcurrent: number;
}

export const ROLE_FILE_SCHEMA = {
  type: 'object',
  required: ['roles'],
  properties: {
    roles: {
      type: 'object',
      propertyNames: { pattern: '^[a-z][a-z0-9_-]{0,39}$' },
      additionalProperties: {
        type: 'object',
        required: ['skills', 'maxConcurrent'],
        additionalProperties: false,
        properties: {
          description: { type: 'string', maxLength: 1000 },
          capabilities: { type: 'array', minItems: 1, maxItems: 50, items: { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9_.:-]*$' } },
          skills: { type: 'array', maxItems: 200, items: { type: 'string', pattern: '^(\\*|[a-z][a-z0-9_-]{0,39})$' } },
          maxConcurrent: { type: 'integer', minimum: 1, maximum: 1000 },
        },
      },
    },
  },
} as const;

type RoleFile = { roles: Record<string, Partial<Role> & { skills: string[]; maxConcurrent: number }> };

/** The precompiled roles-file validator (own-validators.ts). */
const roleFileValidator = () => precompiledValidator<RoleFile>('role-file', ROLE_FILE_SCHEMA);

function readRoleFile(file: string): { roles: Role[]; problem?: string } {
  if (!fs.existsSync(file)) return { roles: [] };
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    return { roles: [], problem: `${file}: ${(err as Error).message}` };
  }
  const check = roleFileValidator();
  if (!check(raw)) return { roles: [], problem: `${file}: ${formatErrors(check.errors)}` };
  const roles = Object.entries(raw.roles).map(([name, r]) => ({
    name, description: r.description ?? '', capabilities: r.capabilities ?? ['ASK_EXPERT'], skills: r.skills, maxConcurrent: r.maxConcurrent,
  }));
  return { roles };
}

/** Writes the skills' precompiled validators (npm start's set-up), so that no agent compiles them. */
export function precompileOwnValidators(): void {
  manifestValidator();
  roleFileValidator();
  draft07Check();
}

export function loadRoles(home: string): { roles: Map<string, Role>; problems: string[] } {
  const roles = new Map<string, Role>();
  const problems: string[] = [];
  for (const file of [path.join(repoRoot(), 'config', 'roles.json'), path.join(home, 'roles.json')]) {
    const r = readRoleFile(file);
    if (r.problem) problems.push(r.problem);
    for (const role of r.roles) roles.set(role.name, role);
  }
  return { roles, problems };
}

export const roleAllows = (role: Role, skill: string): boolean => role.skills.includes('*') || role.skills.includes(skill);

/** --role given, else the role named like the specialist (math → math), else general. */
export function defaultRoleName(roles: ReadonlyMap<string, Role>, specialistName: string, explicit?: string): string {
  if (explicit) return explicit;
  const bareName = specialistName.replace(/^specialist-/, '').replace(/-\d+$/, '');
  return roles.has(bareName) ? bareName : 'general';
}
