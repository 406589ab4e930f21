// CI's check of docker-compose.yml (issue "Beyond one machine" §4): every service's command and
// every environment variable it sets exists in the code, so the file cannot drift from it.
//   node dist/scripts/check-compose.js [FILE]   exit 1 with one line per problem
// `docker-compose config -q` (Debian's package, .ci/run) checks the file's syntax; this checks its
// meaning: a command is `node dist/….js` whose TypeScript source exists (and whose --options that
// source names), `npm run NAME` of package.json, or a docker/*.sh entry script whose own `node`
// and `npm run` lines pass the same test; a PARLEY_* variable is declared in
// shared/config/variables.ts, read by code outside that table, and its value passes the typed
// reader; any other variable must be read by the service's entry script. The specialists may
// mount no volume another service mounts (the operator's secrets stay the operator's).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  envEnum, envFlag, envList, envNumber, envString, VARIABLES, type VarName, isDeclared,
} from '../shared/config/index.js';
import { repoRoot } from '../shared/runtime/repo-root.js';

// js-yaml arrives with mocha and eslint (devDependencies): this is a development and CI tool.
const yaml = createRequire(import.meta.url)('js-yaml') as { load(text: string): unknown };

/** The services the issue asks for. */
export const REQUIRED_SERVICES = ['ejabberd', 'agents', 'console', 'specialist'] as const;

interface Service {
  command?: string | string[];
  entrypoint?: string | string[];
  environment?: Record<string, unknown> | string[];
  volumes?: Array<string | { source?: string; type?: string }>;
  network_mode?: string;
  depends_on?: string[] | Record<string, unknown>;
  healthcheck?: { test?: string | string[] };
}

const words = (c: string | string[] | undefined): string[] => (c === undefined ? [] : Array.isArray(c) ? c.map(String) : c.trim().split(/\s+/));

function envOf(s: Service): Record<string, string> {
  if (Array.isArray(s.environment)) {
    return Object.fromEntries(s.environment.map((kv) => [kv.split('=')[0] as string, kv.includes('=') ? kv.slice(kv.indexOf('=') + 1) : '']));
  }
  return Object.fromEntries(Object.entries(s.environment ?? {}).map(([k, v]) => [k, v === null || v === undefined ? '' : String(v)]));
}

/** Named volumes a service mounts (bind mounts of host paths are not shared secrets volumes). */
function namedVolumes(s: Service): string[] {
  return (s.volumes ?? []).map((v) => (typeof v === 'string' ? (v.split(':')[0] as string) : (v.type === 'volume' ? v.source ?? '' : '')))
    .filter((v) => v !== '' && !v.startsWith('.') && !v.startsWith('/') && !v.startsWith('~'));
}

export class CodeIndex {
  readonly scripts: Record<string, string>;
  private readonly sources: Array<{ file: string; text: string }> = [];
  constructor(readonly root: string = repoRoot()) {
    this.scripts = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    const walk = (dir: string) => {
      if (!fs.existsSync(dir)) return;
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (e.name.endsWith('.ts') && !e.name.endsWith('.gen.ts')) this.sources.push({ file: path.relative(root, p), text: fs.readFileSync(p, 'utf8') });
      }
    };
    for (const d of ['agents', 'shared', 'scripts']) walk(path.join(root, d));
  }

  /** A PARLEY_* name mentioned by code other than its declaration. */
  readsVariable(name: string): boolean {
    const decl = path.join('shared', 'config', 'variables.ts');
    return this.sources.some(({ file, text }) => file !== decl && new RegExp(`\\b${name}\\b`).test(text));
  }
}

