// docker-compose.yml's services against a real ejabberd: the `enrol` service
// (scripts/enrol-dispenser.ts) gives one single-use specialist token per POST /token, issued like
// `npm run enrol -- issue`, never more than --max, never printed, anything else refused with a
// status and a reason; the `agents` service (the supervisor) leaves the `ejabberd` service's node
// up when it stops, since it did not start it.
import { type ChildProcess, spawn } from 'node:child_process';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { freePort } from '../../shared/ejabberd/index.js';
import { control as ejabberd } from '../../shared/ejabberd/operator.js';
import { decodeJoinToken } from '../../shared/identity/index.js';
import { repoRoot } from '../../shared/runtime/repo-root.js';
import { sharedInstance, startInstance, type TestInstance } from '../support/ejabberd.js';
import { until } from '../support/wait.js';

const run = promisify(execFile);

interface Dispenser { proc: ChildProcess; url: string; out: string[] }

async function startDispenser(env: NodeJS.ProcessEnv, max: number): Promise<Dispenser> {
  const port = await freePort();
  const out: string[] = [];
  const proc = spawn(process.execPath, [path.join(repoRoot(), 'dist', 'scripts', 'enrol-dispenser.js'), '--bind', '127.0.0.1', '--port', String(port), '--max', String(max)], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  proc.stdout?.on('data', (b: Buffer) => out.push(String(b)));
  proc.stderr?.on('data', (b: Buffer) => out.push(String(b)));
  await until(() => out.join('').includes('"online"'), 'the dispenser to listen', 20000);
  return { proc, url: `http://127.0.0.1:${port}`, out };
}

function stopDispenser(d: Dispenser | undefined): Promise<void> {
  if (!d || d.proc.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    d.proc.once('exit', () => resolve());
    d.proc.kill('SIGTERM');
  });
}

describe('docker-compose.yml [enrol service] one single-use specialist token per request', function () {
  this.timeout(120000);
  let inst: TestInstance;
  let d: Dispenser | undefined;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    inst = await sharedInstance();
    env = { ...process.env, ...inst.env };
    d = await startDispenser(env, 2);
  });
  after(() => stopDispenser(d));

  it('refuses anything but POST /token with a status and a reason', async () => {
    const get = await fetch(`${d!.url}/token`);
    expect(get.status).to.equal(405);
    expect(await get.text()).to.contain('POST /token');
    const other = await fetch(`${d!.url}/admin`, { method: 'POST' });
    expect(other.status).to.equal(404);
  });

  it('issues --max tokens for distinct new specialist accounts, then 429; the tokens are never logged', async () => {
    const answers = await Promise.all([1, 2].map(async () => {
      const r = await fetch(`${d!.url}/token`, { method: 'POST' });
      expect(r.status).to.equal(200);
      return (await r.json()) as { name: string; token: string };
    }));
    const tokens = answers.map((a) => decodeJoinToken(a.token));
    expect(new Set(answers.map((a) => a.name)).size).to.equal(2);
    for (const [i, t] of tokens.entries()) {
      expect(t.jid).to.equal(`${answers[i]!.name}@${inst.cfg.domain}`).and.to.match(/^specialist-c[0-9a-f]{8}@/);
      expect(t.role).to.equal('specialist');
      expect(t.password, 'the account exists and its password comes with the token').to.be.a('string');
      expect(t.expires_at - Date.now()).to.be.within(1, 5 * 60_000);
    }
    // The operator sees them like any other token: open, single use.
    const { stdout } = await run(process.execPath, [path.join(repoRoot(), 'dist', 'scripts', 'enrol-cli.js'), 'list'], { env, timeout: 60000 });
    for (const t of tokens) expect(stdout).to.match(new RegExp(`token ${t.jid} specialist open until`));
    const third = await fetch(`${d!.url}/token`, { method: 'POST' });
    expect(third.status).to.equal(429);
    expect(await third.text()).to.contain('--max');
    const log = d!.out.join('');
    expect(log).to.contain('"issued"');
    for (const t of tokens) {
      expect(log).to.not.contain(t.secret);
      expect(log).to.not.contain(t.password as string);
    }
  });

  it('says 503 and why when ejabberd is not running (a token without an account would be useless)', async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-dispenser-'));
    const c2s = await freePort();
    const lone = await startDispenser({ ...process.env, PARLEY_HOME: home, PARLEY_C2S_PORT: String(c2s), PARLEY_HTTP_PORT: String(await freePort()) }, 1);
    try {
      const r = await fetch(`${lone.url}/token`, { method: 'POST' });
      expect(r.status).to.equal(503);
      expect(await r.text()).to.contain('ejabberd is not running');
    } finally {
      await stopDispenser(lone);
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('docker-compose.yml [agents service] the supervisor leaves an ejabberd it did not start running', function () {
  this.timeout(180000);

  it('stops its agents on SIGTERM and leaves the running node up', async () => {
    const inst = await startInstance('parley-compose-');
    const out: string[] = [];
    const sup = spawn(process.execPath, [path.join(repoRoot(), 'dist', 'scripts', 'supervisor.js'), '--specialists='], {
      env: { ...process.env, ...inst.env, PARLEY_CONSOLE: '0', PARLEY_AUTOSCALE: '0', PARLEY_STOP_GRACE_MS: '3000' }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    sup.stdout?.on('data', (b: Buffer) => out.push(String(b)));
    sup.stderr?.on('data', (b: Buffer) => out.push(String(b)));
    const exited = new Promise<number | null>((resolve) => sup.once('exit', (code) => resolve(code)));
    try {
      await until(() => out.join('').includes('ready in') || sup.exitCode !== null, 'the supervisor to be ready', 150000);
      expect(out.join(''), 'ready').to.contain('ready in');
      expect((await ejabberd.status(inst.cfg)).online.length, 'the core agents are online').to.be.greaterThan(0);
      sup.kill('SIGTERM');
      expect(await exited).to.equal(0);
      expect(out.join('')).to.not.contain('stopping ejabberd');
      const after = await ejabberd.status(inst.cfg);
      expect(after.running, 'ejabberd still runs').to.equal(true);
    } finally {
      if (sup.exitCode === null) sup.kill('SIGKILL');
    }
  });
});
