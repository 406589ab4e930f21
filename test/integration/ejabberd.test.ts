// The project's own ejabberd (issue "Foundation" §1–§2): started from a temporary PARLEY_HOME on
// free ports, provisioned idempotently, managed by the CLIs, secrets private, two side by side.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { paths } from '../../shared/config/index.js';
import { accountSecrets, credentialsFor, ensureAccount, api } from '../../shared/ejabberd/index.js';
import { control as ejabberd } from '../../shared/ejabberd/operator.js';
import { silentLogger } from '../../shared/log/index.js';
import { repoRoot } from '../../shared/runtime/repo-root.js';
import { clientTransport } from '../../shared/transport/index.js';
import { sharedInstance, startInstance, type TestInstance } from '../support/ejabberd.js';

const run = promisify(execFile);

function cli(script: string, inst: TestInstance, ...args: string[]) {
  return run(process.execPath, [path.join(repoRoot(), 'dist/scripts', script), ...args], {
    env: { ...process.env, ...inst.env },
    timeout: 30000,
  }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
}

async function canLogin(inst: TestInstance, jid: string, password: string): Promise<boolean> {
  const t = clientTransport({ jid, password, host: inst.cfg.host, port: inst.cfg.c2sPort, logger: silentLogger(), resource: 'login-check' });
  try {
    await t.start();
    return t.status === 'online';
  } catch {
    return false;
  } finally {
    await t.stop();
  }
}

function get(port: number, pathname: string, auth?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: pathname, ...(auth ? { auth } : {}) }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
  });
}

