import { expect } from 'chai';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { homeLockFile, lockHome } from '../../shared/supervisor/index.js';
import { until } from '../support/wait.js';

const LOCK_MODULE = fileURLToPath(new URL('../../shared/supervisor/home-lock.js', import.meta.url));

/** A separate process holding `home`'s lock, as a supervisor does, until killed. */
async function holder(home: string) {
  const code = `import(${JSON.stringify(LOCK_MODULE)}).then(async (m) => { const l = await m.lockHome(${JSON.stringify(home)}); console.log(l ? 'held' : 'refused'); setInterval(() => {}, 1000); })`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
  await until(() => out.includes('held') || out.includes('refused'), 'the other process to try the lock', 10000);
  return { child, out: () => out };
}

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

  it('another process is refused while one holds it; killed with SIGKILL, it leaves no stale lock', async () => {
    const h = await holder(home);
    expect(h.out()).to.contain('held');
    expect(await lockHome(home)).to.equal(undefined);
    const second = await holder(home);
    expect(second.out(), 'a third process is refused too').to.contain('refused');
    second.child.kill('SIGKILL');
    const exited = new Promise((r) => h.child.once('exit', r));
    h.child.kill('SIGKILL');
    await exited;
    const mine = await lockHome(home);
    expect(mine, 'free at once after the holder was killed').to.not.equal(undefined);
    await mine?.release();
    // The lock file is the owner's alone, in the owner-only run/ folder.
    expect(fs.statSync(path.dirname(homeLockFile(home))).mode & 0o777).to.equal(0o700);
    expect(fs.statSync(homeLockFile(home)).mode & 0o777).to.equal(0o600);
    expect(fs.readdirSync(path.dirname(homeLockFile(home))), 'no journal left by the killed holder').to.deep.equal(['home.lock']);
  });

  it('attack: a squatter holding the abstract socket name the lock used to have does not keep the owner from starting', async () => {
    // Any local user could bind this name (abstract sockets have no permissions): before, every
    // `npm start` of the home then read "another npm start … is under way" and gave up.
    const old = `\0parley-home-${createHash('sha256').update(fs.realpathSync(home)).digest('hex').slice(0, 40)}`;
    const squatter = net.createServer();
    await new Promise<void>((resolve) => squatter.listen({ path: old }, resolve));
    try {
      const mine = await lockHome(home);
      expect(mine).to.not.equal(undefined);
      await mine?.release();
    } finally {
      squatter.close();
    }
  });

  it('attack: another local user can neither open the lock nor make one in the home (run as root: as nobody)', async function () {
    if (process.getuid?.() !== 0) this.skip();
    const owned = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-lock-owned-'));
    fs.chmodSync(owned, 0o755); // even a home others may list: run/ stays the owner's
    const asNobody = (code: string) =>
      spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '-e', code], { encoding: 'utf8', cwd: '/' }).stdout.trim();
    const file = homeLockFile(owned);
    try {
      const tryFile = `const fs = require('node:fs'); for (const flags of ['r', 'r+']) { try { fs.openSync(${JSON.stringify(file)}, flags); console.log('opened'); } catch (e) { console.log(e.code); } }`;
      const tryMake = `const fs = require('node:fs'); try { fs.mkdirSync(${JSON.stringify(path.dirname(file))}, { recursive: true }); fs.openSync(${JSON.stringify(file)}, 'w'); console.log('made'); } catch (e) { console.log(e.code); }`;
      expect(asNobody(tryMake), 'before the owner ever started').to.equal('EACCES');
      const mine = await lockHome(owned);
      expect(mine).to.not.equal(undefined);
      expect(asNobody(tryFile).split('\n'), 'while the owner holds it').to.deep.equal(['EACCES', 'EACCES']);
      await mine?.release();
      expect(asNobody(tryFile).split('\n'), 'after').to.deep.equal(['EACCES', 'EACCES']);
    } finally {
      fs.rmSync(owned, { recursive: true, force: true });
    }
  });
});
