// `npm run bundle` (optional, issue 15): one esbuild bundle per agent role, dist/bundle/<role>.mjs,
// which the supervisor starts instead of dist/agents/<role>/main.js while it matches dist/
// (shared/supervisor/bundles.ts; PARLEY_AGENT_BUNDLES=0 turns that off). esbuild is a
// devDependency: without it this says so and nothing changes. Run it after `npm run build`;
// a later build makes the bundles stale and the supervisor falls back to dist/ until the next run.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../shared/runtime/repo-root.js';
import { asciiOnly, type BundleInputs, bundleFile, inputsFile, patchJidDetect, stamp } from '../shared/supervisor/index.js';

// The part of esbuild's API used here (it is imported by name: not every install has it).
interface Esbuild {
  build(o: Record<string, unknown>): Promise<{ metafile: { inputs: Record<string, unknown> }; warnings: Array<{ text: string; location?: { file: string } | null }> }>;
}
interface OnLoadArgs { path: string }
interface PluginBuild { onLoad(o: { filter: RegExp }, cb: (a: OnLoadArgs) => Promise<{ contents: string; loader: string } | undefined>): void }

const root = repoRoot();
const agentsDir = path.join(root, 'dist', 'agents');
const outDir = path.join(root, 'dist', 'bundle');

let esbuild: Esbuild;
try {
  const name = 'esbuild';
  esbuild = (await import(name)) as Esbuild;
} catch {
  console.error('[parley] npm run bundle needs esbuild (npm install --include=dev); the agents start from dist/ as before');
  process.exit(1);
}

// Each module keeps the import.meta.url of its file in dist/: the contracts' precompiled
// validators, the skill worker's script and the repository root are found beside the module that
// names them, as when it is not bundled.
const keepImportMetaUrl = {
  name: 'keep-import-meta-url',
  setup(b: PluginBuild) {
    b.onLoad({ filter: /\.[cm]?js$/ }, async (args) => {
      if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const src = await fs.promises.readFile(args.path, 'utf8');
      if (!src.includes('import.meta.url')) return undefined;
      return { contents: src.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)), loader: 'js' };
    });
  },
};

// @xmpp/jid's detect() on every JID parsed (shared/supervisor/bundle-patches.ts).
const fastJidDetect = {
  name: 'fast-jid-detect',
  setup(b: PluginBuild) {
    b.onLoad({ filter: /[\\/]@xmpp[\\/]jid[\\/]lib[\\/]escaping\.js$/ }, async (args) => {
      const patched = patchJidDetect(await fs.promises.readFile(args.path, 'utf8'));
      if (patched === undefined) console.error(`[parley] ${args.path}: not the detect() this bundle step knows; left as it is`);
      return patched === undefined ? undefined : { contents: patched, loader: 'js' };
    });
  },
};

// A module that finds its files by __dirname would look beside the bundle: such a role is left to
// dist/. Except pino's transports (pino/lib/transport.js, thread-stream): they take their workers'
// paths from globalThis.__bundlerPathsOverrides first (pino's documented support for bundlers),
// which the banner below sets to the files in node_modules.
const FREE_DIRNAME = /^(?!\s*(\*|\/\/)).*\b__(dirname|filename)\b/m;
const DIRNAME_OVERRIDDEN = new Set(['node_modules/pino/lib/transport.js', 'node_modules/thread-stream/index.js']);
const requireHere = createRequire(path.join(root, 'package.json'));
const pinoPaths = {
  'pino-worker': requireHere.resolve('pino/lib/worker.js'),
  'thread-stream-worker': path.join(path.dirname(requireHere.resolve('thread-stream/package.json')), 'lib', 'worker.js'),
  'pino/file': requireHere.resolve('pino/file.js'),
};

