// Skills (issue "Skills, roles and spawning"): the directory, validation with ajv, isolation in
// worker threads with time and memory limits, and the host that serves a specialist's skills.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { Ajv } from 'ajv';
import { ParleyError } from '../../shared/acl/index.js';
import { loadCatalogue, writeRegistry, checkSkillManifest, MANIFEST_SCHEMA, ROLE_FILE_SCHEMA } from '../../shared/skills/index.js';
import { SkillHost } from '../../shared/skills/hosting.js';
import { checkSpawnSkills } from '../../shared/supervisor/index.js';
import { failure, HANDLERS, tempSkillDirs, writeSkill } from '../support/skills.js';

describe('Skills [directory] skill.json and _registry.json', () => {
  it('loads the built-in skills with their manifests and compiled handlers', () => {
    const dirs = tempSkillDirs();
    const c = loadCatalogue(dirs);
    const names = c.skills.map((s) => s.name);
    expect(names).to.include.members(['arithmetic', 'time', 'text_stats', 'delegate_task', 'query_agents', 'broadcast_event', 'plan']);
    const arithmetic = c.skills.find((s) => s.name === 'arithmetic');
    expect(arithmetic).to.include({ source: 'builtin', enabled: true });
    expect(arithmetic?.handlerPath).to.match(/dist\/skills\/arithmetic\/handler\.js$/);
  });

  it('reports an invalid skill.json with the reason and skips it, keeping the others', () => {
    const dirs = tempSkillDirs();
    writeSkill(dirs.user, 'good', HANDLERS.echo);
    const bad = writeSkill(dirs.user, 'bad', HANDLERS.echo, { version: 'one', handler: '../../etc/passwd.js' });
    fs.mkdirSync(path.join(dirs.user, 'notjson'));
    fs.writeFileSync(path.join(dirs.user, 'notjson', 'skill.json'), '{ nope');
    const c = loadCatalogue(dirs);
    expect(c.skills.map((s) => s.name)).to.include('good').and.not.include('bad');
    const p = c.problems.find((x) => x.dir === bad);
    expect(p?.detail).to.match(/^skill\.json: .*\/version must match pattern/);
    expect(p?.detail).to.match(/\/handler must match pattern/);
    expect(c.problems.find((x) => x.name === 'notjson')?.detail).to.match(/^skill\.json is not JSON/);
  });

  it('rejects a manifest whose name differs from its folder, a bad pattern or a schema that does not compile', () => {
    const base = { name: 'x', description: 'd', version: '1.0.0', handler: './h.js' };
    expect(checkSkillManifest(base, 'y')).to.deep.include({ ok: false });
    expect(checkSkillManifest({ ...base, recognise: { patterns: ['(unclosed'] } }, 'x')).to.deep.include({ ok: false });
    const r = checkSkillManifest({ ...base, inputSchema: { type: 'object', properties: { a: { type: 'nonsense' } } } }, 'x');
    expect(r.ok).to.equal(false);
    expect(!r.ok && r.detail).to.match(/inputSchema does not compile/);
  });

  it('npm run spawn refuses a skill whose inputSchema does not compile, though reading it does not compile it', () => {
    const dirs = tempSkillDirs();
    writeSkill(dirs.user, 'badref', HANDLERS.echo, { inputSchema: { type: 'object', properties: { question: { $ref: '#/definitions/nowhere' } } } });
    expect(() => checkSpawnSkills(dirs.root, { name: 'specialist-x', skills: ['badref'] })).to.throw(/skill "badref" is invalid: skill\.json: \/inputSchema does not compile: can't resolve reference/);
    fs.rmSync(dirs.root, { recursive: true, force: true });
  });

  it('compiles an inputSchema on its first use; ready() compiles it now and throws what compile throws', () => {
    const base = { name: 'x', description: 'd', version: '1.0.0', handler: './h.js' };
    const ok = checkSkillManifest({ ...base, inputSchema: { type: 'object', required: ['question'], properties: { question: { type: 'string', maxLength: 3 } } } }, 'x');
    if (!ok.ok) throw new Error(ok.detail);
    expect(ok.validateInput({ question: 'abcd' })).to.equal(false);
    expect(ok.validateInput.errors?.[0]?.message).to.match(/must NOT have more than 3 characters/);
    expect(ok.validateInput({ question: 'abc' })).to.equal(true);
    expect(ok.validateInput.errors).to.equal(null);
    const ref = checkSkillManifest({ ...base, inputSchema: { type: 'object', properties: { question: { $ref: '#/definitions/nowhere' } } } }, 'x');
    if (!ref.ok) throw new Error(ref.detail);
    expect(() => ref.validateInput.ready()).to.throw(/can't resolve reference/);
    expect(() => ref.validateInput({ question: 'q' })).to.throw(/can't resolve reference/);
  });

  it('skill.json\'s and the roles file\'s own schemas are valid JSON Schema (their ajv skips the meta-schema check)', () => {
    const ajv = new Ajv({ allErrors: true, strict: false });
    for (const schema of [MANIFEST_SCHEMA, ROLE_FILE_SCHEMA]) expect(ajv.validateSchema(schema), ajv.errorsText()).to.equal(true);
  });

  it('_registry.json disables a skill; a user skill overrides the built-in of the same name', () => {
    const dirs = tempSkillDirs();
    writeRegistry(dirs.user, { skills: { time: { enabled: false } } });
    writeSkill(dirs.user, 'arithmetic', HANDLERS.echo);
    const c = loadCatalogue(dirs);
    expect(c.skills.find((s) => s.name === 'time')?.enabled).to.equal(false);
    expect(c.skills.find((s) => s.name === 'arithmetic')).to.include({ source: 'user', overrides: true });
  });
});

describe('Skills [isolation] handlers in sandboxed processes with limits', function () {
  this.timeout(30000);
  const dirs = tempSkillDirs();
  // The hog gets a long time limit: it must end by its memory limit, however slow GC is on a busy machine.
  // No published examples: a skill whose example hangs, crashes or runs out of memory is not served at all (warm-up).
  for (const [name, src] of Object.entries(HANDLERS)) writeSkill(dirs.user, name.toLowerCase(), src, { limits: { timeoutMs: name === 'hog' ? 20000 : 800, memoryMb: 32 }, examples: [] });
  // Passes every check made while reading (meta-schema, patterns) but does not compile: found when served.
  writeSkill(dirs.user, 'badref', HANDLERS.echo, { examples: [], inputSchema: { type: 'object', properties: { question: { $ref: '#/definitions/nowhere' } } } });
  const host = new SkillHost({ select: (d) => d.source === 'user', maxWorkers: 2 });
  let report: Awaited<ReturnType<SkillHost['apply']>>;
  before(async () => {
    report = await host.apply(loadCatalogue(dirs));
  });
  after(() => host.close());

  it('a handler without run() or whose init() throws is reported and skipped', () => {
    expect(report.added).to.include.members(['echo', 'hang', 'crash', 'throws', 'hog']).and.not.include.members(['norun', 'badinit']);
    expect(report.problems.find((p) => p.name === 'norun')?.detail).to.match(/exports no run/);
    expect(report.problems.find((p) => p.name === 'badinit')?.detail).to.match(/data file missing/);
  });

  it('an inputSchema that does not compile is reported and skipped when served (compiled only for the skills served)', () => {
    expect(loadCatalogue(dirs).skills.map((s) => s.name), 'read without compiling').to.include('badref');
    expect(report.added).to.not.include('badref');
    expect(report.problems.find((p) => p.name === 'badref')?.detail).to.match(/^skill\.json: \/inputSchema does not compile: can't resolve reference #\/definitions\/nowhere/);
  });

  it('runs a handler outside the main thread and recognises by pattern', async () => {
    expect(await host.recognise('echo hello')).to.equal('echo');
    expect(await host.recognise('nothing matches this')).to.equal(null);
    const r = await host.run('echo', { question: 'echo hello' }, 'sess-1');
    expect(r.answer).to.equal('echo: echo hello');
    expect(r.meta).to.include({ skill: 'echo' });
    expect(r.meta.pid).to.be.a('number').and.not.equal(process.pid); // its own sandboxed process
  });

  it('validates input against the inputSchema: INVALID_ARGS', async () => {
    const e = await failure(host.run('echo', { nope: 1 }, 'sess-1'));
    expect(e.code).to.equal('INVALID_ARGS');
    expect(e.detail).to.match(/must have required property 'question'/);
  });

  it('a hanging skill ends in TIMEOUT at its limit and the next call is served', async () => {
    const t0 = Date.now();
    const e = await failure(host.run('hang', { question: 'hang' }, 'sess-1'));
    const ms = Date.now() - t0;
    expect(e.code).to.equal('TIMEOUT');
    expect(e.detail).to.match(/took longer than 800 ms and was stopped/);
    expect(ms).to.be.within(780, 3000);
    expect((await host.run('echo', { question: 'still here' }, 'sess-1')).answer).to.equal('echo: still here');
  });

  it('a skill that throws, or crashes its worker, ends in INTERNAL_ERROR', async () => {
    const thrown = await failure(host.run('throws', { question: 'x' }, 'sess-1'));
    expect(thrown).to.include({ code: 'INTERNAL_ERROR', detail: 'the skill is broken' });
    const crashed = await failure(host.run('crash', { question: 'x' }, 'sess-1'));
    expect(crashed.code).to.equal('INTERNAL_ERROR');
    expect(crashed.detail).to.match(/crashed: kaboom outside the call/);
    expect((await host.run('crash', { question: 'x' }, 'sess-1').catch((e: ParleyError) => e.code))).to.equal('INTERNAL_ERROR'); // a fresh worker
  });

  it('a skill that allocates without bound hits its memory limit: INTERNAL_ERROR, the specialist lives', async () => {
    const e = await failure(host.run('hog', { question: 'x' }, 'sess-1'));
    expect(e.code).to.equal('INTERNAL_ERROR');
    expect(e.detail).to.match(/ran out of memory \(limit 32 MB\)/);
    expect((await host.run('echo', { question: 'after the hog' }, 'sess-1')).answer).to.equal('echo: after the hog');
  });

  it('an abort (CANCEL) stops the running call at once', async () => {
    const ac = new AbortController();
    const p = host.run('hang', { question: 'x' }, 'sess-1', ac.signal);
    setTimeout(() => ac.abort(), 50);
    const e = await failure(p);
    expect(e).to.include({ code: 'INTERNAL_ERROR', detail: 'cancelled' }); // not TIMEOUT: stopped before its limit
  });
});

describe('Skills [pool] concurrent calls never wait for a cold start when a warm worker frees up', function () {
  this.timeout(30000);
  it('five calls at once on one warm worker finish long before a new worker could start', async () => {
    const dirs = tempSkillDirs();
    // init() takes 2 s: like importing mathjs on a loaded machine.
    writeSkill(dirs.user, 'slowstart', `export async function init() { await new Promise((r) => setTimeout(r, 2000)); }\nexport const run = (i) => 'ok ' + i.question;\n`);
    const host = new SkillHost({ select: (d) => d.name === 'slowstart', maxWorkers: 4 });
    try {
      await host.apply(loadCatalogue(dirs));
      const t0 = Date.now();
      const answers = await Promise.all([1, 2, 3, 4, 5].map((n) => host.run('slowstart', { question: String(n) }, 's')));
      expect(answers.map((a) => a.answer)).to.deep.equal(['ok 1', 'ok 2', 'ok 3', 'ok 4', 'ok 5']);
      expect(Date.now() - t0).to.be.below(1500);
    } finally {
      await host.close();
    }
  });
});

describe('Skills [built-ins] arithmetic and time through worker threads', function () {
  this.timeout(30000);
  const host = new SkillHost({ select: (d) => ['arithmetic', 'time', 'text_stats'].includes(d.name), maxWorkers: 2 });
  before(() => host.apply(loadCatalogue(tempSkillDirs())));
  after(() => host.close());

  it('recognises and answers like the in-process experts did', async () => {
    expect(await host.recognise('what is 17 * 23?')).to.equal('arithmetic');
    expect(await host.recognise('what time is it in Tokyo?')).to.equal('time');
    expect(await host.recognise('tell me a joke')).to.equal(null);
    expect((await host.run('arithmetic', { question: 'what is 17 * 23?' }, 's')).answer).to.equal('391');
    const e = await failure(host.run('arithmetic', { question: 'what is 5 blorps to kg?' }, 's'));
    expect(e.code).to.equal('INVALID_ARGS');
  });

  it('text_stats counts words, sentences and reading time', async () => {
    const q = 'text stats: The cat sat. The dog ran away quickly!';
    expect(await host.recognise(q)).to.equal('text_stats');
    const r = await host.run('text_stats', { question: q }, 's');
    expect(r.answer).to.match(/^8 words, 2 sentences, \d+ characters/);
    expect(r.meta).to.include({ words: 8, sentences: 2 });
  });
});
