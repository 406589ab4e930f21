// Start-up (docs/runtime.md "Start-up"): each specialist imports only its own skills' libraries
// (one worker pool per skill: a time specialist never loads mathjs), and every skill answers its
// published examples in its first worker; at a specialist's start that worker warms behind the
// skill, which is served (and registered) at once (SkillHost.apply `warmBehind`).
import { expect } from 'chai';
import { loadCatalogue } from '../../shared/skills/index.js';
import { SkillHost, warmExamples, SkillPool } from '../../shared/skills/hosting.js';
import { arithmeticExpert } from '../../skills/arithmetic/arithmetic.js';
import { HANDLERS, failure, tempSkillDirs, writeSkill } from '../support/skills.js';
import { hostRunner } from '../../agents/specialist/skills.js';

describe('Specialist [start-up] skills loaded per specialist and warmed', function () {
  this.timeout(30000);

  it('the arithmetic skill (mathjs single-file build) still computes exactly and refuses code', async () => {
    expect(await arithmeticExpert.answer('what is 17 * 23?')).to.deep.include({ answer: '391' });
    expect(arithmeticExpert.recognise('import("fs")')).to.equal(0);
  });

  it('warm-up answers every published example a skill recognises, and none of a delegating skill', async () => {
    const c = loadCatalogue(tempSkillDirs());
    for (const name of ['arithmetic', 'time']) {
      const def = c.skills.find((s) => s.name === name)!;
      const pool = new SkillPool({ name, handlerPath: def.handlerPath, fingerprint: def.fingerprint, recognise: def.manifest.recognise ?? {}, timeoutMs: 5000, memoryMb: 128, maxWorkers: 1 });
      try {
        await pool.warm();
        const examples = def.manifest.examples?.length ?? 0;
        expect(await warmExamples(def, pool), name).to.be.within(examples - 1, examples);
      } finally {
        await pool.close();
      }
    }
    const plan = c.skills.find((s) => s.name === 'plan')!;
    expect(await warmExamples(plan, undefined as unknown as SkillPool)).to.equal(0); // never touches its pool
  });

  it('warm-up keeps one worker; the first question after it starts the spare', async () => {
    const def = loadCatalogue(tempSkillDirs()).skills.find((s) => s.name === 'time')!;
    const pool = new SkillPool({ name: 'time', handlerPath: def.handlerPath, fingerprint: def.fingerprint, recognise: def.manifest.recognise ?? {}, timeoutMs: 5000, memoryMb: 128, maxWorkers: 3 });
    try {
      await pool.warm();
      expect(await warmExamples(def, pool)).to.be.greaterThan(0);
      expect(pool.size, 'workers after the warm-up').to.equal(1);
      await pool.run({ question: def.manifest.examples![0]! }, 'sess-1');
      expect(pool.size, 'workers after the first question').to.equal(2);
    } finally {
      await pool.close();
    }
  });

  it('a specialist serving only time never starts an arithmetic worker', async () => {
    const host = new SkillHost({ select: (d) => d.name === 'time', maxWorkers: 1 });
    try {
      const r = await host.apply(loadCatalogue(tempSkillDirs()));
      expect(r.added).to.deep.equal(['time']);
      expect(host.skills().map((s) => s.name)).to.deep.equal(['time']);
    } finally {
      await host.close();
    }
  });

  /** A host serving a skill whose init() throws and a working one, with its problems and 'changed' lists. */
  const brokenAndEcho = () => {
    const dirs = tempSkillDirs();
    writeSkill(dirs.user, 'badinit', HANDLERS.badInit);
    writeSkill(dirs.user, 'echo', HANDLERS.echo);
    const host = new SkillHost({ select: (d) => d.name === 'badinit' || d.name === 'echo', maxWorkers: 2 });
    const problems: string[] = [];
    const changes: string[][] = [];
    host.on('problem', (p) => problems.push(`${p.name}: ${p.detail}`));
    host.on('changed', (skills) => changes.push(skills.map((s) => s.name)));
    return { dirs, host, problems, changes };
  };

  it('warmBehind: the skill is served at once; a question before its worker is up starts it, waits for it and is answered', async () => {
    const host = new SkillHost({ select: (d) => d.name === 'time', maxWorkers: 2 });
    try {
      const r = await host.apply(loadCatalogue(tempSkillDirs()), { warmBehind: true });
      expect(r.added).to.deep.equal(['time']);
      expect(host.skills().map((s) => s.name), 'served before its worker is up').to.deep.equal(['time']);
      const out = await host.run('time', { question: 'what day of the week is 2026-12-25?' }, 'sess-early');
      expect(out.answer).to.match(/Friday/);
      await host.warming();
      expect(host.skills().map((s) => s.name), 'still served after its warm-up').to.deep.equal(['time']);
    } finally {
      await host.close();
    }
  });

  it('warmBehind: a handler that fails in its worker is withdrawn afterwards, with the reason; its early question fails clearly', async () => {
    const { dirs, host, problems, changes } = brokenAndEcho();
    try {
      await host.apply(loadCatalogue(dirs), { warmBehind: true });
      expect(host.skills().map((s) => s.name)).to.deep.equal(['badinit', 'echo']);
      const early = await failure(host.run('badinit', { question: 'badinit now' }, 'sess-early'));
      expect(early.code).to.equal('INTERNAL_ERROR');
      expect(early.detail).to.match(/data file missing/);
      await host.warming();
      expect(host.skills().map((s) => s.name), 'withdrawn').to.deep.equal(['echo']);
      expect(problems.join('\n')).to.match(/^badinit: handler: .*data file missing/m);
      expect(changes.at(-1), "the last 'changed' (the DF's profile follows it)").to.deep.equal(['echo']);
      expect((await host.run('echo', { question: 'echo hi' }, 'sess-1')).answer).to.equal('echo: echo hi');
    } finally {
      await host.close();
    }
  });

  it('warmBehind: no worker starts until startWarming() or the first call (through hostRunner too), which is answered', async () => {
    const { dirs, host, problems } = brokenAndEcho();
    try {
      await host.apply(loadCatalogue(dirs), { warmBehind: true });
      expect(host.skills().map((s) => s.name)).to.deep.equal(['badinit', 'echo']);
      await host.warming(); // a started warm-up would be awaited here, and badinit's would fail
      expect(problems, 'no worker started before a call').to.deep.equal([]);
      // The first call starts every held warm-up: its own skill answers, the broken one is withdrawn.
      const runner = hostRunner(host);
      expect((await runner.run('echo', { question: 'echo early' }, 'sess-1')).answer).to.equal('echo: echo early');
      await host.warming();
      expect(problems.join('\n')).to.match(/^badinit: handler: .*data file missing/m);
      expect(host.skills().map((s) => s.name)).to.deep.equal(['echo']);
      host.startWarming(); // nothing left to start
    } finally {
      await host.close();
    }
  });
});
