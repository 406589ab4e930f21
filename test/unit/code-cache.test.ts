// A single-file agent runs with V8's code cache (shared/supervisor/code-cache.ts, bundle-run.ts):
// the cache is written by a run that had none, used by the next, never used for another source,
// and a cache that cannot be used or written only costs the compile it would have saved.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { builtinsRequiredBy, codeCacheFile, runArgs } from '../../shared/supervisor/index.js';
import { fileURLToPath } from 'node:url';

const SCRIPT = `
const fs = require('node:fs');
function square(x) { return x * x; }
globalThis.__codeCacheTest = { argv: process.argv.slice(1), file: __filename, dir: __dirname, sq: square(7), fs: typeof fs.readFileSync, exportsIsThis: this === module.exports };
if (process.argv[2] === '--print') console.log(JSON.stringify(globalThis.__codeCacheTest));
`;
// The module itself, as the supervisor's bundle-run.cjs loads it.
const CODE_CACHE = fileURLToPath(new URL('../../shared/supervisor/code-cache.cjs', import.meta.url));

describe('Supervisor [code cache] a bundle runs with V8 code cache made from its own source', () => {
  let dir: string;
  let bundle: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-code-cache-'));
    bundle = path.join(dir, 'role.cjs');
    fs.writeFileSync(bundle, SCRIPT);
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  // Each run in a fresh process (one process's V8 keeps what it compiled, whatever the cache says):
  // what runCached found, and what the script computed.
  const runFresh = (): { use: string; sq: number } => {
    const code = `import { runCached } from ${JSON.stringify(CODE_CACHE)}; const use = runCached(process.argv[1]); console.log(JSON.stringify({ use, sq: globalThis.__codeCacheTest.sq }));`;
    return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', code, bundle], { encoding: 'utf8' })) as { use: string; sq: number };
  };

  it('runs like `node bundle.cjs args`: its own argv, __filename, require, this; the cache is owner-only', () => {
    expect(runArgs('/x/main.js')).to.deep.equal(['/x/main.js']);
    const out = execFileSync(process.execPath, [...runArgs(bundle), '--print', 'math'], { encoding: 'utf8' });
    expect(JSON.parse(out)).to.deep.equal({ argv: [bundle, '--print', 'math'], file: bundle, dir, sq: 49, fs: 'function', exportsIsThis: true });
    expect(fs.statSync(codeCacheFile(bundle)).mode & 0o077).to.equal(0); // written at exit
    // By a relative path too (node dist/shared/supervisor/bundle-run.cjs dist/bundle/kb.cjs).
    const relative = execFileSync(process.execPath, [(runArgs(bundle)[0] as string), 'role.cjs', '--print'], { encoding: 'utf8', cwd: dir });
    expect(JSON.parse(relative)).to.include({ sq: 49, file: bundle });
  });

  it('a run without a cache writes one; the next uses it and writes none', () => {
    expect(runFresh()).to.deep.equal({ use: 'none', sq: 49 });
    const cache = fs.readFileSync(codeCacheFile(bundle));
    expect(cache.length).to.be.greaterThan(64);
    expect(runFresh()).to.deep.equal({ use: 'used', sq: 49 });
    expect(fs.readFileSync(codeCacheFile(bundle)).equals(cache)).to.equal(true);
  });

  it('a script that sets a V8 flag while it runs (as the specialist does) still gets its cache used', () => {
    fs.writeFileSync(bundle, `require('node:v8').setFlagsFromString('--enable-experimental-regexp-engine');\n${SCRIPT}`);
    expect(runFresh()).to.deep.equal({ use: 'none', sq: 49 });
    expect(runFresh()).to.deep.equal({ use: 'used', sq: 49 });
  });

  it("loads the Node modules the bundle requires before V8's flags change (their code cache in Node's binary stays usable)", () => {
    expect(builtinsRequiredBy('require("node:fs");require("tls");require("better-sqlite3");require("node:nope");require("node:fs")')).to.deep.equal(['node:fs', 'tls']);
    // tls is required only inside a function that never runs: loaded anyway, before the script's first line.
    fs.writeFileSync(bundle, `globalThis.__codeCacheTest = { sq: process.moduleLoadList.includes('NativeModule tls') ? 49 : 0 };\nfunction later() { return require("node:tls"); }\nconst never = () => require("node:v8").setFlagsFromString("--enable-experimental-regexp-engine");\n`);
    expect(runFresh().sq, 'tls loaded before the bundle ran').to.equal(49);
  });

  it("sets V8's runtime flag only for a bundle that sets it itself (a core agent keeps Node's builtins' code cache)", () => {
    // With the flag, the linear-time engine's `l` flag parses; without it, it is a SyntaxError.
    const probe = `let linear = true; try { new RegExp('a', 'l'); } catch { linear = false; }\n`;
    fs.writeFileSync(bundle, `${probe}globalThis.__codeCacheTest = { sq: linear ? 1 : 0 };\n`);
    expect(runFresh().sq, 'a bundle that never sets it').to.equal(0);
    fs.writeFileSync(bundle, `${probe}globalThis.__codeCacheTest = { sq: linear ? 1 : 0 };\nconst later = () => require('node:v8').setFlagsFromString('--enable-experimental-regexp-engine');\n`);
    expect(runFresh().sq, 'a bundle that sets it while running: set before its first line').to.equal(1);
    // Every bundle holds this module, which names the flag: naming it is not setting it.
    fs.writeFileSync(bundle, `${probe}globalThis.__codeCacheTest = { sq: linear ? 1 : 0 };\nvar RUNTIME_V8_FLAGS = ["--enable-experimental-regexp-engine"];\n`);
    expect(runFresh().sq, 'a bundle that only names it').to.equal(0);
  });

  it('a rebuilt bundle of the same length never gets the old cache (V8 checks only the length)', () => {
    runFresh();
    fs.writeFileSync(bundle, SCRIPT.replace('x * x', 'x + x'));
    expect(runFresh()).to.deep.equal({ use: 'rejected', sq: 14 }); // the new source ran
    expect(runFresh()).to.deep.equal({ use: 'used', sq: 14 }); // with a cache made again from it
  });

  it('a damaged cache is never handed to V8 (a release V8 does not check its data) and is replaced', () => {
    runFresh();
    const cache = fs.readFileSync(codeCacheFile(bundle));
    cache.fill(7, 80); // the source's digest still matches, the data does not
    fs.writeFileSync(codeCacheFile(bundle), cache);
    expect(runFresh()).to.deep.equal({ use: 'rejected', sq: 49 });
    expect(runFresh()).to.deep.equal({ use: 'used', sq: 49 });
  });

  it('a large module outside the bundles (the contracts\' validators) loads with a cache per V8 flag set', () => {
    const load = (flag: boolean) => {
      const code = `${flag ? "require('node:v8').setFlagsFromString('--enable-experimental-regexp-engine');" : ''}
        const { requireCached } = require(${JSON.stringify(CODE_CACHE)}); const r = requireCached(process.argv[1]);
        console.log(JSON.stringify({ use: r.use, sq: r.exports.sq }));`;
      return JSON.parse(execFileSync(process.execPath, ['-e', code, bundle], { encoding: 'utf8' })) as { use: string; sq: number };
    };
    fs.writeFileSync(bundle, 'exports.sq = 7 * 7;\n');
    expect(load(false)).to.deep.equal({ use: 'none', sq: 49 });
    expect(load(false)).to.deep.equal({ use: 'used', sq: 49 });
    expect(load(true), 'under the specialist\'s flag: a cache of its own').to.deep.equal({ use: 'none', sq: 49 });
    expect(load(true)).to.deep.equal({ use: 'used', sq: 49 });
    expect(load(false), 'and the other is still used').to.deep.equal({ use: 'used', sq: 49 });
    expect(fs.readdirSync(dir).sort()).to.deep.equal(['role.cjs', 'role.cjs.linear.v8cache', 'role.cjs.v8cache']);
    for (const f of ['role.cjs.linear.v8cache', 'role.cjs.v8cache']) expect(fs.statSync(path.join(dir, f)).mode & 0o077, f).to.equal(0);
  });

  it('a cache that cannot be read or written (here a directory in its place) only means none', () => {
    fs.mkdirSync(codeCacheFile(bundle));
    expect(runFresh()).to.deep.equal({ use: 'none', sq: 49 }); // and its write at exit failed quietly
    expect(fs.statSync(codeCacheFile(bundle)).isDirectory()).to.equal(true);
    expect(fs.readdirSync(dir).sort()).to.deep.equal(['role.cjs', 'role.cjs.v8cache']); // no temporary file left
  });
});
