// How a skill's pool grows (shared/skills/pool.ts grow): a first worker and one spare at once,
// more only for calls that wait; bursts of short calls (one socket read of questions) do not take
// it to its maximum. And a claim that finds every worker busy waits for one (one dispatch).
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SkillPool } from '../../shared/skills/hosting.js';
import { until } from '../support/wait.js';

const HANDLER = `export async function run(input) {
  if (input.ms) await new Promise((r) => setTimeout(r, input.ms));
  return { answer: String(input.tag) };
}
`;

describe('Skills [pool] grows for calls that wait, not for bursts of short ones', function () {
  this.timeout(30000);
  let dir: string;
  let pool: SkillPool;
  const make = (maxWorkers: number) => new SkillPool({ name: 'quick', handlerPath: path.join(dir, 'handler.mjs'), fingerprint: '1', recognise: { patterns: ['^quick\\b'] }, timeoutMs: 5000, memoryMb: 64, maxWorkers });
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-pool-'));
    fs.writeFileSync(path.join(dir, 'handler.mjs'), HANDLER);
  });
  afterEach(async () => {
    await pool?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('five bursts of ten instant calls: the first worker and its spare serve them all', async () => {
    pool = make(8);
    await pool.warm();
    for (let burst = 0; burst < 5; burst++) {
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => pool.run({ tag: i }, 's1')));
      expect(answers.map((a) => a.answer)).to.deep.equal(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
      await until(() => pool.starting === 0, 'the spare started');
    }
    expect(pool.size).to.equal(2);
  });

  it('calls that hold their workers (200 ms each) still grow it, one worker after another', async () => {
    pool = make(4);
    await pool.warm();
    const calls = Array.from({ length: 8 }, (_, i) => pool.run({ ms: 200, tag: i }, 's1'));
    await until(() => pool.size >= 4, 'the pool at its maximum');
    expect((await Promise.all(calls)).map((r) => r.answer)).to.deep.equal(['0', '1', '2', '3', '4', '5', '6', '7']);
  });

  it('a claim that finds every worker busy and no run queued waits for one and runs in it', async () => {
    pool = make(1);
    await pool.warm();
    const busy = pool.run({ ms: 150, tag: 'busy' }, 's1');
    const pending = pool.claim('quick one', { tag: 'claimed' }, 's1', 2000);
    expect(pending, 'a claim, not the fallback').to.not.equal(undefined);
    const claim = await pending!;
    expect(claim.score).to.equal(1);
    expect((await claim.result!).answer).to.equal('claimed');
    expect((await busy).answer).to.equal('busy');
  });

  it('with a run queued, a claim does not overtake it: undefined (the caller recognises, then runs)', async () => {
    pool = make(1);
    await pool.warm();
    const busy = pool.run({ ms: 150, tag: 'busy' }, 's1');
    const queued = pool.run({ tag: 'queued' }, 's1');
    expect(pool.claim('quick one', { tag: 'claimed' }, 's1', 2000)).to.equal(undefined);
    expect((await Promise.all([busy, queued])).map((r) => r.answer)).to.deep.equal(['busy', 'queued']);
  });
});
