// `npm start`, `npm test` and `npm run bench` run scripts/setup.sh first: once everything is set
// up it must only check, not load node or python (issue 15: it took ≈ 1.1 s at every start, two
// steps whose outputs were already current ran again because their time stamps said otherwise).
import { spawnSync } from 'node:child_process';
import { expect } from 'chai';
import { repoRoot } from '../../shared/runtime/repo-root.js';

describe('Set-up [steady] a second run of scripts/setup.sh starts no node and no python', function () {
  this.timeout(120000);
  it('runs only its checks once everything is current', () => {
    const run = () => spawnSync('bash', ['-x', 'scripts/setup.sh', '--quiet'], { cwd: repoRoot(), encoding: 'utf8' });
    const first = run(); // may still do a step (a test run right after an edit)
    expect(first.status, first.stderr.slice(-2000)).to.equal(0);
    const second = run();
    expect(second.status, second.stderr.slice(-2000)).to.equal(0);
    const started = second.stderr.split('\n').filter((l) => /^\++ (node|npx|npm|\/usr\/bin\/python3|python3) /.test(l));
    expect(started, 'commands run by the second set-up').to.deep.equal([]);
  });
});
