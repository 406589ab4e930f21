// Runs a single-file agent (dist/bundle/<role>.cjs, scripts/bundle.ts) with V8's code cache
// (issue 15, "npm start ≤ 1.5 s"): compiling a 0.5–1 MB bundle was 12 % of an agent's start-up
// CPU, and Node 20 caches compiled code only for scripts compiled through vm.Script with
// `cachedData` (its module.enableCompileCache() is Node 22). The cache is written once per
// process, a few seconds after start or at exit, with the functions compiled by then (the start-up
// path and the first exchanges), not just the top level V8 compiles eagerly; a start that finds a
// cache it can use writes none. v8-compile-cache (the npm package) caches only the eager top
// level, at compile time, which is why it is not used here.
//
// The cache is the bundle's own artefact, beside it (<bundle>.v8cache, owner-only). It begins
// with the SHA-256 of the source it was made from and of its own data: V8 checks only the
// source's length and, in a release build, not the data's checksum (a damaged cache is
// deserialised as it is: a segmentation fault when tried). A cache for another source, or
// damaged, is never handed to V8. A cache that cannot be read or written is simply not used:
// the bundle compiles as it would without one.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import Module, { createRequire } from 'node:module';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';

export const codeCacheFile = (bundle: string): string => `${bundle}.v8cache`;

/**
 * V8 flags an agent sets while it runs (the specialist's linear-time regular expressions,
 * shared/skills/recognition.ts), set here before compiling. A cache carries a hash of V8's flags
 * when it was made and V8 turns it down under any other: made after the specialist set its flag,
 * every next start rejected it and wrote it again.
 */
const RUNTIME_V8_FLAGS = ['--enable-experimental-regexp-engine'];

const DIGEST_BYTES = 32; // SHA-256
export const sha256 = (b: Buffer | string): Buffer => createHash('sha256').update(b).digest();

/** What a run found: no cache, one V8 accepted, or one it (or the digest check) turned down. */
export type CacheUse = 'none' | 'used' | 'rejected';

export interface RunCachedOptions {
  /** When the cache is written if the process is still running (it is also written at exit). */
  saveAfterMs?: number;
}

/** Node's built-in modules a bundle requires (esbuild writes them as require("node:fs") or require("fs")). */
export function builtinsRequiredBy(source: string): string[] {
  const names = new Set<string>();
  for (const m of source.matchAll(/\brequire\("((?:node:)?[a-z_/]+)"\)/g)) if (Module.isBuiltin(m[1] as string)) names.add(m[1] as string);
  return [...names];
}

/** The cached data in `file` when it was made from `digest`'s source and is whole; undefined otherwise. */
function readCache(file: string, digest: Buffer): { data?: Buffer; found: boolean } {
  let raw: Buffer;
  try {
    raw = fs.readFileSync(file);
  } catch {
    return { found: false };
  }
  const data = raw.subarray(2 * DIGEST_BYTES);
  if (data.length === 0 || !raw.subarray(0, DIGEST_BYTES).equals(digest) || !raw.subarray(DIGEST_BYTES, 2 * DIGEST_BYTES).equals(sha256(data))) return { found: true };
  return { data, found: true };
}

/** Writes `data` made from `digest`'s source, both digests first; false when it cannot be written. */
export function writeCache(file: string, digest: Buffer, data: Buffer, mode = 0o600): boolean {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(tmp, Buffer.concat([digest, sha256(data), data]), { mode });
    fs.renameSync(tmp, file); // atomic: two processes of one role (two specialists) never mix theirs
    return true;
  } catch {
    fs.rmSync(tmp, { force: true }); // a read-only checkout: no cache, nothing else changes
    return false;
  }
}

/**
 * Compiles and runs the CommonJS script `file` as Node runs a main module (module, exports,
 * require beside it, its file and directory names), with its code cache when there is a matching one.
 */
