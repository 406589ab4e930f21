import { expect } from 'chai';
import {
  checkSkillManifest, IN_PROCESS_MAX_CHARS, IN_PROCESS_MAX_OPERATORS, IN_PROCESS_MAX_PATTERNS,
  LINEAR_ENGINE, QuickRecogniser, loadCatalogue,
} from '../../shared/skills/index.js';
import { SkillHost } from '../../shared/skills/hosting.js';
import { recogniseArithmetic } from '../../skills/arithmetic/arithmetic.js';
import { tempSkillDirs, writeSkill } from '../support/skills.js';

const manifest = (recognise: Record<string, unknown>) => ({ name: 'probe', description: 'd', version: '1.0.0', handler: './handler.js', recognise });
const problem = (recognise: Record<string, unknown>): string => {
  const r = checkSkillManifest(manifest(recognise), 'probe');
  return r.ok ? '' : r.detail;
};
const quick = (patterns: string[], extra: Record<string, unknown> = {}) => new QuickRecogniser({ patterns, inProcess: true, ...extra });
const score = (q: QuickRecogniser, question: string) => q.score(question, question.toLowerCase());

describe('Skills [recognition] in-process patterns are linear-time, bounded and opt-in', () => {
  it('this Node has V8\'s linear-time engine (otherwise every pattern goes to the worker)', () => {
    expect(LINEAR_ENGINE).to.equal(true);
  });

  it('rejects at manifest load what the linear engine cannot run: backreferences, lookaround', () => {
    expect(problem({ patterns: ['^(a+)\\1$'], inProcess: true })).to.match(/inProcess: .*cannot run in linear time/);
    expect(problem({ patterns: ['^foo(?=bar)'], inProcess: true })).to.match(/cannot run in linear time/);
    expect(problem({ patterns: ['(?<=x)y'], inProcess: true })).to.match(/cannot run in linear time/);
    // Without the opt-in the same pattern is the worker's business (killable there), as before.
    expect(problem({ patterns: ['^(a+)\\1$'] })).to.equal('');
  });

  it('rejects upper case and \\x \\u \\c escapes (the question is matched in lower case), keeps \\S \\W \\D', () => {
    expect(problem({ patterns: ['^Define\\s'], inProcess: true })).to.match(/lower case/);
    expect(problem({ patterns: ['^\\x41'], inProcess: true })).to.match(/\\x, \\u or \\c/);
    expect(problem({ patterns: ['^\\u0041'], inProcess: true })).to.match(/\\x, \\u or \\c/);
    expect(problem({ patterns: ['^define\\s+\\S\\W?\\D?'], inProcess: true })).to.equal('');
  });

  it('bounds the work: too many patterns or quantifiers and alternatives are rejected', () => {
    expect(problem({ patterns: Array.from({ length: IN_PROCESS_MAX_PATTERNS + 1 }, (_, i) => `^w${i}`), inProcess: true })).to.match(/at most 16 patterns/);
    expect(problem({ patterns: ['a*'.repeat(IN_PROCESS_MAX_OPERATORS + 1)], inProcess: true })).to.match(/at most 24 quantifiers/);
    expect(problem({ patterns: ['a|'.repeat(IN_PROCESS_MAX_OPERATORS + 1) + 'b'], inProcess: true })).to.match(/quantifiers and alternatives/);
    expect(problem({ patterns: ['(?:a|b)(?:c|d)(?:e|f)(?:g|h)'.repeat(3)], inProcess: true })).to.equal(''); // (?: is no quantifier
  });

  it('a catastrophic-backtracking pattern cannot hang the specialist: linear time on the longest question', () => {
    const q = quick(['^(a+)+$', '^(?:a|a)*$', '(?:.*a){8}z']);
    const evil = 'a'.repeat(IN_PROCESS_MAX_CHARS - 1) + '!'; // 2^159 paths for a backtracking engine
    const t0 = performance.now();
    expect(score(q, evil)).to.deep.equal({ score: 0, worker: false });
    expect(performance.now() - t0).to.be.below(500); // microseconds on a quiet machine
    expect(score(q, 'aaaa')).to.deep.equal({ score: 1, worker: false });
  });

  it('an inputSchema pattern (checked in the main thread on every question) runs in linear time or is rejected', () => {
    const schema = (pattern: string) => checkSkillManifest({ ...manifest({ module: true }), inputSchema: { type: 'object', properties: { question: { type: 'string', pattern } } } }, 'probe');
    const evil = schema('^(a+)+$');
    if (!evil.ok) throw new Error(evil.detail);
    const t0 = performance.now();
    expect(evil.validateInput({ question: 'a'.repeat(5000) + '!' })).to.equal(false); // 28 characters took 13 s before
    expect(performance.now() - t0).to.be.below(1000);
    expect(evil.validateInput({ question: 'aaa' })).to.equal(true);
    expect(schema('^(?=a)')).to.deep.include({ ok: false });
    expect((schema('^(?=a)') as { detail: string }).detail).to.match(/inputSchema does not compile: .*linear time/);
    expect((schema('^\\p{L}+$') as { detail: string }).detail).to.match(/need the u flag/);
  });

  it('a question longer than the bound goes to the worker instead', () => {
    const q = quick(['^define\\s']);
    expect(score(q, 'define ' + 'x'.repeat(IN_PROCESS_MAX_CHARS))).to.deep.equal({ score: 0, worker: true });
    expect(score(q, 'Define X')).to.deep.equal({ score: 1, worker: false });
  });

  it('keywords are scored here always; module recognition always asks the worker', () => {
    expect(new QuickRecogniser({ keywords: ['Repeat'] }).score('please REPEAT', 'please repeat')).to.deep.equal({ score: 0.5, worker: false });
    expect(new QuickRecogniser({ module: true }).score('x', 'x')).to.deep.equal({ score: 0, worker: true });
    expect(new QuickRecogniser({ patterns: ['^x'] }).score('x', 'x')).to.deep.equal({ score: 0, worker: true }); // not opted in
  });

  it('the arithmetic skill\'s in-process pattern claims only what its module recognises with 1', async () => {
    const { loadCatalogue: load, defaultSkillDirs } = await import('../../shared/skills/index.js');
    const def = load(defaultSkillDirs('/nonexistent')).skills.find((s) => s.name === 'arithmetic');
    const q = new QuickRecogniser(def?.manifest.recognise ?? {});
    const claimed = [
      'what is 17 * 23?', 'What is 2.5 / 4', '  calculate 1 + 2 - 3 * 4 / 5  ', 'compute 10*10', '7 - 8?', '99999999 * 0.5',
      'what is 1 / 0?', 'what is 154 * 45?',
    ];
    for (const question of claimed) {
      expect(score(q, question), question).to.deep.equal({ score: 1, worker: true });
      expect(recogniseArithmetic(question), question).to.equal(1);
    }
    for (const question of ['sqrt(2)', '15% of 80', 'what is 5 /', '5 kg to lb', 'what is 17 x 23?', 'what time is it?']) {
      expect(score(q, question).score, question).to.equal(0);
    }
  });
});

