// `npm start`'s provisioning (shared/ejabberd/accounts.ts provisionCore, issue 15): with every
// core password stored and every account listed by ejabberd it asks once and changes nothing;
// otherwise it ensures what is missing. And the repair that makes that safe: a core agent that
// dies at start gets its account ensured before its restart (shared/supervisor/child.ts onFailedStart).
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { loadConfig, type ParleyConfig } from '../../shared/config/index.js';
import { CORE_ROLES } from '../../shared/contracts/index.js';
import { accountSecrets, api, CORE_AGENTS, EjabberdApiError, provisionCore } from '../../shared/ejabberd/index.js';
import { loadIdentity } from '../../shared/identity/index.js';
import { ManagedChild, onFailedStart } from '../../shared/supervisor/index.js';
import { until } from '../support/wait.js';

type Calls = Array<[string, string?]>;

/** The ejabberd API as provisionCore uses it, recorded; `listed` is what registered_users answers (an Error: it refuses). */
async function withApi(listed: string[] | Error, run: (calls: Calls) => Promise<void>): Promise<Calls> {
  const calls: Calls = [];
  const saved = { ...api };
  api.registeredUsers = async () => {
    calls.push(['registered_users']);
    if (listed instanceof Error) throw listed;
    return listed;
  };
  api.register = async (_cfg, user) => {
    calls.push(['register', user]);
    if (!(listed instanceof Error) && listed.includes(user)) throw new EjabberdApiError('register', 409, 'User already registered');
    return 'ok';
  };
  api.changePassword = async (_cfg, user) => {
    calls.push(['change_password', user]);
    return 0;
  };
  try {
    await run(calls);
  } finally {
    Object.assign(api, saved);
  }
  return calls;
}

describe('provisionCore [start] one question to ejabberd when nothing is missing', () => {
  let home: string;
  let cfg: ParleyConfig;
  beforeEach(() => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-prov-'));
    cfg = loadConfig({ ...process.env, PARLEY_HOME: home });
  });
  afterEach(() => fs.rmSync(home, { recursive: true, force: true }));

  const all = [...CORE_AGENTS];

  it('a first start registers every account (no stored password: registered_users is not asked)', async () => {
    const calls = await withApi(['someone-else'], () => provisionCore(cfg));
    expect(calls.filter((c) => c[0] === 'register').map((c) => c[1])).to.have.members(all);
    expect(calls.some((c) => c[0] === 'registered_users')).to.equal(false);
  });

  it('every password stored and every account listed: registered_users once, nothing registered or reset, keys kept', async () => {
    await withApi([], () => provisionCore(cfg));
    const before = Object.fromEntries(CORE_ROLES.map((r) => [r, loadIdentity(home, r)?.did]));
    const calls = await withApi([...all, 'alice'], () => provisionCore(cfg));
    expect(calls).to.deep.equal([['registered_users']]);
    for (const r of CORE_ROLES) expect(loadIdentity(home, r)?.did, r).to.equal(before[r]).and.match(/^did:key:/);
  });

  it('an account ejabberd lost is registered again with its stored password; the others are left alone', async () => {
    await withApi([], () => provisionCore(cfg));
    const password = accountSecrets(cfg).get('kb');
    let registeredWith: string | undefined;
    const calls = await withApi(all.filter((n) => n !== 'kb'), async () => {
      const register = api.register;
      api.register = async (c, user, pw) => {
        registeredWith = pw;
        return register(c, user, pw);
      };
      await provisionCore(cfg);
    });
    expect(calls).to.deep.equal([['registered_users'], ['register', 'kb']]);
    expect(registeredWith).to.equal(password);
  });

  it('a password lost from secrets/accounts.json: every account is ensured (the lost one reset to a new password)', async () => {
    await withApi([], () => provisionCore(cfg));
    accountSecrets(cfg).delete('presenter');
    const calls = await withApi(all, () => provisionCore(cfg));
    expect(calls.some((c) => c[0] === 'registered_users')).to.equal(false);
    expect(calls).to.deep.include(['change_password', 'presenter']);
    expect(accountSecrets(cfg).get('presenter')).to.be.a('string');
  });

  it('an admin ejabberd refuses: falls back to ensuring each account, which reports the refusal', async () => {
    await withApi([], () => provisionCore(cfg));
    const calls = await withApi(new EjabberdApiError('registered_users', 401, 'not authorized'), () => provisionCore(cfg));
    expect(calls[0]).to.deep.equal(['registered_users']);
    expect(calls.filter((c) => c[0] === 'register').map((c) => c[1])).to.have.members(all);
  });
});

