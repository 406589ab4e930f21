// Optional single-file agents (issue 15, "npm start ≤ 1.5 s"): Node's ES module loader spent
// 230–420 ms of each agent's start resolving, reading and compiling its 170–300 modules; one
// esbuild bundle per role (`npm run bundle`, dist/bundle/<role>.cjs) starts the same code in
// ≈ 250–300 ms less CPU. The bundles are a cache of dist/: each records the files it was built
// from (path, size, mtime) and is used only while every one of them is unchanged; otherwise, or
// when there is none, the supervisor starts dist/agents/<role>/main.js as always.
import fs from 'node:fs';
import path from 'node:path';

/** What `npm run bundle` writes beside dist/bundle/<role>.cjs (<role>.inputs.json). */
export interface BundleInputs {
  /**
   * Paths relative to the repository root, with the size and mtimeMs they had when bundled:
   * Parley's modules, and for the packages node_modules/.package-lock.json (npm rewrites it
   * whenever it installs; a package file edited by hand is not noticed).
   */
  inputs: Array<[file: string, size: number, mtimeMs: number]>;
}

export const bundleFile = (bundleDir: string, role: string): string => path.join(bundleDir, `${role}.cjs`);
export const inputsFile = (bundleDir: string, role: string): string => path.join(bundleDir, `${role}.inputs.json`);

/** The stamp recorded for one input file. */
export function stamp(root: string, file: string): [string, number, number] {
  const s = fs.statSync(path.join(root, file));
  return [file, s.size, s.mtimeMs];
}

/**
 * dist/bundle/<role>.cjs when it exists and every file it was built from is unchanged (a rebuild,
 * an edited handler, an npm install changes a size or an mtime); undefined otherwise.
 */
export function freshBundle(root: string, bundleDir: string, role: string): string | undefined {
  const file = bundleFile(bundleDir, role);
  try {
    const recorded = JSON.parse(fs.readFileSync(inputsFile(bundleDir, role), 'utf8')) as BundleInputs;
    if (!Array.isArray(recorded.inputs) || recorded.inputs.length === 0 || !fs.existsSync(file)) return undefined;
    for (const [f, size, mtimeMs] of recorded.inputs) {
      const [s, m] = recentStamp(root, f);
      if (s !== size || m !== mtimeMs) return undefined;
    }
    return file;
  } catch {
    return undefined; // no bundle, an unreadable record or a vanished input: dist/ as always
  }
}

/**
 * A file's size and mtime, stat'ed at most once per STAMP_TTL_MS: `npm start` checks its ten
 * bundles at once, and their ≈ 130 inputs each are mostly the same shared modules (≈ 1,300 stat
 * calls before the first agent started, ≈ 20 ms of the supervisor's critical path; issue 15).
 * A restart a while later stats again.
 */
function recentStamp(root: string, file: string): [size: number, mtimeMs: number] {
  const key = path.join(root, file);
  const now = performance.now();
  const hit = recentStamps.get(key);
  if (hit && now - hit.at < STAMP_TTL_MS) return [hit.size, hit.mtimeMs];
  const s = fs.statSync(key);
  recentStamps.set(key, { at: now, size: s.size, mtimeMs: s.mtimeMs });
  return [s.size, s.mtimeMs];
}
const STAMP_TTL_MS = 1000;
const recentStamps = new Map<string, { at: number; size: number; mtimeMs: number }>();

/** Forgets every recent stat (a test that rewrites an input and checks again at once). */
export function forgetStamps(): void {
  recentStamps.clear();
}
