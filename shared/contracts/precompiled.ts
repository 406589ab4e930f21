// Validators compiled ahead of time: compiling the ~80 contracts with ajv took ≈ 0.4 s of CPU in
// every agent process at start-up (about half of each agent's start, issue 15 "npm start ≤ 1.5 s"),
// ten processes at once on two cores. ajv's own standalone code generation (ajv.js.org/standalone)
// writes the compiled functions once as a CommonJS module; a process whose contracts match loads
// that module (≈ 25 ms) instead of compiling.
//
// The module is a cache keyed by a fingerprint of everything that shapes the code (the contracts'
// bytes, ajv's version, the options), so it can never be stale: a mismatch (a contract edited, a
// new ajv) compiles as before and rewrites the file. It lives beside this module in dist/, which is
// build output, never in the repository; a read-only dist/ only costs the compile.
import { createHash } from 'node:crypto';
import { renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Ajv, ValidateFunction } from 'ajv';
import type standaloneModule from 'ajv/dist/standalone/index.js';
import { requireCached } from '../supervisor/code-cache.cjs';

const require = createRequire(import.meta.url);
const AJV_VERSION = (require('ajv/package.json') as { version: string }).version;

/** Where the compiled module lives: dist/shared/contracts/validators.gen.cjs when running from dist. */
export const PRECOMPILED_FILE = fileURLToPath(new URL('./validators.gen.cjs', import.meta.url));

const FINGERPRINT_EXPORT = '__fingerprint';

/** A digest of the contract files (name and bytes, in order), ajv's version and the ajv options. */
export function fingerprint(files: ReadonlyArray<{ name: string; text: string }>, options: object): string {
  const h = createHash('sha256').update(`ajv ${AJV_VERSION}\n${JSON.stringify(options)}\n`);
  for (const f of files) h.update(`${f.name}\n${f.text.length}\n`).update(f.text);
  return h.digest('hex');
}

export type Validators = ReadonlyMap<string, ValidateFunction>;

/** The compiled validators by $id when the module on disk was built from exactly these contracts. */
export function loadPrecompiled(expected: string, file: string, { codeCache = false } = {}): Validators | undefined {
  let mod: Record<string, unknown>;
  try {
    // With a V8 code cache beside it (the contracts' module, loaded by every agent at start);
    // requireCached reads the file on each call, so a rewritten one is read anew.
    mod = (codeCache ? requireCached(file).exports : require(file)) as Record<string, unknown>;
  } catch {
    return undefined; // absent (first start after a build) or unreadable: compile instead
  }
  if (mod[FINGERPRINT_EXPORT] !== expected) {
    if (!codeCache) delete require.cache[require.resolve(file)]; // a later call after a rewrite must read the new file
    return undefined;
  }
  const out = new Map<string, ValidateFunction>();
  for (const [id, fn] of Object.entries(mod)) if (typeof fn === 'function') out.set(id, fn as ValidateFunction);
  return out;
}

/**
 * Writes the standalone module for `ids` (compiled by `ajv`, which needs `code.source`). Atomic:
 * processes starting together each write a whole file and rename it into place. Best effort.
 */
export function writePrecompiled(ajv: Ajv, ids: readonly string[], print: string, file: string): void {
  try {
    // The code requires ajv's runtime helpers and ajv-formats; name them by absolute path so the
    // module loads from wherever it is written (a moved tree fails to load and is compiled over).
    // ajv's standalone entry is CommonJS with `exports.default`; required only when writing.
    const standaloneCode = (require('ajv/dist/standalone/index.js') as typeof standaloneModule).default;
    const code = standaloneCode(ajv, Object.fromEntries(ids.map((id) => [id, id])))
      .replace(/require\("([^"]+)"\)/g, (_, spec: string) => `require(${JSON.stringify(require.resolve(spec))})`);
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, `${code}\nexports[${JSON.stringify(FINGERPRINT_EXPORT)}] = ${JSON.stringify(print)};\n`, { mode: 0o644 });
    renameSync(tmp, file);
  } catch {
    // read-only dist/ or a full disk: this process compiled anyway, the next one will too
  }
}
