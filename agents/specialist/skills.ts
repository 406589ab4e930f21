// Which skills a specialist serves: its role's allowed skills, narrowed by --skills (alias
// --experts). Unknown or forbidden names are start-up errors; the set itself follows the skills
// directory while the specialist runs (hot reload), so a skill added later joins at once.
import { type Catalogue, type SkillDef, type Role, roleAllows } from '../../shared/skills/index.js';
import type { SkillRunner } from './exchange.js';
import type { SkillHost } from '../../shared/skills/hosting.js';

export const parseList = (text: string): string[] => text.split(',').map((s) => s.trim()).filter(Boolean);

/** Throws a readable error for a name that is not a skill or that the role does not allow. */
export function checkSelection(catalogue: Catalogue, role: Role, names: readonly string[]): void {
  for (const n of names) {
    if (!catalogue.skills.some((s) => s.name === n)) {
      const bad = catalogue.problems.find((p) => p.name === n);
      const known = catalogue.skills.map((s) => s.name).join(', ');
      throw new Error(bad ? `skill ${JSON.stringify(n)} is invalid: ${bad.detail}` : `unknown skill ${JSON.stringify(n)}; known: ${known}`);
    }
    if (!roleAllows(role, n)) throw new Error(`role ${role.name} does not allow skill ${JSON.stringify(n)} (it allows ${role.skills.join(', ')})`);
  }
}

export function selector(role: Role, names: readonly string[]): (def: SkillDef) => boolean {
  return (def) => roleAllows(role, def.name) && (names.length === 0 || names.includes(def.name));
}

export function describeScope(skills: readonly SkillDef[]): string {
  const answering = skills.filter((s) => s.manifest.recognise);
  if (answering.length === 0) return 'nothing at the moment (no skill loaded)';
  return answering.map((s) => `${s.name} (e.g. ${JSON.stringify(s.manifest.examples?.[0] ?? s.manifest.description)})`).join(', ');
}

/**
 * The host's skills as the exchanges use them. Calls made before `loaded` settles (the first
 * host.apply, once the agent is online) wait for it: work restored from a crash or a question that
 * arrives early is then served by the skills, not refused as unknown. With the specialist's
 * `warmBehind` apply, a call after it waits in the skill's pool for the first worker instead (and
 * starts it, SkillHost.recognise/run).
 */
export function hostRunner(host: SkillHost, loaded: Promise<unknown> = Promise.resolve()): SkillRunner {
  let ready = false;
  const settled = loaded.then(() => { ready = true; }, () => { ready = true; });
  const after = <T>(call: () => Promise<T>): Promise<T> => (ready ? call() : settled.then(call));
  return {
    scope: () => describeScope(host.skills()),
    recognise: (q, job) => after(() => host.recognise(q, job)),
    run: (skill, args, session, signal, key) => after(() => host.run(skill, args, session, signal, key)),
  };
}
