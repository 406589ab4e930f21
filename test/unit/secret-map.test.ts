// The secrets file is changed by several processes at once (the supervisor provisioning agents,
// `npm run user`, `join`, tests): no writer may lose another's entry. Attacked with real processes.
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../../shared/runtime/repo-root.js';
import { SecretMap } from '../../shared/secrets/index.js';

const MODULE = pathToFileURL(path.join(repoRoot(), 'dist', 'shared', 'secrets', 'index.js')).href;

/** A process that ensures `names` one after another and prints each secret it got as JSON. */
function writer(file: string, names: string[]): Promise<Record<string, string>> {
  const code = `import { SecretMap } from ${JSON.stringify(MODULE)};
const map = new SecretMap(${JSON.stringify(file)}); const got = {};
for (const n of ${JSON.stringify(names)}) got[n] = map.ensure(n);
process.stdout.write(JSON.stringify(got));`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as Record<string, string>) : reject(new Error(`writer exited ${code}`))));
  });
}

describe('Secrets [SecretMap] concurrent writers keep every entry', function () {
  this.timeout(60000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-secrets-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('6 processes ensuring 40 names each at once (and one name all share): all 241 kept, the shared one the same for all', async () => {
    const file = path.join(dir, 'accounts.json');
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, p) => writer(file, ['shared', ...Array.from({ length: 40 }, (_, i) => `agent-${p}-${i}`)])),
    );
    const stored = new SecretMap(file).read();
    expect(Object.keys(stored)).to.have.length(241);
    for (const got of results) for (const [name, secret] of Object.entries(got)) expect(stored[name], name).to.equal(secret);
    expect(new Set(results.map((r) => r.shared)).size, 'every process got the first-created shared secret').to.equal(1);
    expect(fs.statSync(file).mode & 0o777).to.equal(0o600);
    expect(fs.existsSync(`${file}.lock`), 'the lock is released').to.equal(false);
  });

  it('a lock left by a crashed writer (older than 10 s) is taken over; set and delete work under it', () => {
    const file = path.join(dir, 'stale.json');
    const map = new SecretMap(file);
    map.set('a', 'one');
    fs.writeFileSync(`${file}.lock`, '{"half":');
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(`${file}.lock`, old, old);
    map.set('b', 'two');
    map.delete('a');
    map.delete('nobody');
    expect(map.read()).to.deep.equal({ b: 'two' });
    expect(fs.existsSync(`${file}.lock`)).to.equal(false);
  });

  it('a change that writes nothing (an existing secret, deleting a missing name) releases the lock', () => {
    const file = path.join(dir, 'noop.json');
    const map = new SecretMap(file);
    const first = map.ensure('x');
    fs.rmSync(file);
    fs.writeFileSync(file, JSON.stringify({ x: first }));
    map.delete('y');
    expect(map.ensure('x')).to.equal(first);
    expect(fs.existsSync(`${file}.lock`)).to.equal(false);
  });
});
