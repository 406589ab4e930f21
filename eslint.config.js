// Flat config: typescript-eslint's recommended rules over the TypeScript sources.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { importX } from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

// Each shared/<folder>/ has one public entry, index.ts (issue 10 §2; docs/runtime.md, Imports).
// A folder may declare a second entry here when importing its index would load what that importer
// must not: the barrels codemod reads this list too, so the two never disagree.
export const PUBLIC_ENTRIES = {
  // entry file → the modules whose names it re-exports ([]: the entry is a module used as is).
  'shared/skills': {
    // What a skill's handler imports inside its worker thread (docs/skills.md).
    'handler-api.ts': [],
    'expert.ts': [],
    // Running skills (the specialist): host, worker pool, sandbox, watcher and chokidar. index.ts is
    // the catalogue side (catalogue, manifests, roles) that the supervisor, ops and console read.
    'hosting.ts': ['host.ts', 'pool.ts', 'sandbox.ts', 'watch.ts'],
  },
  // The child side of supervision: what every agent process imports to talk to its supervisor
  // (readiness, idleness, and the control endpoint's client, controlRequest, which the Coordinator
  // uses to scale). index.ts is the supervisor itself (specs, calendars, skills): no agent loads it.
  // code-cache.cts: the digest-checked V8 code cache file, a leaf (node: only) that a skill's
  // sandboxed worker uses too (skills/arithmetic/mathjs-load.ts) without loading the supervisor.
  // bundles.ts: whether a role's bundle matches dist/, a leaf (node: only) that npm start's small
  // entry (scripts/supervisor.ts) reads before it loads the supervisor.
  'shared/supervisor': { 'ipc.ts': [], 'code-cache.cts': [], 'bundles.ts': [] },
  // The operator's side of ejabberd: starting, stopping, clustering, configuring and exposing the
  // server, and throw-away instances for tests and benches (the supervisor and the CLIs). index.ts
  // is what every agent needs at start: accounts, credentials, endpoints, ports, the HTTP API.
  'shared/ejabberd': { 'operator.ts': ['control.ts', 'cluster-control.ts', 'temp-instance.ts', 'expose.ts', 'render.ts'] },
  // runtime's index.ts is the agent core every agent loads; the second entries are what only some
  // roles need: running as an XMPP component (specialist host, calendar host, rooms) and
  // registering with the directory (specialist, calendar).
  'shared/runtime': {
    // Finds the repository's data files; a leaf (node: only) that ejabberd/, skills/ and console/
    // need and that runtime's index would otherwise turn into a cycle (runtime → ejabberd → runtime).
    'repo-root.ts': [],
    'component-host.ts': ['component-agent.ts', 'lease-group.ts', 'shard-claims.ts'],
    'registration.ts': ['df-registration.ts', 'registration-machine.ts'],
  },
  // The component connection (@xmpp/component): only the component hosts open one.
  'shared/transport': { 'component.ts': [] },
  // Who has a calendar and their settings (the supervisor, the CLIs): not the iCalendar store,
  // the ledger and the free/busy arithmetic of index.ts.
  'shared/calendar': { 'config.ts': [] },
  'shared/identity': {
    // An agent's own key pair, which provisioning an account creates (ejabberd/accounts.ts, so the
    // supervisor): not the signing, enrolment and trust machinery (contracts, acl) of index.ts.
    'agent-identity.ts': [],
    // The signing benchmark (npm run bench:sign): no agent signs for a benchmark.
    'bench.ts': [],
  },
  // The scripted OpenAI-compatible server that tests and benches answer LLM calls with: no agent
  // runs it, though the skill host imports the LLM client from index.ts.
  'shared/llm': { 'scripted-server.ts': [] },
  // The README's generated configuration tables (npm run gen:config-docs), not configuration.
  'shared/config': { 'docs.ts': [] },
  // Whether and where the console runs (the supervisor reads it): not fastify and the HTTP API.
  // OpenTelemetry export: startConsole imports it lazily, only when PARLEY_OTLP_URL is set.
  'shared/console': { 'settings.ts': [], 'otel.ts': [] },
  // The operators' error type: the console's routes and error handler need it at start-up, the
  // service layer of index.ts (runtime, skills, stores) only on the first request that uses it.
  'shared/ops': { 'errors.ts': [] },
  // Reading the agents' telemetry files (the console's feed): not the analysis and the test person
  // of index.ts, which load the agent runtime (names, policy, the XMPP client).
  'shared/trace': { 'collect.ts': [] },
};

const ROOT = path.dirname(fileURLToPath(import.meta.url));
const SHARED_FOLDERS = fs.readdirSync(path.join(ROOT, 'shared'), { withFileTypes: true })
  .filter((e) => e.isDirectory()).map((e) => e.name).sort();

/** import-x/no-restricted-paths zones: outside shared/<x>/, only its public entries may be imported. */
export const barrelZones = (folders = SHARED_FOLDERS) => folders.map((x) => ({
  target: ['agents/**', 'scripts/**', 'skills/**', 'test/**', `shared/!(${x})/**`],
  from: `shared/${x}`,
  except: ['./index.ts', ...Object.keys(PUBLIC_ENTRIES[`shared/${x}`] ?? {}).map((f) => `./${f}`)],
  message: `Import shared/${x}/index.js (issue 10 §2), not a module inside it${PUBLIC_ENTRIES[`shared/${x}`] ? ` (second entries: ${Object.keys(PUBLIC_ENTRIES[`shared/${x}`]).join(', ')})` : ''}.`,
}));

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.parley/**', 'shared/contracts/types.gen.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'off',
    },
  },
  {
    // The console's dashboard: plain browser modules; mermaid and XMPP are the vendored globals.
    files: ['web/**/*.js'],
    languageOptions: {
      globals: Object.fromEntries(['window', 'document', 'location', 'fetch', 'EventSource', 'Node', 'crypto', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'console'].map((g) => [g, 'readonly'])),
    },
  },
  {
    files: ['agents/**/*.ts', 'shared/**/*.ts', 'shared/**/*.cts'],
    rules: { 'no-console': 'error' },
  },
  {
    // No import cycles and no deep imports across shared/ folders (issue 10 §2): a module graph a
    // newcomer can read from the bottom up, one public entry per folder.
    files: ['agents/**/*.ts', 'shared/**/*.ts', 'shared/**/*.cts', 'skills/**/*.ts', 'scripts/**/*.ts', 'test/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.cts'] },
      'import-x/extensions': ['.ts', '.cts', '.js', '.cjs'],
    },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-restricted-paths': ['error', { zones: barrelZones(), basePath: ROOT }],
    },
  },
);
