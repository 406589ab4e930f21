// The skills directory for the operator (docs/skills.md): list, show, add (a folder or an
// upload), remove, enable/disable, edit skill.json. Used by `npm run skills` and the console's
// /api/skills. Every change is validated completely before anything is written, and lands by a
// rename, so a watching specialist never sees half a skill.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { ParleyConfig } from '../config/index.js';
import {
  defaultSkillDirs, loadCatalogue, readRegistry, readSkill, type SkillDef, writeRegistry,
  checkSkillManifest, SKILL_NAME,
} from '../skills/index.js';
import { SkillPool } from '../skills/hosting.js';
import { OpsError } from './errors.js';

/** An upload's limits: the whole skill (skill.json and its files) and the number of files. */
export const UPLOAD_LIMITS = { totalBytes: 256 * 1024, files: 32 } as const;
// Relative paths of plain names only: no "..", no absolute paths, no hidden files.
const FILE_PATH = /^(?!.*(?:^|\/)\.)[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}(?:\/[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}){0,3}$/;

export interface SkillSummary {
  name: string;
  version: string;
  description: string;
  source: 'builtin' | 'user';
  enabled: boolean;
  overrides: boolean;
  topics: string[];
  examples: string[];
  fingerprint: string;
}

const summary = (s: SkillDef): SkillSummary => ({
  name: s.name, version: s.manifest.version, description: s.manifest.description, source: s.source, enabled: s.enabled,
  overrides: s.overrides === true, topics: s.manifest.topics ?? [], examples: s.manifest.examples ?? [], fingerprint: s.fingerprint,
});

export function listSkills(cfg: ParleyConfig): { skills: SkillSummary[]; problems: { name?: string; dir: string; detail: string }[]; userDir: string } {
  const dirs = defaultSkillDirs(cfg.home);
  const c = loadCatalogue(dirs);
  return { skills: c.skills.map(summary), problems: c.problems, userDir: dirs.user };
}

export function findSkill(cfg: ParleyConfig, name: string): SkillDef {
  const s = loadCatalogue(defaultSkillDirs(cfg.home)).skills.find((x) => x.name === name);
  if (!s) throw new OpsError(404, 'NO_SUCH_SKILL', `no skill named ${JSON.stringify(name)}`);
  return s;
}

export function showSkill(cfg: ParleyConfig, name: string) {
  const s = findSkill(cfg, name);
  return { ...summary(s), dir: s.dir, handler: s.handlerPath, manifest: s.manifest, granted: s.granted, skill_json: fs.readFileSync(path.join(s.dir, 'skill.json'), 'utf8') };
}

export function setSkillEnabled(cfg: ParleyConfig, name: string, enabled: boolean): SkillSummary {
  findSkill(cfg, name);
  const dirs = defaultSkillDirs(cfg.home);
  const { registry } = readRegistry(dirs.user);
  registry.skills[name] = { ...registry.skills[name], enabled };
  writeRegistry(dirs.user, registry);
  return summary(findSkill(cfg, name));
}

/**
 * The operator's grant (docs/skills.md "Sandbox"): a user skill gets the capabilities its
 * skill.json declares now (environment variables, read paths, network) — or none again
 * (`revoke`). What skill.json declares later is not granted until the operator grants again.
 */
export function grantSkill(cfg: ParleyConfig, name: string, { revoke = false } = {}): { granted: SkillDef['granted']; declared: NonNullable<SkillDef['manifest']['capabilities']> } {
  const s = findSkill(cfg, name);
  if (s.source === 'builtin') throw new OpsError(409, 'BUILTIN', `${name} is a built-in skill: it has what its skill.json declares`);
  const declared = s.manifest.capabilities ?? {};
  const dirs = defaultSkillDirs(cfg.home);
  const { registry } = readRegistry(dirs.user);
  const entry = { enabled: registry.skills[name]?.enabled ?? true };
  registry.skills[name] = revoke ? entry : { ...entry, grants: declared };
  writeRegistry(dirs.user, registry);
  return { granted: findSkill(cfg, name).granted, declared };
}

/** Loads the handler once in a worker: a skill whose code does not load is never installed. */
async function warm(s: Exclude<ReturnType<typeof readSkill>, { detail: string }>): Promise<void> {
  const pool = new SkillPool({ name: s.name, handlerPath: s.handlerPath, fingerprint: s.fingerprint, recognise: s.manifest.recognise ?? {}, timeoutMs: 1000, memoryMb: s.manifest.limits?.memoryMb ?? 128, maxWorkers: 1 });
  try {
    await pool.warm();
  } catch (err) {
    throw new OpsError(400, 'HANDLER_DOES_NOT_LOAD', `not added: the handler does not load: ${(err as Error).message}`);
  } finally {
    await pool.close();
  }
}

/** Validates a skill folder, loads its handler once and copies it into the user directory. */
export async function installSkillDir(cfg: ParleyConfig, dir: string, { force = false } = {}): Promise<SkillSummary> {
  const dirs = defaultSkillDirs(cfg.home);
  const src = path.resolve(dir);
  const s = readSkill(src, 'user');
  if ('detail' in s) throw new OpsError(400, 'INVALID_SKILL', `not added: ${s.detail}`);
  const dest = path.join(dirs.user, s.name);
  if (fs.existsSync(dest) && !force) throw new OpsError(409, 'SKILL_EXISTS', `${s.name} exists in ${dirs.user}; replace it with force`);
  await warm(s);
  // Copy into a temporary folder and rename: a watcher never sees half a skill.
  const tmp = path.join(dirs.user, `.${s.name}.tmp`);
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.cpSync(src, tmp, { recursive: true });
  fs.rmSync(dest, { recursive: true, force: true });
  fs.renameSync(tmp, dest);
  return summary(findSkill(cfg, s.name));
}

