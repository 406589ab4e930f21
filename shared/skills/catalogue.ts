// The skills directory (plan part 1): built-in skills in the repository (skills/, their
// TypeScript handlers compiled to dist/skills/) and the operator's skills in
// $PARLEY_HOME/skills/, whose _registry.json enables and disables skills of either kind.
// Reading never throws: every folder becomes a skill or a problem with a reason.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../runtime/repo-root.js';
import { type Capabilities, checkSkillManifest, type InputValidator, type SkillManifest } from './manifest.js';

export type SkillSource = 'builtin' | 'user';

export interface SkillDef {
  manifest: SkillManifest;
  name: string;
  source: SkillSource;
  dir: string;
  /** Absolute path of the handler module that runs. */
  handlerPath: string;
  enabled: boolean;
  /** Changes whenever skill.json or the handler file changes (hot reload, import cache busting). */
  fingerprint: string;
  validateInput: InputValidator;
  /** A user skill that replaces a built-in of the same name. */
  overrides?: boolean;
  /** What the sandbox gives it: declared in skill.json and granted (built-ins: as declared). */
  granted: Capabilities;
}

export interface SkillProblem {
  dir: string;
  name?: string;
  detail: string;
}

export interface Catalogue {
  skills: SkillDef[];
  problems: SkillProblem[];
}

export interface SkillDirs {
  builtin: string;
  /** Where compiled built-in handlers live (dist/skills). */
  builtinCode: string;
  user: string;
}

export const REGISTRY_FILE = '_registry.json';

export function defaultSkillDirs(home: string): SkillDirs {
  const root = repoRoot();
  return { builtin: path.join(root, 'skills'), builtinCode: path.join(root, 'dist', 'skills'), user: path.join(home, 'skills') };
}

export interface RegistryFile {
  skills: Record<string, { enabled: boolean; grants?: Capabilities }>;
}

export function readRegistry(userDir: string): { registry: RegistryFile; problem?: string } {
  const file = path.join(userDir, REGISTRY_FILE);
  if (!fs.existsSync(file)) return { registry: { skills: {} } };
  try {
    const raw = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<RegistryFile>;
    const skills: RegistryFile['skills'] = {};
    for (const [name, v] of Object.entries(raw.skills ?? {})) {
      if (v && typeof v === 'object' && typeof v.enabled === 'boolean') {
        skills[name] = { enabled: v.enabled, ...(v.grants && typeof v.grants === 'object' ? { grants: v.grants } : {}) };
      }
    }
    return { registry: { skills } };
  } catch (err) {
    // A broken registry enables nothing extra and disables nothing: say so, keep serving.
    return { registry: { skills: {} }, problem: `${REGISTRY_FILE}: ${(err as Error).message}` };
  }
}

export function writeRegistry(userDir: string, registry: RegistryFile): void {
  fs.mkdirSync(userDir, { recursive: true });
  const file = path.join(userDir, REGISTRY_FILE);
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(registry, null, 2) + '\n');
  fs.renameSync(`${file}.tmp`, file); // atomic: a watcher never reads half a file
}

function fileStamp(file: string): string {
  try {
    const s = fs.statSync(file);
    return `${s.size}:${s.mtimeMs}`;
  } catch {
    return 'missing';
  }
}

/** Reads one skill folder; `codeDir` is where its handler lives when not beside skill.json. */
/** Declared ∩ granted: a grant for something skill.json no longer declares gives nothing. */
export function grantedCapabilities(declared: Capabilities | undefined, grants: Capabilities | undefined): Capabilities {
  const d = declared ?? {};
  const g = grants ?? {};
  const both = (a?: string[], b?: string[]) => (a ?? []).filter((x) => (b ?? []).includes(x));
  return { env: both(d.env, g.env), read: both(d.read, g.read), network: Boolean(d.network && g.network), ...(d.llm && g.llm ? { llm: true } : {}) };
}

type Read = Omit<SkillDef, 'enabled' | 'granted'>;

export function readSkill(dir: string, source: SkillSource, codeDir = dir): Read | SkillProblem {
  const folder = path.basename(dir);
  let text: string;
  try {
    text = fs.readFileSync(path.join(dir, 'skill.json'), 'utf8');
  } catch {
    return { dir, detail: 'no skill.json' };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return { dir, name: folder, detail: `skill.json is not JSON: ${(err as Error).message}` };
  }
  const checked = checkSkillManifest(raw, folder);
  if (!checked.ok) return { dir, name: folder, detail: checked.detail };
  const m = checked.manifest;
  const beside = path.resolve(dir, m.handler);
  const handlerPath = fs.existsSync(beside) ? beside : path.resolve(codeDir, m.handler);
  if (!fs.existsSync(handlerPath)) return { dir, name: m.name, detail: `handler ${m.handler} not found${source === 'builtin' ? ' (run npm run build)' : ''}` };
  const fingerprint = createHash('sha256').update(text).update(fileStamp(handlerPath)).digest('hex').slice(0, 16);
  return { manifest: m, name: m.name, source, dir, handlerPath, fingerprint, validateInput: checked.validateInput };
}

const isProblem = (x: Read | SkillProblem): x is SkillProblem => 'detail' in x;

function folders(dir: string): string[] {
  try {
    return fs.readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory() && !d.name.startsWith('_') && !d.name.startsWith('.'))
      .map((d) => d.name)
      .sort();
  } catch {
    return [];
  }
}

/** Every skill of both directories; user skills replace built-ins of the same name. */
export function loadCatalogue(dirs: SkillDirs): Catalogue {
  const problems: SkillProblem[] = [];
  const byName = new Map<string, Read>();
  for (const f of folders(dirs.builtin)) {
    const s = readSkill(path.join(dirs.builtin, f), 'builtin', path.join(dirs.builtinCode, f));
    if (isProblem(s)) problems.push(s);
    else byName.set(s.name, s);
  }
  for (const f of folders(dirs.user)) {
    const s = readSkill(path.join(dirs.user, f), 'user');
    if (isProblem(s)) problems.push(s);
    else byName.set(s.name, byName.has(s.name) ? { ...s, overrides: true } : s);
  }
  const { registry, problem } = readRegistry(dirs.user);
  if (problem) problems.push({ dir: dirs.user, detail: problem });
  const skills = [...byName.values()]
    .map((s) => ({
      ...s,
      enabled: registry.skills[s.name]?.enabled ?? true,
      granted: grantedCapabilities(s.manifest.capabilities, s.source === 'builtin' ? s.manifest.capabilities : registry.skills[s.name]?.grants),
    }))
    .sort((a, b) => (a.name < b.name ? -1 : 1));
  return { skills, problems };
}
