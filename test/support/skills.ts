// Skills written on the fly into a temporary user skills directory (as an operator would add
// them): a skill.json and a plain-JS ES module handler.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { ParleyError } from '../../shared/acl/index.js';
import type { SkillDirs } from '../../shared/skills/index.js';
import { repoRoot } from '../../shared/runtime/repo-root.js';

export function tempSkillDirs(): SkillDirs & { root: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-skills-'));
  const user = path.join(root, 'skills');
  fs.mkdirSync(user);
  return { root, user, builtin: path.join(repoRoot(), 'skills'), builtinCode: path.join(repoRoot(), 'dist', 'skills') };
}

export function writeSkill(userDir: string, name: string, handler: string, manifest: Record<string, unknown> = {}): string {
  const dir = path.join(userDir, name);
  fs.mkdirSync(dir, { recursive: true });
  const m = {
    name, description: `test skill ${name}`, version: '1.0.0', handler: './handler.js',
    recognise: { patterns: [`^${name}\\b`] }, topics: [name], examples: [`${name} something`], ...manifest,
  };
  fs.writeFileSync(path.join(dir, 'handler.js'), handler);
  fs.writeFileSync(path.join(dir, 'skill.json'), JSON.stringify(m, null, 2));
  return dir;
}

/** Handlers that misbehave on purpose. */
export const HANDLERS = {
  echo: `export async function run(input) { return { answer: 'echo: ' + input.question, meta: { pid: process.pid } }; }\n`,
  hang: `export function run() { for (;;) {} }\n`,
  crash: `export function run() { setTimeout(() => { throw new Error('kaboom outside the call'); }, 0); return new Promise(() => {}); }\n`,
  throws: `export function run() { throw new TypeError('the skill is broken'); }\n`,
  hog: `export function run() { const a = []; for (;;) a.push(new Array(1e6).fill(Math.random())); }\n`,
  noRun: `export const nothing = 1;\n`,
  badInit: `export async function init() { throw new Error('data file missing'); }\nexport function run() { return 'x'; }\n`,
};

/** The ParleyError `p` rejects with (the test fails when it resolves or rejects with anything else). */
export async function failure(p: Promise<unknown>): Promise<ParleyError> {
  try {
    await p;
  } catch (err) {
    expect(err).to.be.instanceOf(ParleyError);
    return err as ParleyError;
  }
  throw new Error('expected a ParleyError');
}
