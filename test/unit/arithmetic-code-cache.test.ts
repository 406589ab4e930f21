// The arithmetic skill's mathjs with V8's code cache (skills/arithmetic/mathjs-load.ts): a cache
// the set-up made is used by a worker under the sandbox's permission model, and a cache made for
// another source, or damaged, is never handed to V8 (the file then compiles as without one).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { repoRoot } from '../../shared/runtime/repo-root.js';

const root = repoRoot();
const LOAD = path.join(root, 'dist', 'skills', 'arithmetic', 'mathjs-load.js');
// The worker's own flags (shared/skills/sandbox.ts): the permission model, reads of the code only,
// and the skill's memory limit, which V8 counts among the flags a cache must match.
const SANDBOX = ['--experimental-permission', `--allow-fs-read=${path.join(root, 'dist')}`, `--allow-fs-read=${path.join(root, 'node_modules')}`,
  '--disable-warning=ExperimentalWarning', '--max-old-space-size=128'];

/** Loads mathjs in a fresh process: what it found, and 17 * 23 computed with it. */
function load(cache: string, flags: string[] = ['--max-old-space-size=128'], write = false): { use: string; product: string } {
  const code = `const m = await import(${JSON.stringify(LOAD)}); const math = m.loadMathjs(${JSON.stringify(cache)});
    const product = String(math.evaluate('17 * 23')); ${write ? `m.writeMathjsCache(${JSON.stringify(cache)});` : ''}
    console.log(JSON.stringify({ use: m.loaded.use, product }));`;
  return JSON.parse(execFileSync(process.execPath, [...flags, '--input-type=module', '-e', code], { encoding: 'utf8' })) as { use: string; product: string };
}

describe('Skills [arithmetic] mathjs compiled with the code cache the set-up makes', function () {
  this.timeout(30000);
  let dir: string;
  let cache: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-mathjs-cache-'));
    cache = path.join(dir, 'mathjs.v8cache');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('none at first; the cache written then is used by the next process, with the same answers', () => {
    expect(load(cache, undefined, true)).to.deep.equal({ use: 'none', product: '391' });
    expect(load(cache)).to.deep.equal({ use: 'used', product: '391' });
  });

  it('a cache made for another source or damaged is turned down before V8 sees it; mathjs still computes', () => {
    load(cache, undefined, true);
    const good = fs.readFileSync(cache);
    const other = Buffer.from(good);
    other[0] = (other[0] as number) ^ 0xff; // the source digest: made from another mathjs
    fs.writeFileSync(cache, other);
    expect(load(cache)).to.deep.equal({ use: 'rejected', product: '391' });
    const damaged = Buffer.from(good);
    damaged[damaged.length - 100] = (damaged[damaged.length - 100] as number) ^ 0xff; // the data itself
    fs.writeFileSync(cache, damaged);
    expect(load(cache)).to.deep.equal({ use: 'rejected', product: '391' });
    // Under other V8 flags (another memory limit) V8 itself turns it down.
    fs.writeFileSync(cache, good);
    expect(load(cache, ['--max-old-space-size=64'])).to.deep.equal({ use: 'rejected', product: '391' });
  });

  it("the set-up's cache (dist/skills/arithmetic/mathjs.v8cache) is used inside the sandbox's permission model", () => {
    const made = path.join(root, 'dist', 'skills', 'arithmetic', 'mathjs.v8cache');
    expect(fs.existsSync(made), 'scripts/setup.sh made it').to.equal(true);
    expect(fs.statSync(made).mode & 0o044, 'readable by the sandbox user').to.equal(0o044);
    expect(load(made, SANDBOX)).to.deep.equal({ use: 'used', product: '391' });
  });
});