describe('ejabberd [instance] the project-local server', function () {
  this.timeout(60000);

  it('starts on free ports from a temporary PARLEY_HOME and reports itself up', async () => {
    const inst = await sharedInstance();
    expect(inst.cfg.home).to.match(/parley-test-/);
    expect(inst.cfg.c2sPort).to.not.equal(15222);
    const st = await ejabberd.status(inst.cfg);
    expect(st).to.include({ running: true, c2s: true, component: true, http: true, api: true });
    expect(fs.existsSync(path.join(paths(inst.cfg).etc, 'ejabberd.yml'))).to.equal(true);
    const out = await cli('ejabberd-cli.js', inst, 'status');
    expect(out.code).to.equal(0);
    expect(out.stdout).to.match(/running/).and.to.include(String(inst.cfg.c2sPort));
  });

  it("runs BEAM with schedulers that sleep when idle (+sbwt none: no spinning on the agents' cores)", async () => {
    const inst = await sharedInstance();
    const beam = fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map((d) => {
      try {
        return fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0');
      } catch {
        return [];
      }
    }).find((argv) => argv.some((a) => a.includes(`${inst.cfg.home}/ejabberd/spool`)));
    expect(beam, 'the instance\'s beam.smp').to.not.equal(undefined);
    const flags = (beam as string[]).join(' ');
    // erl hands emulator flags to beam.smp as `-sbwt none`.
    for (const f of ['sbwt none', 'sbwtdcpu none', 'sbwtdio none']) expect(flags).to.match(new RegExp(`[-+]${f}`));
  });

  it('provisions idempotently: twice gives the same password, and that password logs in', async () => {
    const inst = await sharedInstance();
    const first = await ensureAccount(inst.cfg, 'specialist-prov');
    const second = await ensureAccount(inst.cfg, 'specialist-prov');
    expect(first.created).to.equal(true);
    expect(second).to.deep.include({ created: false, password: first.password, jid: first.jid });
    expect(credentialsFor(inst.cfg, 'specialist-prov').password).to.equal(first.password);
    expect(await canLogin(inst, first.jid, first.password)).to.equal(true);
    expect(await canLogin(inst, first.jid, 'wrong-password')).to.equal(false);
  });

  it('keeps secrets in a 0600 file inside a 0700 directory', async () => {
    const inst = await sharedInstance();
    const file = accountSecrets(inst.cfg).file;
    expect(fs.statSync(file).mode & 0o777).to.equal(0o600);
    expect(fs.statSync(path.dirname(file)).mode & 0o777).to.equal(0o700);
  });

  it('adds, lists and removes people with the user CLI', async () => {
    const inst = await sharedInstance();
    const added = await cli('user-cli.js', inst, 'add', 'carol');
    expect(added.code, added.stderr).to.equal(0);
    expect(added.stdout).to.match(/added: carol@localhost/);
    const password = /password: (\S+)/.exec(added.stdout)?.[1] as string;
    expect(await canLogin(inst, 'carol@localhost', password)).to.equal(true);
    // docs/oacop.md: a person also gets a calendar agent (account + settings; no supervisor here)
    expect(added.stdout).to.match(/calendar: calendar-carol@localhost/).and.to.include('starts with the next `npm start`');
    expect(accountSecrets(inst.cfg).get('calendar-carol')).to.be.a('string');
    expect(fs.existsSync(path.join(inst.cfg.home, 'calendars', 'carol.json'))).to.equal(true);
    const again = await cli('user-cli.js', inst, 'add', 'carol');
    expect(again.stdout).to.match(/exists: carol@localhost/).and.to.include(`password: ${password}`);
    // Names as people type them (RFC 7622: case-insensitive): the same account, said so.
    const typed = await cli('user-cli.js', inst, 'add', 'Carol@localhost');
    expect(typed.stdout).to.include('(account names are lower case, without the domain: carol)').and.match(/exists: carol@localhost/);
    expect((await cli('user-cli.js', inst, 'add', 'Specialist-X')).code).to.equal(1); // still reserved
    const list = await cli('user-cli.js', inst, 'list');
    expect(list.stdout.split('\n')).to.include('carol@localhost');
    expect(list.stdout).to.not.match(/coordinator@/); // agents are not people
    expect((await cli('user-cli.js', inst, 'add', 'specialist-x')).code).to.equal(1); // reserved for agents
    const removed = await cli('user-cli.js', inst, 'remove', 'carol');
    expect(removed.stdout).to.match(/removed: carol@localhost/);
    expect((await cli('user-cli.js', inst, 'list')).stdout).to.not.include('carol@localhost');
    expect((await cli('user-cli.js', inst, 'remove', 'carol')).code).to.equal(1);
    expect(await api.registeredUsers(inst.cfg)).to.not.include('carol');
  });

  it('serves the web admin: 401 without credentials, 200 with the admin account', async () => {
    const inst = await sharedInstance();
    const { jid, password } = credentialsFor(inst.cfg, 'admin');
    expect(await get(inst.cfg.httpPort, '/admin/')).to.equal(401);
    expect(await get(inst.cfg.httpPort, '/admin/', `${jid}:wrong`)).to.equal(401);
    expect(await get(inst.cfg.httpPort, '/admin/', `${jid}:${password}`)).to.equal(200);
  });

  it('runs a second instance side by side with its own ports, accounts and secrets', async () => {
    const one = await sharedInstance();
    const two = await startInstance('parley-test-two-');
    expect(two.cfg.c2sPort).to.not.equal(one.cfg.c2sPort);
    expect(two.cfg.home).to.not.equal(one.cfg.home);
    expect(await ejabberd.status(two.cfg)).to.include({ running: true });
    const bob = await two.account('bob-two');
    expect(await api.registeredUsers(two.cfg)).to.include('bob-two');
    expect(await api.registeredUsers(one.cfg)).to.not.include('bob-two');
    expect(await canLogin(two, bob.jid, bob.password)).to.equal(true);
    expect(await canLogin(one, bob.jid, bob.password)).to.equal(false);
    expect(credentialsFor(two.cfg, 'coordinator').password).to.not.equal(credentialsFor(one.cfg, 'coordinator').password);
    expect(await ejabberd.stop(two.cfg)).to.equal(true);
    expect((await ejabberd.status(two.cfg)).running).to.equal(false);
    expect((await ejabberd.status(one.cfg)).running).to.equal(true);
  });
});
