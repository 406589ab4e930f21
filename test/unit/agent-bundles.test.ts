// Optional single-file agents (shared/supervisor/bundles.ts, issue 15): the supervisor starts
// dist/bundle/<role>.cjs only while every file it was built from is unchanged, else dist/.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { type BundleInputs, bundleFile, consoleSpec, coreSpec, forgetStamps, freshBundle, inputsFile, runArgs, stamp } from '../../shared/supervisor/index.js';
import { repoRoot } from '../../shared/runtime/repo-root.js';

describe('Supervisor [bundles] a single-file agent is used only while it matches dist/', () => {
  let root: string;
  let dir: string;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-bundles-'));
    dir = path.join(root, 'dist', 'bundle');
    fs.mkdirSync(path.join(root, 'dist', 'agents', 'registry'), { recursive: true });
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(root, 'dist', 'agents', 'registry', 'main.js'), 'export {};\n');
    fs.writeFileSync(bundleFile(dir, 'registry'), '// bundle\n');
    const record: BundleInputs = { inputs: [stamp(root, 'dist/agents/registry/main.js')] };
    fs.writeFileSync(inputsFile(dir, 'registry'), JSON.stringify(record));
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  const ctx = () => ({ agentsDir: path.join(root, 'dist', 'agents'), bundles: { dir, root } });

  it('a fresh bundle is started in place of main.js', () => {
    expect(freshBundle(root, dir, 'registry')).to.equal(bundleFile(dir, 'registry'));
    expect(coreSpec(ctx(), 'registry').args.slice(0, 2)).to.deep.equal(runArgs(bundleFile(dir, 'registry')));
    expect(runArgs(bundleFile(dir, 'registry'))[0]).to.match(/bundle-run\.cjs$/); // with its code cache (code-cache.test.ts)
  });

  it('an input rebuilt since (other size or mtime) makes it stale: main.js', () => {
    fs.writeFileSync(path.join(root, 'dist', 'agents', 'registry', 'main.js'), 'export const changed = 1;\n');
    expect(freshBundle(root, dir, 'registry')).to.equal(undefined);
    expect(coreSpec(ctx(), 'registry').args[0]).to.equal(path.join(root, 'dist', 'agents', 'registry', 'main.js'));
    const t = new Date(Date.now() + 5000);
    fs.writeFileSync(path.join(root, 'dist', 'agents', 'registry', 'main.js'), 'export {};\n');
    fs.utimesSync(path.join(root, 'dist', 'agents', 'registry', 'main.js'), t, t); // same size, newer file
    forgetStamps(); // each input is stat'ed at most once a second (the next test)
    expect(freshBundle(root, dir, 'registry')).to.equal(undefined);
  });

  it('ten bundles checked at once stat each shared input once', () => {
    for (const role of ['kb', 'sessions']) {
      fs.writeFileSync(bundleFile(dir, role), '// bundle\n');
      fs.writeFileSync(inputsFile(dir, role), JSON.stringify({ inputs: [stamp(root, 'dist/agents/registry/main.js')] }));
    }
    const statSync = fs.statSync;
    const seen: string[] = [];
    (fs as { statSync: unknown }).statSync = (p: fs.PathLike, ...rest: unknown[]) => {
      seen.push(String(p));
      return (statSync as (...a: unknown[]) => unknown)(p, ...rest);
    };
    try {
      for (const role of ['registry', 'kb', 'sessions']) expect(freshBundle(root, dir, role), role).to.equal(bundleFile(dir, role));
    } finally {
      (fs as { statSync: unknown }).statSync = statSync;
    }
    expect(seen.filter((p) => p.endsWith(path.join('registry', 'main.js')))).to.have.length(1);
  });

  it('a vanished input, a missing or broken record, or no bundle: main.js', () => {
    fs.writeFileSync(inputsFile(dir, 'registry'), '{not json');
    expect(freshBundle(root, dir, 'registry')).to.equal(undefined);
    fs.writeFileSync(inputsFile(dir, 'registry'), JSON.stringify({ inputs: [['dist/agents/registry/gone.js', 1, 1]] }));
    expect(freshBundle(root, dir, 'registry')).to.equal(undefined);
    fs.rmSync(inputsFile(dir, 'registry'));
    expect(freshBundle(root, dir, 'registry')).to.equal(undefined);
    expect(freshBundle(root, dir, 'console')).to.equal(undefined);
    expect(consoleSpec(ctx()).args[0]).to.equal(path.join(root, 'dist', 'agents', 'console', 'main.js'));
  });

  it('without bundles in the context (PARLEY_AGENT_BUNDLES=0) a fresh bundle is not used', () => {
    expect(coreSpec({ agentsDir: path.join(root, 'dist', 'agents') }, 'registry').args[0]).to.equal(path.join(root, 'dist', 'agents', 'registry', 'main.js'));
  });
});

// What `npm run bundle` wrote (the set-up runs it when esbuild is installed, as in CI): strict code
// as its ES modules were (a banner above esbuild's "use strict" would have made it sloppy), one
// byte per character, and pino's transport workers named where they are (scripts/bundle.ts).
describe('Bundle step [output] the bundles in dist/bundle', () => {
  const dir = path.join(repoRoot(), 'dist', 'bundle');
  const bundles = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.cjs')) : [];

  it('are strict, ASCII-only scripts whose pino transport paths exist', function () {
    if (bundles.length === 0) this.skip(); // no esbuild here: the agents start from dist/
    for (const f of bundles) {
      const text = fs.readFileSync(path.join(dir, f), 'utf8');
      expect(text.startsWith('"use strict";'), f).to.equal(true);
      expect(/[\u0080-\uffff]/.test(text), f).to.equal(false);
      const overrides = /globalThis\.__bundlerPathsOverrides = \{ \.\.\.globalThis\.__bundlerPathsOverrides, \.\.\.(\{[^}]*\}) \};/.exec(text);
      expect(overrides, f).to.not.equal(null);
      for (const p of Object.values(JSON.parse(overrides![1]!) as Record<string, string>)) expect(fs.existsSync(p), p).to.equal(true);
    }
  });

  it("npm start's entry runs the supervisor's fresh bundle, and its modules without bundles (same CLI)", function () {
    // Fresh after the set-up (npm test runs it first); a build since makes every bundle stale.
    if (freshBundle(repoRoot(), dir, 'supervisor') === undefined) this.skip();
    const run = (bundled: boolean) => spawnSync(process.execPath, [path.join(repoRoot(), 'dist', 'scripts', 'supervisor.js'), '--help'], {
      encoding: 'utf8', env: { ...process.env, PARLEY_AGENT_BUNDLES: bundled ? '1' : '0', NODE_DEBUG: 'esm' },
    });
    for (const bundled of [true, false]) {
      const r = run(bundled);
      expect(r.status, r.stderr).to.equal(0);
      expect(r.stdout).to.contain('Start ejabberd and every Parley agent');
      // NODE_DEBUG=esm logs every ES module the loader reads: supervisor-main.js only without the bundle.
      expect(/supervisor-main\.js/.test(r.stderr), `bundled ${bundled}`).to.equal(!bundled);
    }
  });
});