export function runCached(bundle: string, opts: RunCachedOptions = {}): CacheUse {
  const file = path.resolve(bundle); // createRequire wants an absolute path (node dist/shared/supervisor/bundle-run.cjs dist/bundle/kb.cjs)
  const bytes = fs.readFileSync(file);
  const digest = sha256(bytes);
  const source = bytes.toString('utf8');
  // Only a bundle that sets a flag itself gets it here (the specialist's and the console's carry
  // the skills' recognition.ts): Node's own modules come from a code cache inside its binary, and
  // V8 turns that cache down too once a flag changed, so every builtin a core agent loaded after
  // it compiled from source (16 builtins: 29 ms of CPU instead of 16, measured here). And those
  // loaded before the flag keep their cache: the bundle's builtins are loaded first.
  // The call itself: this module is in every bundle (the contracts' validators load through it),
  // and so is the flag's name in RUNTIME_V8_FLAGS.
  const flags = RUNTIME_V8_FLAGS.filter((flag) => new RegExp(`setFlagsFromString\\(\\s*["']${flag}["']\\s*\\)`).test(source));
  if (flags.length > 0) {
    const load = createRequire(file);
    for (const name of builtinsRequiredBy(source)) load(name);
  }
  for (const flag of flags) v8.setFlagsFromString(flag);
  const cacheFile = codeCacheFile(file);
  // No importModuleDynamically: code from the cache loses it anyway, so the bundle has no import()
  // (scripts/bundle.ts turns them into require()).
  const compiled = compileCached(file, source, digest, cacheFile);
  if (compiled.use !== 'used') saveLater(compiled, digest, cacheFile, opts.saveAfterMs);
  runModule(compiled);
  return compiled.use;
}

/**
 * Writes the cache of `compiled` once, `afterMs` from now or at exit, whichever comes first: by
 * then it holds the functions the process ran, not only the top level V8 compiles eagerly.
 * `unless()` true at that moment skips it (the flags changed since the compile).
 */
function saveLater(compiled: CompiledModule, digest: Buffer, cacheFile: string, afterMs = 5000, unless = () => false): void {
  let saved = false;
  const save = () => {
    if (saved) return;
    saved = true;
    if (!unless()) writeCache(cacheFile, digest, compiled.script.createCachedData());
  };
  setTimeout(save, afterMs).unref();
  process.once('exit', save);
}

const LINEAR_FLAG = 'l'; // V8's linear-time engine's flag, a SyntaxError without --enable-experimental-regexp-engine

/** Whether V8's linear-time regular expressions are on in this process (a RUNTIME_V8_FLAGS flag). */
export const linearRegExpsOn = (): boolean => {
  try {
    new RegExp('', LINEAR_FLAG);
    return true;
  } catch {
    return false;
  }
};

/**
 * A large CommonJS file outside the bundles, loaded as require() would but with a code cache
 * beside it, one per V8 flag set the agents run with (the contracts' validators, 630 kB: ≈ 30 ms of
 * every agent's start to compile, issue 15). Same checks as a bundle's cache; none is written
 * when the flags changed between the compile and the save.
 */
export function requireCached(file: string, opts: RunCachedOptions = {}): { exports: unknown; use: CacheUse } {
  const bytes = fs.readFileSync(file);
  const digest = sha256(bytes);
  const linear = linearRegExpsOn();
  const cacheFile = `${file}.${linear ? 'linear.' : ''}v8cache`;
  const compiled = compileCached(file, bytes.toString('utf8'), digest, cacheFile);
  if (compiled.use !== 'used') saveLater(compiled, digest, cacheFile, opts.saveAfterMs, () => linearRegExpsOn() !== linear);
  return { exports: runModule(compiled), use: compiled.use };
}

/** A CommonJS file compiled by compileCached: its script and what became of the cache. */
export interface CompiledModule {
  file: string;
  script: vm.Script;
  use: CacheUse;
}

/**
 * `source` (the text of the absolute path `file`, whose SHA-256 is `digest`) compiled as a
 * CommonJS module, with the cache in `cacheFile` when it was made from that source and is whole.
 * (Also the arithmetic skill's mathjs, skills/arithmetic/mathjs-load.ts.)
 */
export function compileCached(file: string, source: string, digest: Buffer, cacheFile: string): CompiledModule {
  const cached = readCache(cacheFile, digest);
  const script = new vm.Script(Module.wrap(source), { filename: file, ...(cached.data ? { cachedData: cached.data } : {}) });
  const use: CacheUse = cached.data ? (script.cachedDataRejected ? 'rejected' : 'used') : cached.found ? 'rejected' : 'none';
  return { file, script, use };
}

/** Runs it as Node runs a CommonJS module (module, exports, require beside it, its file and directory names): its exports. */
export function runModule({ file, script }: CompiledModule): unknown {
  const wrapper = script.runInThisContext() as (e: unknown, r: NodeRequire, m: Module, f: string, d: string) => void;
  const mod = new Module(file);
  mod.filename = file;
  wrapper.call(mod.exports, mod.exports, createRequire(file), mod, file, path.dirname(file));
  return mod.exports;
}