describe('Skills [recognition] the host decides in process without waiting for a worker', function () {
  this.timeout(30000);
  const dirs = tempSkillDirs();
  // One worker, held by a slow run: a recognition that needed it would wait for the run to end.
  writeSkill(dirs.user, 'slowpat', 'export async function run(i) { await new Promise((r) => setTimeout(r, Number(i.question.split(" ")[1]))); return "done"; }\n', {
    recognise: { patterns: ['^slowpat\\b'], inProcess: true }, examples: [],
  });
  writeSkill(dirs.user, 'modtop', 'export const recognise = (q) => (q.startsWith("slowpat") ? 1 : 0);\nexport const run = () => "modtop";\n', {
    recognise: { module: true }, examples: [],
  });
  writeSkill(dirs.user, 'halfpat', 'export const run = () => "halfpat";\n', {
    recognise: { patterns: ['^(?:slowpat|halfpat)\\b'], inProcess: true, score: 0.5 }, examples: [],
  });
  const host = new SkillHost({ select: (d) => d.name === 'slowpat', maxWorkers: 1 });
  before(() => host.apply(loadCatalogue(dirs)));
  after(() => host.close());

  it('recognises while the only worker runs a job (no worker round trip before the AGREE)', async () => {
    const running = host.run('slowpat', { question: 'slowpat 1500' }, 's1');
    const t0 = performance.now();
    expect(await host.recognise('SlowPat 10')).to.equal('slowpat');
    expect(performance.now() - t0).to.be.below(1000);
    expect((await running).answer).to.equal('done');
  });

  it('an in-process score below 1 still asks the workers: a module scoring higher wins', async () => {
    const both = new SkillHost({ select: (d) => d.name === 'halfpat' || d.name === 'modtop', maxWorkers: 1 });
    try {
      await both.apply(loadCatalogue(dirs));
      expect(await both.recognise('slowpat 1')).to.equal('modtop');
      expect(await both.recognise('halfpat only')).to.equal('halfpat');
    } finally {
      await both.close();
    }
  });
});
