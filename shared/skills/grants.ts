// What a skill was granted (skill.json capabilities, the operator's grant), made concrete for its
// sandbox (sandbox.ts; docs/skills.md "Capabilities").
import path from 'node:path';
import type { SkillDef } from './catalogue.js';
import type { SandboxSpec } from './sandbox.js';
import { envString } from '../config/index.js';

/**
 * Granted capabilities made concrete for the sandbox: variables with their values from this
 * process, `${VAR}` read paths expanded. Nothing inside the state directory is ever readable,
 * whatever was granted: that is where the secrets are.
 */
export function resolveGrants(g: SkillDef['granted'], env: NodeJS.ProcessEnv = process.env): NonNullable<SandboxSpec['grants']> {
  const home = path.resolve(envString('PARLEY_HOME', env) as string);
  const vars = Object.fromEntries((g.env ?? []).filter((v) => env[v] !== undefined && !SECRET_VARS.has(v)).map((v) => [v, env[v] as string]));
  const read = (g.read ?? [])
    .map((p) => p.replace(/^\$\{([A-Z][A-Z0-9_]*)\}$/, (_, v: string) => vars[v] ?? ''))
    .filter((p) => p.startsWith('/'))
    .map((p) => path.resolve(p))
    .filter((p) => !home || (p !== home && !p.startsWith(home + path.sep) && !home.startsWith(p + path.sep)));
  return { env: vars, fsRead: read, network: Boolean(g.network) };
}

/** Never given to a skill, whatever was granted (the key stays in the specialist process). */
const SECRET_VARS: ReadonlySet<string> = new Set(['PARLEY_LLM_KEY']);
