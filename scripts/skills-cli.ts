// npm run skills -- list | show NAME | add DIR | remove NAME | enable NAME | disable NAME
// The skills directory (docs/skills.md): built-ins in skills/, the operator's in
// $PARLEY_HOME/skills/ with _registry.json. Running specialists follow every change within
// seconds (hot reload); nothing here talks to an agent. The work is the service layer's
// (shared/ops/skills.ts), shared with the console's /api/skills.
import path from 'node:path';
import { Command } from 'commander';
import { loadConfig } from '../shared/config/index.js';
import { llmSettings } from '../shared/llm/index.js';
import { grantSkill, installSkillDir, listSkills, removeSkill, setSkillEnabled, showSkill } from '../shared/ops/index.js';
import { clipWords, ensureServed } from '../shared/supervisor/index.js';

const cfg = loadConfig();
const program = new Command('skills').description('Manage the skills specialists serve');

function setEnabled(name: string, enabled: boolean): void {
  const s = setSkillEnabled(cfg, name, enabled);
  console.log(`${name} ${enabled ? 'enabled' : 'disabled'} (${s.source}); running specialists follow within seconds`);
}

program.command('list').description('every skill, enabled or not, and every skill that was skipped and why').action(() => {
  const c = listSkills(cfg);
  // A skill that needs the model (skill.json `requires: ["llm"]`) is not served without one (docs/llm.md).
  const modelOn = (() => {
    try {
      return llmSettings(cfg) !== undefined;
    } catch {
      return false;
    }
  })();
  const state = (s: (typeof c.skills)[number]) =>
    (!s.enabled ? 'disabled' : !modelOn && (showSkill(cfg, s.name).manifest.requires ?? []).includes('llm') ? 'enabled, not served (no PARLEY_LLM_URL)' : 'enabled');
  const rows = c.skills.map((s) => [s.name, s.version, s.source + (s.overrides ? ' (overrides built-in)' : ''), state(s), clipWords(s.description, 70)]);
  const widths = [0, 1, 2, 3].map((i) => Math.max(...rows.map((r) => r[i]!.length), 4));
  for (const r of rows) console.log(r.map((c, i) => (i < 4 ? c.padEnd(widths[i]!) : c)).join('  '));
  for (const p of c.problems) console.log(`skipped ${p.name ?? path.basename(p.dir)}: ${p.detail} (${p.dir})`);
  console.log(`${c.skills.length} skills (${c.skills.filter((s) => s.enabled).length} enabled), ${c.problems.length} skipped; user directory ${c.userDir}`);
});

program.command('show <name>').description('a skill\'s manifest and where it lives').action((name: string) => {
  const s = showSkill(cfg, name);
  console.log(JSON.stringify({ source: s.source, enabled: s.enabled, dir: s.dir, handler: s.handler, fingerprint: s.fingerprint, granted: s.granted, manifest: s.manifest }, null, 2));
});

program.command('grant <name>')
  .description('give a user skill the capabilities its skill.json declares (env, read, network, llm); --revoke takes them back')
  .option('--revoke', 'take every capability back')
  .action((name: string, o: { revoke?: boolean }) => {
    const g = grantSkill(cfg, name, { revoke: o.revoke === true });
    const list = (c: typeof g.granted) => [...(c.env ?? []).map((v) => `env ${v}`), ...(c.read ?? []).map((p) => `read ${p}`), ...(c.network ? ['network'] : []), ...(c.llm ? ['llm (ctx.llm, docs/llm.md)'] : [])];
    const now = list(g.granted);
    console.log(`${name}: ${now.length ? `granted ${now.join(', ')}` : 'no capabilities (its sandbox reads only its own code)'}; running specialists follow within seconds`);
  });

program
  .command('add <dir>')
  .description('validate a skill folder, load its handler once in a worker, and copy it into the user directory')
  .option('--force', 'replace a user skill of the same name')
  .action(async (dir: string, o: { force?: boolean }) => {
    const s = await installSkillDir(cfg, dir, { force: o.force === true }).catch((err: Error) => {
      throw new Error(err.message.replace('replace it with force', 'use --force to replace it'));
    });
    console.log(`added ${s.name} ${s.version} to ${path.join(listSkills(cfg).userDir, s.name)}${s.enabled ? '' : ' (disabled in _registry.json)'}`);
    if (!s.enabled) return;
    // Answerable without further steps: a running specialist picks it up, else one is started for it.
    const serving = await ensureServed(cfg, s.name);
    if (serving.noSupervisor) console.log(`no supervisor is running (npm start); serve it with: npm run spawn -- specialist --skills ${s.name}`);
    else if (serving.started) console.log(`served by ${serving.started} (started for it; registered with the Registry)`);
    else console.log(`served by ${serving.by.join(', ')} (running specialists pick it up within seconds)`);
  });

program.command('remove <name>').description('delete a user skill (built-ins can only be disabled)').action((name: string) => {
  removeSkill(cfg, name);
  console.log(`removed ${name}`);
});

program.command('enable <name>').description('enable a skill in _registry.json').action((name: string) => setEnabled(name, true));
program.command('disable <name>').description('disable a skill in _registry.json').action((name: string) => setEnabled(name, false));

program.parseAsync().catch((err: Error) => {
  console.error(`skills: ${err.message}`);
  process.exit(1);
});
