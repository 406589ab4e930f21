import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SkillPool } from '../../shared/skills/pool.js';

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
    const running = pool.run({ ms: 150, tag: 'first' }, 's1').then(note('run first'));
    await new Promise((r) => setTimeout(r, 30)); // the worker is now busy with "first"
    const queued = [2, 3].map((n) => pool.run({ ms: 100, tag: `queued ${n}` }, 's1').then(note(`run queued ${n}`)));
    const recognised = pool.recognise('slow please', 5000).then(note('recognise'));
    const results = await Promise.all([running, ...queued, recognised]);
    expect(order).to.deep.equal(['run first', 'recognise', 'run queued 2', 'run queued 3']);
    expect(results.map((r) => (typeof r === 'number' ? r : (r as { answer: string }).answer))).to.deep.equal(['first', 'queued 2', 'queued 3', 1]);
  });
});
