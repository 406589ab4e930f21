import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SkillPool } from '../../shared/skills/hosting.js';

// A handler whose runs take `ms`: with one worker, calls queue behind each other.
const HANDLER = `export async function run(input) {
  await new Promise((r) => setTimeout(r, input.ms));
  return { answer: String(input.tag) };
}
`;

describe('Skills [pool] recognitions go ahead of queued runs', function () {
  this.timeout(20000);
  let dir: string;
  let pool: SkillPool;
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-pool-'));
    fs.writeFileSync(path.join(dir, 'handler.mjs'), HANDLER);
    pool = new SkillPool({ name: 'slow', handlerPath: path.join(dir, 'handler.mjs'), fingerprint: '1', recognise: { patterns: ['^slow\\b'] }, timeoutMs: 5000, memoryMb: 64, maxWorkers: 1 });
    await pool.warm();
  });
  after(async () => {
    await pool.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('with one worker busy and runs queued, a recognition is served before them (it decides an AGREE)', async () => {
    const order: string[] = [];
    const note = (what: string) => (v: unknown) => { order.push(what); return v; };
    // The pool marks its one warm worker busy synchronously inside run() (SkillPool.acquire):
    // the calls below queue behind "first" without waiting for anything.
    const running = pool.run({ ms: 150, tag: 'first' }, 's1').then(note('run first'));
    const queued = [2, 3].map((n) => pool.run({ ms: 100, tag: `queued ${n}` }, 's1').then(note(`run queued ${n}`)));
    const recognised = pool.recognise('slow please', 5000).then(note('recognise'));
    const results = await Promise.all([running, ...queued, recognised]);
    expect(order).to.deep.equal(['run first', 'recognise', 'run queued 2', 'run queued 3']);
    expect(results.map((r) => (typeof r === 'number' ? r : (r as { answer: string }).answer))).to.deep.equal(['first', 'queued 2', 'queued 3', 1]);
  });
});

describe('Skills [pool] calls that queue together get workers, one starting after another', function () {
  this.timeout(30000);
  let dir: string;
  let pool: SkillPool;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-pool-'));
    fs.writeFileSync(path.join(dir, 'handler.mjs'), HANDLER);
    pool = new SkillPool({ name: 'slow', handlerPath: path.join(dir, 'handler.mjs'), fingerprint: '1', recognise: { patterns: ['^slow\\b'] }, timeoutMs: 20000, memoryMb: 64, maxWorkers: 4 });
  });
  after(async () => {
    await pool.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  // A restarted specialist restores its running tasks at once (issue 12): before, only a new call
  // started a worker, so a queue that formed at once was served by the first worker alone.
  it('grows to maxWorkers while calls wait, without new calls arriving', async () => {
    const calls = Array.from({ length: 6 }, (_, i) => pool.run({ ms: 1500, tag: i }, 's1'));
    const grown = await new Promise<number>((resolve) => {
      const check = setInterval(() => {
        if (pool.size >= 4) {
          clearInterval(check);
          resolve(pool.size);
        }
      }, 20);
      void Promise.all(calls).then(() => {
        clearInterval(check);
        resolve(pool.size);
      });
    });
    expect(grown).to.equal(4);
    expect((await Promise.all(calls)).map((r) => r.answer)).to.deep.equal(['0', '1', '2', '3', '4', '5']);
  });
});