describe('provisionCore [ports] another installation\'s ejabberd on these ports', () => {
  it('says so when the ejabberd that answers refuses this installation\'s admin', async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-prov-'));
    const cfg = loadConfig({ ...process.env, PARLEY_HOME: home });
    const saved = { ...api };
    const refused = () => Promise.reject(new EjabberdApiError('register', 401, '{"status":"error","code":10,"message":"You are not authorized to call this command."}'));
    api.registeredUsers = refused;
    api.register = refused;
    api.changePassword = refused;
    try {
      const err = await provisionCore(cfg).then(() => undefined, (e: Error) => e);
      expect(err?.message).to.match(/refuses this installation's admin .*is it another installation's, started with another PARLEY_HOME\?.*PARLEY_C2S_PORT.*HTTP 401/);
    } finally {
      Object.assign(api, saved);
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('onFailedStart [supervisor] a repair between a failed start and the restart', function () {
  this.timeout(20000);
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-failstart-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** A child that exits 1 until `fixed` exists, then tells it is online and stays up. */
  const childOf = (fixed: string) => new ManagedChild(
    { name: 'kb', kind: 'core', command: process.execPath, readyOn: 'online', args: ['-e', `
      if (!require('fs').existsSync(${JSON.stringify(fixed)})) { console.error('cannot start: not-authorized'); process.exit(1); }
      process.send({ type: 'ready', moment: 'online' }); setInterval(() => {}, 1000);`] },
    { env: process.env, logsDir: dir, backoff: { minMs: 50, maxMs: 200, resetAfterMs: 30000, maxFailedStarts: 5 } },
  );

  it('a child that dies before it is ready is repaired, then starts', async () => {
    const fixed = path.join(dir, 'fixed');
    const child = childOf(fixed);
    let repairs = 0;
    onFailedStart(child, async () => {
      repairs += 1;
      fs.writeFileSync(fixed, '');
    }, (err) => expect.fail(err.message));
    child.start();
    await until(async () => child.status === 'ready', 'the child ready after its repair', 10000, 20);
    expect(repairs).to.equal(1);
    expect(child.restarts).to.equal(1);
    await child.stop(2000);
  });

  it('a child that was ready and then crashed is restarted without a repair', async () => {
    const fixed = path.join(dir, 'fixed');
    fs.writeFileSync(fixed, '');
    const child = childOf(fixed);
    let repairs = 0;
    onFailedStart(child, async () => void (repairs += 1), (err) => expect.fail(err.message));
    child.start();
    await until(async () => child.status === 'ready', 'the child ready', 10000, 20);
    process.kill(child.pid as number, 'SIGKILL');
    await until(async () => child.status === 'ready' && child.restarts === 1, 'the child back', 10000, 20);
    expect(repairs).to.equal(0);
    await child.stop(2000);
  });
});

describe('ejabberd API [ports] every command that authenticates says why the admin is refused', () => {
  it('a 401 from the ejabberd on these ports names the likely cause and what to do (npm run user, trace, … not only npm start)', async () => {
    // Another installation's ejabberd: it answers, but not to this installation's admin.
    const server = http.createServer((_req, res) => res.writeHead(401).end('{"status":"error","code":10,"message":"You are not authorized to call this command."}'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-api-'));
    try {
      const cfg = loadConfig({ ...process.env, PARLEY_HOME: home, PARLEY_HTTP_PORT: String((server.address() as { port: number }).port) });
      accountSecrets(cfg).set('admin', 'not-the-right-one');
      const err = await api.registeredUsers(cfg).then(() => undefined, (e: Error) => e);
      expect(err).to.be.instanceOf(EjabberdApiError);
      expect(err?.message).to.match(/^ejabberd API registered_users failed \(HTTP 401\): .*You are not authorized.*; the ejabberd answering on 127\.0\.0\.1:\d+ refuses this installation's admin .*another PARLEY_HOME\?.*PARLEY_C2S_PORT/);
    } finally {
      server.close();
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});

