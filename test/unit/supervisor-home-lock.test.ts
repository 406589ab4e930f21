import { expect } from 'chai';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { homeLockName, lockHome } from '../../shared/supervisor/index.js';
import { until } from '../support/wait.js';

describe('Supervisor [home lock] one supervisor per PARLEY_HOME, decided before anything is touched', () => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-lock-'));
  after(() => fs.rmSync(home, { recursive: true, force: true }));

  it('a second lock of the same home (also spelled otherwise) is refused until the first is released', async () => {
    const first = await lockHome(home);
    expect(first).to.not.equal(undefined);
    expect(await lockHome(path.join(home, '.', '..', path.basename(home)))).to.equal(undefined);
    const other = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-lock-other-'));
    const elsewhere = await lockHome(other);
    expect(elsewhere, 'another home has its own lock').to.not.equal(undefined);
    await elsewhere?.release();
    fs.rmSync(other, { recursive: true, force: true });
    await first?.release();
    const again = await lockHome(home);
    expect(again).to.not.equal(undefined);
    await again?.release();
  });

  it('a process killed with SIGKILL leaves no stale lock, and no file anywhere', async () => {
    const name = homeLockName(home);
    expect(name.startsWith('\0')).to.equal(true);
    // A separate process holds the lock, as a supervisor does.
    const holder = spawn(process.execPath, ['-e', `require('node:net').createServer().listen({ path: ${JSON.stringify(name)} }, () => console.log('held'))`], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    holder.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    await until(() => out.includes('held'), 'the other process to hold the lock', 10000);
    expect(await lockHome(home)).to.equal(undefined);
    const exited = new Promise((r) => holder.once('exit', r));
    holder.kill('SIGKILL');
    await exited;
    const mine = await lockHome(home);
    expect(mine, 'free at once after the holder was killed').to.not.equal(undefined);
    await mine?.release();
    expect(fs.readdirSync(home)).to.deep.equal([]);
  });
});
