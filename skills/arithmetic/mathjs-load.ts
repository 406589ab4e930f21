// mathjs's single-file build, compiled with V8's code cache when the set-up made one (issue 15,
// start-up). Every arithmetic worker (a sandboxed process, shared/skills/sandbox.ts) compiled
// the 650 kB file and the functions its examples reach: ≈ 45 ms to compile and ≈ 65 ms to run
// the file here, 17 and 15 with the cache. The worker cannot write (Node's permission model) and
// a cache made inside the sandbox would let the skill hand bytecode to the next worker, so the
// set-up makes it instead (make-cache.ts, scripts/setup.sh), from this repository's own code.
// The file has the agents' caches' format (shared/supervisor/code-cache.cts: the SHA-256 of the
// source it was made from and of its own data, checked before V8 sees it: V8 checks only the
// source's length, and damaged data can crash the process); any mismatch means no cache: the file
// compiles as it would without one. V8 itself turns a cache down under other V8 flags (the
// worker's --max-old-space-size is the skill's memory limit: make-cache.ts runs with the same).
import fs from 'node:fs';
import Module, { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import type { MathJsInstance } from 'mathjs';
import { readCache, sha256, writeCache } from '../../shared/supervisor/code-cache.cjs';

const require = createRequire(import.meta.url);
/** mathjs's single-file build (the same 15.x release as its ESM entry). */
export const MATHJS_FILE = require.resolve('mathjs/lib/browser/math.js');
/** The code cache beside this module (dist/skills/arithmetic/), readable inside the sandbox. */
export const MATHJS_CACHE = fileURLToPath(new URL('./mathjs.v8cache', import.meta.url));

/** What the last load found (none, used, rejected) and its script, for make-cache.ts. */
export const loaded: { use: 'none' | 'used' | 'rejected'; script?: vm.Script; source?: string } = { use: 'none' };

/** Runs mathjs's build as Node's require would, with the code cache when it matches. */
export function loadMathjs(cacheFile = MATHJS_CACHE): MathJsInstance {
  const source = fs.readFileSync(MATHJS_FILE, 'utf8');
  const cached = readCache(cacheFile, sha256(source));
  const cachedData = cached.data;
  const script = new vm.Script(Module.wrap(source), { filename: MATHJS_FILE, ...(cachedData ? { cachedData } : {}) });
  loaded.use = cachedData ? (script.cachedDataRejected ? 'rejected' : 'used') : cached.found ? 'rejected' : 'none';
  Object.assign(loaded, { script, source });
  const mod = { exports: {} as unknown };
  const wrapper = script.runInThisContext() as (e: unknown, r: NodeRequire, m: unknown, f: string, d: string) => void;
  wrapper.call(mod.exports, mod.exports, createRequire(MATHJS_FILE), mod, MATHJS_FILE, path.dirname(MATHJS_FILE));
  return mod.exports as MathJsInstance;
}

/** The cache of the last load, with the functions compiled by now (make-cache.ts). */
export function writeMathjsCache(file = MATHJS_CACHE): number {
  if (!loaded.script || loaded.source === undefined) throw new Error('mathjs was not loaded through loadMathjs');
  const data = loaded.script.createCachedData();
  // 0644: the sandbox's user must read it; like the code beside it in dist/, only the set-up writes it.
  if (!writeCache(file, sha256(loaded.source), data, 0o644)) throw new Error(`cannot write ${file}`);
  return data.length;
}