/** Problems with one command line (`what` names it in the messages). */
function checkCommand(argv: string[], what: string, code: CodeIndex, scriptReads: Set<string>): string[] {
  const [cmd, ...args] = argv;
  if (cmd === undefined) return [`${what}: no command (the image's default is not checked: name one)`];
  if (cmd === 'node') {
    const js = args.find((a) => !a.startsWith('-'));
    const m = js?.match(/^(?:\/opt\/parley\/)?dist\/(.+)\.js$/);
    if (!js || !m) return [`${what}: node must run a dist/….js file of the repository, got ${JSON.stringify(js ?? '')}`];
    const ts = path.join(code.root, `${m[1]}.ts`);
    if (!fs.existsSync(ts)) return [`${what}: ${js} has no source ${path.relative(code.root, ts)}`];
    // With the scripts it hands over to (scripts/supervisor.ts imports ./supervisor-main.js).
    const own = fs.readFileSync(ts, 'utf8');
    const text = [own, ...[...own.matchAll(/import\(\s*'\.\/([\w-]+)\.js'\s*\)/g)].map((i) => path.join(path.dirname(ts), `${i[1]}.ts`)).filter((f) => fs.existsSync(f)).map((f) => fs.readFileSync(f, 'utf8'))].join('\n');
    const unknown = args.slice(args.indexOf(js) + 1).filter((a) => a.startsWith('--')).map((a) => a.split('=')[0] as string)
      .filter((flag) => !new RegExp(`['"\`]${flag}[ '"\`<\\[]`).test(text));
    return unknown.map((flag) => `${what}: ${js} has no option ${flag} (not in ${path.relative(code.root, ts)})`);
  }
  if (cmd === 'npm') {
    const name = args[0] === 'run' || args[0] === 'run-script' ? args[1] : args[0];
    return name !== undefined && Object.hasOwn(code.scripts, name) ? [] : [`${what}: package.json has no script ${JSON.stringify(name ?? '')}`];
  }
  const m = cmd.match(/^(?:\/opt\/parley\/)?(docker\/[\w.-]+\.sh)$/);
  if (m) {
    const file = path.join(code.root, m[1] as string);
    if (!fs.existsSync(file)) return [`${what}: ${m[1]} does not exist`];
    if ((fs.statSync(file).mode & 0o111) === 0) return [`${what}: ${m[1]} is not executable`];
    const text = fs.readFileSync(file, 'utf8');
    for (const v of text.matchAll(/\$\{?([A-Za-z_][A-Za-z0-9_]*)/g)) scriptReads.add(v[1] as string);
    const problems: string[] = [];
    for (const v of scriptReads) if (v.startsWith('PARLEY_') && !isDeclared(v)) problems.push(`${m[1]}: ${v} is not declared in shared/config/variables.ts`);
    // Each line that runs node or npm (the script's own commands), checked like a service's.
    for (const line of text.split('\n')) {
      const l = line.replace(/^\s*(exec\s+)?/, '').replace(/"\$\([^)]*\)"|"\$[^"]*"|\$\S+/g, 'X').trim();
      if (/^(node|npm)\s+(dist\/|run\s)/.test(l)) problems.push(...checkCommand(l.split(/\s+/), `${what} (${m[1]})`, code, new Set()));
    }
    return problems;
  }
  return [`${what}: unknown command ${JSON.stringify(cmd)} (node dist/….js, npm run NAME or docker/*.sh)`];
}

/** The value as the typed reader would take it: a bad one is the reader's own ConfigError message. */
function checkValue(name: VarName, value: string): string | undefined {
  const env = { [name]: value };
  try {
    const kind = VARIABLES[name].kind;
    if (kind === 'ms' || kind === 'number' || kind === 'port') envNumber(name, env, 0);
    else if (kind === 'flag') envFlag(name, env);
    else if (kind === 'enum') envEnum(name, env);
    else if (kind === 'list') envList(name, env);
    else envString(name, env);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

export function checkCompose(text: string, code = new CodeIndex()): string[] {
  const doc = yaml.load(text) as { services?: Record<string, Service> } | undefined;
  const services = doc?.services ?? {};
  const problems: string[] = [];
  for (const name of REQUIRED_SERVICES) if (!services[name]) problems.push(`service ${name} is missing`);
  for (const [name, s] of Object.entries(services)) {
    const reads = new Set<string>();
    if (s.entrypoint !== undefined) problems.push(...checkCommand(words(s.entrypoint), `${name}.entrypoint`, code, reads));
    else problems.push(...checkCommand(words(s.command), `${name}.command`, code, reads));
    const test = words(s.healthcheck?.test);
    if (test.length) problems.push(...checkCommand(test[0] === 'CMD' ? test.slice(1) : test[0] === 'CMD-SHELL' ? (test[1] ?? '').split(/\s+/) : test, `${name}.healthcheck`, code, new Set()));
    for (const [k, v] of Object.entries(envOf(s))) {
      if (k.startsWith('PARLEY_')) {
        if (!isDeclared(k)) problems.push(`${name}.environment: ${k} is not declared in shared/config/variables.ts`);
        else if (!code.readsVariable(k)) problems.push(`${name}.environment: ${k} is declared but no code reads it`);
        else {
          const bad = checkValue(k, v);
          if (bad) problems.push(`${name}.environment: ${bad}`);
        }
      } else if (!reads.has(k)) {
        problems.push(`${name}.environment: ${k} is read neither by Parley (not PARLEY_*) nor by the service's entry script`);
      }
    }
    const via = s.network_mode?.match(/^service:(.+)$/)?.[1];
    if (via !== undefined && !services[via]) problems.push(`${name}.network_mode: no service ${via}`);
    const deps = Array.isArray(s.depends_on) ? s.depends_on : Object.keys(s.depends_on ?? {});
    for (const d of deps) if (!services[d]) problems.push(`${name}.depends_on: no service ${d}`);
  }
  // Specialists share nothing with the operator's services but the network.
  const specialist = services.specialist;
  if (specialist) {
    const others = new Set(Object.entries(services).filter(([n]) => n !== 'specialist').flatMap(([, s]) => namedVolumes(s)));
    for (const v of namedVolumes(specialist)) if (others.has(v)) problems.push(`specialist mounts volume ${v}, which the operator's services mount: specialists enrol with a token instead`);
    if (specialist.network_mode?.startsWith('service:')) problems.push('specialist shares a network namespace with another service: it must reach ejabberd over the network like another host');
  }
  return problems;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const file = path.resolve(process.argv[2] ?? path.join(repoRoot(), 'docker-compose.yml'));
  const problems = checkCompose(fs.readFileSync(file, 'utf8'));
  for (const p of problems) console.error(`check-compose: ${p}`);
  if (problems.length) process.exit(1);
  console.log(`check-compose: ${path.relative(process.cwd(), file) || file}: every command and variable exists in the code`);
}
