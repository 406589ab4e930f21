// npm run skills -- list | show NAME | add DIR | remove NAME | enable NAME | disable NAME
// The skills directory (docs/skills.md): built-ins in skills/, the operator's in
// $PARLEY_HOME/skills/ with _registry.json. Running specialists follow every change within
// seconds (hot reload); nothing here talks to an agent.
import fs from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { loadConfig } from '../shared/config/index.js';
import { defaultSkillDirs, loadCatalogue, readRegistry, readSkill, type SkillDef, writeRegistry } from '../shared/skills/catalogue.js';
import { SkillPool } from '../shared/skills/pool.js';
import { clipWords, ensureServed } from '../shared/supervisor/operate.js';


const cfg = loadConfig();
const dirs = defaultSkillDirs(cfg.home);
const program = new Command('skills').description('Manage the skills specialists serve');

const find = (name: string): SkillDef => {
  const s = loadCatalogue(dirs).skills.find((x) => x.name === name);
  if (!s) throw new Error(`no skill named ${JSON.stringify(name)} (npm run skills -- list)`);
  return s;
};

function setEnabled(name: string, enabled: boolean): void {
  const s = find(name);
  const { registry } = readRegistry(dirs.user);
  registry.skills[name] = { enabled };
  writeRegistry(dirs.user, registry);
  console.log(`${name} ${enabled ? 'enabled' : 'disabled'} (${s.source}); running specialists follow within seconds`);
}

program.command('list').description('every skill, enabled or not, and every skill that was skipped and why').action(() => {
  const c = loadCatalogue(dirs);
  const rows = c.skills.map((s) => [s.name, s.manifest.version, s.source + (s.overrides ? ' (overrides built-in)' : ''), s.enabled ? 'enabled' : 'disabled', clipWords(s.manifest.description, 70)]);
  const widths = [0, 1, 2, 3].map((i) => Math.max(...rows.map((r) => r[i]!.length), 4));
  for (const r of rows) console.log(r.map((c, i) => (i < 4 ? c.padEnd(widths[i]!) : c)).join('  '));
  for (const p of c.problems) console.log(`skipped ${p.name ?? path.basename(p.dir)}: ${p.detail} (${p.dir})`);
  console.log(`${c.skills.length} skills (${c.skills.filter((s) => s.enabled).length} enabled), ${c.problems.length} skipped; user directory ${dirs.user}`);
});

program.command('show <name>').description('a skill\'s manifest and where it lives').action((name: string) => {
  const s = find(name);
  console.log(JSON.stringify({ source: s.source, enabled: s.enabled, dir: s.dir, handler: s.handlerPath, fingerprint: s.fingerprint, manifest: s.manifest }, null, 2));
});

program
  .command('add <dir>')
  .description('validate a skill folder, load its handler once in a worker, and copy it into the user directory')
  .option('--force', 'replace a user skill of the same name')
  .action(async (dir: string, o: { force?: boolean }) => {
    const src = path.resolve(dir);
    const s = readSkill(src, 'user');
    if ('detail' in s) throw new Error(`not added: ${s.detail}`);
    const pool = new SkillPool({ name: s.name, handlerPath: s.handlerPath, fingerprint: s.fingerprint, recognise: s.manifest.recognise ?? {}, timeoutMs: 1000, memoryMb: s.manifest.limits?.memoryMb ?? 128, maxWorkers: 1 });
    try {
      await pool.warm();
    } catch (err) {
      throw new Error(`not added: the handler does not load: ${(err as Error).message}`);
    } finally {
      await pool.close();
    }
    const dest = path.join(dirs.user, s.name);
    if (fs.existsSync(dest) && !o.force) throw new Error(`${s.name} exists in ${dirs.user}; use --force to replace it`);
    // Copy into a temporary folder and rename: a watcher never sees half a skill.
    const tmp = path.join(dirs.user, `.${s.name}.tmp`);
    fs.rmSync(tmp, { recursive: true, force: true });
    fs.cpSync(src, tmp, { recursive: true });
    fs.rmSync(dest, { recursive: true, force: true });
    fs.renameSync(tmp, dest);
    const disabled = loadCatalogue(dirs).skills.find((x) => x.name === s.name)?.enabled === false;
    console.log(`added ${s.name} ${s.manifest.version} to ${dest}${disabled ? ' (disabled in _registry.json)' : ''}`);
    if (disabled) return;
    // Answerable without further steps: a running specialist picks it up, else one is started for it.
    const serving = await ensureServed(cfg, s.name);
    if (serving.noSupervisor) console.log(`no supervisor is running (npm start); serve it with: npm run spawn -- specialist --skills ${s.name}`);
    else if (serving.started) console.log(`served by ${serving.started} (started for it; registered with the Registry)`);
    else console.log(`served by ${serving.by.join(', ')} (running specialists pick it up within seconds)`);
  });

program.command('remove <name>').description('delete a user skill (built-ins can only be disabled)').action((name: string) => {
  const s = find(name);
  if (s.source !== 'user') throw new Error(`${name} is built in; disable it instead: npm run skills -- disable ${name}`);
  fs.rmSync(s.dir, { recursive: true, force: true });
  const { registry } = readRegistry(dirs.user);
  if (registry.skills[name]) {
    delete registry.skills[name];
    writeRegistry(dirs.user, registry);
  }
  console.log(`removed ${name}`);
});

program.command('enable <name>').description('enable a skill in _registry.json').action((name: string) => setEnabled(name, true));
program.command('disable <name>').description('disable a skill in _registry.json').action((name: string) => setEnabled(name, false));

program.parseAsync().catch((err: Error) => {
  console.error(`skills: ${err.message}`);
  process.exit(1);
});
