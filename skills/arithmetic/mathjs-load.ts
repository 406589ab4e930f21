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
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { MathJsInstance } from 'mathjs';
import { compileCached, type CompiledModule, runModule, sha256, writeCache } from '../../shared/supervisor/code-cache.cjs';

/** mathjs's single-file build (the same 15.x release as its ESM entry). */
export const MATHJS_FILE = createRequire(import.meta.url).resolve('mathjs/lib/browser/math.js');
/** The code cache beside this module (dist/skills/arithmetic/), readable inside the sandbox. */
export const MATHJS_CACHE = fileURLToPath(new URL('./mathjs.v8cache', import.meta.url));

/** What the last load compiled and found (none, used, rejected), for make-cache.ts. */
export const loaded: { use: CompiledModule['use']; compiled?: CompiledModule; digest?: Buffer } = { use: 'none' };

/** Runs mathjs's build as Node's require would, with the code cache when it matches. */
export function loadMathjs(cacheFile = MATHJS_CACHE): MathJsInstance {
  const source = fs.readFileSync(MATHJS_FILE, 'utf8');
  const digest = sha256(source);
  const compiled = compileCached(MATHJS_FILE, source, digest, cacheFile);
  Object.assign(loaded, { use: compiled.use, compiled, digest });
  return runModule(compiled) as MathJsInstance;
}

/** The cache of the last load, with the functions compiled by now (make-cache.ts). */
export function writeMathjsCache(file = MATHJS_CACHE): number {
  if (!loaded.compiled || !loaded.digest) throw new Error('mathjs was not loaded through loadMathjs');
  const data = loaded.compiled.script.createCachedData();
  // 0644: the sandbox's user must read it; like the code beside it in dist/, only the set-up writes it.
  if (!writeCache(file, loaded.digest, data, 0o644)) throw new Error(`cannot write ${file}`);
  return data.length;
}