fs.mkdirSync(outDir, { recursive: true });
// Every agent role, and the supervisor (scripts/supervisor.ts starts its bundle as the agents start theirs).
const roles = fs.readdirSync(agentsDir).filter((r) => fs.existsSync(path.join(agentsDir, r, 'main.js'))).sort();
const entryOf = (role: string): string => (role === 'supervisor' ? path.join(root, 'dist', 'scripts', 'supervisor-main.js') : path.join(agentsDir, role, 'main.js'));
let failed = 0;
for (const role of [...roles, 'supervisor']) {
  const out = bundleFile(outDir, role);
  fs.rmSync(inputsFile(outDir, role), { force: true }); // stale until written again
  fs.rmSync(path.join(outDir, `${role}.mjs`), { force: true }); // an ES module bundle of before
  try {
    const r = await esbuild.build({
      // CommonJS, not an ES module: Node 20 caches compiled code only for scripts (bundle-run.cts,
      // shared/supervisor/code-cache.cts). Hence no top-level await in an agent's main.ts.
      // minifyWhitespace: without comments and blanks a third less to read, hash and scan at each
      // start (coordinator 905 → 593 kB); names stay, for stack traces and profiles.
      entryPoints: [entryOf(role)], bundle: true, platform: 'node', format: 'cjs', target: 'node20', minifyWhitespace: true,
      outfile: out, absWorkingDir: root, metafile: true, logLevel: 'error', plugins: [fastJidDetect, keepImportMetaUrl],
      // Native code (better-sqlite3, sodium-native) loads from node_modules. pino is inside (≈ 18 ms
      // of each start to require it from node_modules), its transports' workers named above.
      external: ['better-sqlite3', 'sodium-native'],
      // "use strict" first: esbuild puts the banner above its own, which would no longer be the
      // directive that makes the whole bundle strict code (as its ES modules were).
      banner: { js: `"use strict";globalThis.__bundlerPathsOverrides = { ...globalThis.__bundlerPathsOverrides, ...${JSON.stringify(pinoPaths)} };` },
      // import() of what stays outside (Node's own modules: the OTLP exporter's http) becomes
      // require(): a script compiled from V8's code cache has no loader for import() ("A dynamic
      // import callback was not specified"), even when it was compiled with one.
      supported: { 'dynamic-import': false },
    });
    // A package reading import.meta (which a CommonJS bundle has not) would break: dist/ for that role.
    const meta = r.warnings.find((w) => /import\.meta/.test(w.text));
    if (meta) {
      fs.rmSync(out, { force: true });
      console.log(`${role}: not bundled (${meta.location?.file ?? 'a module'} reads import.meta); it starts from dist/`);
      continue;
    }
    const byDirname = Object.keys(r.metafile.inputs).find((f) => !DIRNAME_OVERRIDDEN.has(f.split(path.sep).join('/')) && FREE_DIRNAME.test(fs.readFileSync(path.join(root, f), 'utf8')));
    if (byDirname) {
      fs.rmSync(out, { force: true });
      console.log(`${role}: not bundled (${byDirname} uses __dirname); it starts from dist/`);
      continue;
    }
    const ascii = asciiOnly(fs.readFileSync(out, 'utf8')); // one byte per character for V8 (shared/supervisor/bundle-patches.ts)
    if (ascii !== undefined) fs.writeFileSync(out, ascii);
    // Parley's files one by one; the packages through npm's own record of node_modules, which
    // every npm install or ci rewrites (stat-ing each package file cost the supervisor ≈ 90 ms).
    const files = Object.keys(r.metafile.inputs);
    const own = files.filter((f) => !f.split(/[\\/]/).includes('node_modules'));
    if (own.length < files.length) own.push(path.join('node_modules', '.package-lock.json'));
    const record: BundleInputs = { inputs: own.map((f) => stamp(root, f)) };
    fs.writeFileSync(inputsFile(outDir, role), JSON.stringify(record) + '\n');
    console.log(`${role}: ${path.relative(root, out)} (${record.inputs.length} modules, ${Math.round(fs.statSync(out).size / 1024)} kB)`);
  } catch (err) {
    failed += 1;
    fs.rmSync(out, { force: true });
    console.error(`${role}: ${(err as Error).message}`);
  }
}
process.exit(failed ? 1 : 0);