export interface SkillUpload {
  name: string;
  /** skill.json as text: it is parsed and checked here, so "not JSON" gets its own clear error. */
  skill_json: string;
  /** Other files by relative path (the handler and what it imports), as UTF-8 text. */
  files: Record<string, string>;
  force?: boolean;
}

/** Everything about an upload that can be checked without writing: throws OpsError 400. */
export function checkUpload(u: SkillUpload): void {
  const bad = (code: string, detail: string) => new OpsError(400, code, detail);
  if (typeof u.name !== 'string' || !SKILL_NAME.test(u.name)) throw bad('INVALID_SKILL_NAME', `skill name ${JSON.stringify(u.name)} must match ${SKILL_NAME.source}`);
  const files = Object.entries(u.files ?? {});
  if (files.length > UPLOAD_LIMITS.files) throw bad('TOO_MANY_FILES', `at most ${UPLOAD_LIMITS.files} files`);
  const size = Buffer.byteLength(u.skill_json ?? '') + files.reduce((n, [p, text]) => n + Buffer.byteLength(p) + Buffer.byteLength(text), 0);
  if (size > UPLOAD_LIMITS.totalBytes) throw bad('SKILL_TOO_LARGE', `the skill is ${size} bytes; the limit is ${UPLOAD_LIMITS.totalBytes}`);
  for (const [p] of files) {
    if (!FILE_PATH.test(p) || p.split('/').includes('..') || p === 'skill.json') throw bad('INVALID_FILE_PATH', `file path ${JSON.stringify(p)} must be a relative plain path inside the skill (no "..", no leading "/" or ".", not skill.json)`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(u.skill_json);
  } catch (err) {
    throw bad('SKILL_JSON_NOT_JSON', `skill.json is not JSON: ${(err as Error).message}`);
  }
  const checked = checkSkillManifest(raw, u.name);
  if (!checked.ok) throw bad('INVALID_SKILL_JSON', checked.detail);
  const handler = path.posix.normalize(checked.manifest.handler.replace(/^\.\//, ''));
  if (!u.files?.[handler]) throw bad('HANDLER_MISSING', `skill.json names handler ${JSON.stringify(checked.manifest.handler)} but no such file was uploaded`);
}

/** An uploaded skill: checked, staged in a private temporary folder, installed like a folder. */
export async function installUpload(cfg: ParleyConfig, u: SkillUpload): Promise<SkillSummary> {
  checkUpload(u);
  const dirs = defaultSkillDirs(cfg.home);
  if (fs.existsSync(path.join(dirs.user, u.name)) && !u.force) throw new OpsError(409, 'SKILL_EXISTS', `${u.name} exists; upload with force to replace it`);
  const stage = path.join(cfg.home, 'run', `upload-${randomBytes(6).toString('hex')}`, u.name);
  try {
    fs.mkdirSync(stage, { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(stage, 'skill.json'), u.skill_json);
    for (const [p, text] of Object.entries(u.files)) {
      const file = path.join(stage, p);
      if (!file.startsWith(stage + path.sep)) throw new OpsError(400, 'INVALID_FILE_PATH', `file path ${JSON.stringify(p)} escapes the skill`);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, text);
    }
    return await installSkillDir(cfg, stage, { force: u.force === true });
  } finally {
    fs.rmSync(path.dirname(stage), { recursive: true, force: true });
  }
}

/** Replaces a user skill's skill.json after validating it (the console's inline editor). */
export function updateSkillJson(cfg: ParleyConfig, name: string, text: string): SkillSummary {
  const s = findSkill(cfg, name);
  if (s.source !== 'user') throw new OpsError(409, 'BUILTIN_READ_ONLY', `${name} is built in and read-only; upload a user skill of the same name to override it`);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new OpsError(400, 'SKILL_JSON_NOT_JSON', `skill.json is not JSON: ${(err as Error).message}`);
  }
  if (Buffer.byteLength(text) > UPLOAD_LIMITS.totalBytes) throw new OpsError(400, 'SKILL_TOO_LARGE', `skill.json over ${UPLOAD_LIMITS.totalBytes} bytes`);
  const checked = checkSkillManifest(raw, name);
  if (!checked.ok) throw new OpsError(400, 'INVALID_SKILL_JSON', checked.detail);
  if (!fs.existsSync(path.resolve(s.dir, checked.manifest.handler))) throw new OpsError(400, 'HANDLER_MISSING', `handler ${checked.manifest.handler} not found in the skill`);
  const file = path.join(s.dir, 'skill.json');
  fs.writeFileSync(`${file}.tmp`, text);
  fs.renameSync(`${file}.tmp`, file);
  return summary(findSkill(cfg, name));
}

export function removeSkill(cfg: ParleyConfig, name: string): void {
  const s = findSkill(cfg, name);
  if (s.source !== 'user') throw new OpsError(409, 'BUILTIN_READ_ONLY', `${name} is built in; disable it instead`);
  fs.rmSync(s.dir, { recursive: true, force: true });
  const dirs = defaultSkillDirs(cfg.home);
  const { registry } = readRegistry(dirs.user);
  if (registry.skills[name]) {
    delete registry.skills[name];
    writeRegistry(dirs.user, registry);
  }
}
