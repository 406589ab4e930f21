import { expect } from 'chai';
import { EXPERT_NAMES } from '../../agents/specialist/experts/index.js';
import { LAZY_EXPERT_NAMES, loadExperts } from '../../agents/specialist/experts/load.js';
import { warmUpExperts } from '../../agents/specialist/warm-up.js';

describe('Specialist [start-up] experts loaded on demand and warmed before online', () => {
  it('offers the same experts as createExperts', () => {
    expect(LAZY_EXPERT_NAMES).to.deep.equal(EXPERT_NAMES);
  });

  it('loads only the named experts, all of them for an empty list, and rejects an unknown name', async () => {
    expect((await loadExperts(['time'])).map((e) => e.name)).to.deep.equal(['time']);
    expect((await loadExperts([])).map((e) => e.name)).to.deep.equal([...EXPERT_NAMES]);
    await loadExperts(['arithmetic', 'astrology']).then(
      () => expect.fail('should reject'),
      (err: Error) => expect(err.message).to.match(/unknown expert "astrology"; known: arithmetic, time/),
    );
  });

  it('the arithmetic expert (mathjs single-file build) still computes exactly and refuses code', async () => {
    const [math] = await loadExperts(['arithmetic']);
    expect(await math?.answer('what is 17 * 23?')).to.deep.include({ answer: '391' });
    expect(math?.recognise('import("fs")')).to.equal(0);
  });

  it('warm-up answers every published example an expert recognises', async () => {
    const experts = await loadExperts(['arithmetic', 'time']);
    const examples = experts.reduce((n, e) => n + e.examples.length, 0);
    expect(await warmUpExperts(experts)).to.be.within(examples - 1, examples);
  });
});
