// Perimeter [ejabberd] (issue "Close the perimeter" §1, 2, 4): an attacker with a loopback TCP
// connection, or with an ordinary account, cannot create accounts, cannot use the HTTP API, and
// finds no plain-text password and no readable file in the state directory. Each case attacks.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { expect } from 'chai';
import { paths } from '../../shared/config/index.js';
import { accountSecrets, credentialsFor, api } from '../../shared/ejabberd/index.js';
import { silentLogger } from '../../shared/log/index.js';
import { clientTransport, type Transport } from '../../shared/transport/index.js';
import { sharedInstance, type TestInstance } from '../support/ejabberd.js';
import { until } from '../support/wait.js';

/** A raw c2s stream before authentication: what a stranger on loopback can say. */
async function rawStream(port: number, domain: string, send: string): Promise<string> {
  const sock = net.connect(port, '127.0.0.1');
  let got = '';
  sock.on('data', (d: Buffer) => { got += d.toString('utf8'); });
  await new Promise<void>((resolve, reject) => { sock.once('connect', resolve); sock.once('error', reject); });
  sock.write(`<?xml version='1.0'?><stream:stream to='${domain}' xmlns='jabber:client' xmlns:stream='http://etherx.jabber.org/streams' version='1.0'>`);
  await until(() => got.includes('</stream:features>'), 'stream features');
  const features = got;
  got = '';
  sock.write(send);
  await until(() => /<iq[^>]*id=["']reg1["']|<\/stream:stream>|<stream:error/.test(got), 'an answer to the registration');
  sock.destroy();
  return `${features}\n${got}`;
}

/** An HTTP API call with whatever credentials an attacker has (none, a guess, a person's). */
async function apiAs(inst: TestInstance, command: string, body: object, auth?: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`http://127.0.0.1:${inst.cfg.httpPort}/api/${command}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(auth ? { authorization: `Basic ${Buffer.from(auth).toString('base64')}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}

async function online(inst: TestInstance, jid: string, password: string, resource = 'perimeter'): Promise<Transport> {
  const t = clientTransport({ jid, password, host: inst.cfg.host, port: inst.cfg.c2sPort, logger: silentLogger(), resource });
  await t.start();
  return t;
}

describe('Perimeter [ejabberd] accounts, HTTP API and data at rest', function () {
  this.timeout(60000);
  let inst: TestInstance;
  let alice: { jid: string; password: string };
  before(async () => {
    inst = await sharedInstance();
    alice = await inst.account('perimeter-alice');
  });

  it('refuses in-band registration (XEP-0077) from a loopback client, and no account appears', async () => {
    const answer = await rawStream(inst.cfg.c2sPort, inst.cfg.domain,
      "<iq type='set' id='reg1'><query xmlns='jabber:iq:register'><username>intruder</username><password>pw-intruder</password></query></iq>");
    expect(answer).to.not.include('http://jabber.org/features/iq-register');
    expect(answer).to.not.match(/<iq[^>]*type=["']result["'][^>]*id=["']reg1["']|<iq[^>]*id=["']reg1["'][^>]*type=["']result["']/);
    expect(await api.registeredUsers(inst.cfg)).to.not.include('intruder');
  });

  const attacks: Array<[string, object]> = [
    ['register', { user: 'intruder2', host: 'localhost', password: 'pw' }],
    ['unregister', { user: 'perimeter-alice', host: 'localhost' }],
    ['change_password', { user: 'perimeter-alice', host: 'localhost', newpass: 'owned' }],
    ['registered_users', { host: 'localhost' }],
    ['send_stanza', { from: 'presenter@localhost', to: 'perimeter-alice@localhost', stanza: "<message type='chat'><body>forged</body></message>" }],
  ];

  it('refuses every HTTP API command without the admin credentials (none, a wrong password, a person) and nothing changes', async () => {
    const listener = await online(inst, alice.jid, alice.password);
    const bodies: string[] = [];
    listener.onMessage((m) => { if (m.body) bodies.push(m.body); });
    try {
      const { jid: adminJid } = credentialsFor(inst.cfg, 'admin');
      // ejabberd's mod_http_api, as measured: a wrong password fails authentication → 401; no
      // credentials is an anonymous caller and a person a known one, neither allowed by
      // api_permissions → 403 ("AccessRules: Account does not have the right …").
      const callers: Array<[string, string | undefined, number]> = [
        ['nobody', undefined, 403], ['a wrong password', `${adminJid}:guess`, 401], ['a person', `${alice.jid}:${alice.password}`, 403]];
      const seen: Record<string, number[]> = {};
      for (const [label, who] of callers) {
        for (const [command, body] of attacks) {
          const r = await apiAs(inst, command, body, who);
          (seen[label] ??= []).push(r.status);
          expect(r.text, `${command} as ${label}`).to.match(/"status":"error"/);
        }
      }
      expect(seen).to.deep.equal(Object.fromEntries(callers.map(([label, , status]) => [label, attacks.map(() => status)])));
      expect(await api.registeredUsers(inst.cfg)).to.include('perimeter-alice').and.not.include('intruder2');
      // The forged chat line never arrived: a marker the operator sends afterwards is the first message.
      await apiAs(inst, 'send_stanza', { from: `admin@${inst.cfg.domain}`, to: alice.jid, stanza: "<message type='chat'><body>marker</body></message>" },
        `${credentialsFor(inst.cfg, 'admin').jid}:${credentialsFor(inst.cfg, 'admin').password}`);
      await until(() => bodies.length > 0, 'the marker');
      expect(bodies).to.deep.equal(['marker']);
    } finally {
      await listener.stop();
    }
    // The password was not changed: alice still logs in with hers.
    const again = await online(inst, alice.jid, alice.password, 'again');
    expect(again.status).to.equal('online');
    await again.stop();
  });

  it('stores no password in plain text: none of the provisioned passwords is in the spool', async () => {
    const secrets = Object.values(accountSecrets(inst.cfg).read());
    expect(secrets.length).to.be.greaterThan(3);
    const spool = paths(inst.cfg).spool;
    const files = fs.readdirSync(spool, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    expect(files.length).to.be.greaterThan(0);
    for (const f of files) {
      const bytes = fs.readFileSync(path.join(f.parentPath, f.name));
      for (const s of secrets) expect(bytes.includes(Buffer.from(s)), `${f.name} holds a password`).to.equal(false);
    }
  });

  it('keeps the state directory owner-only: nothing readable by others, ejabberd only traverses to its own folders', () => {
    const home = inst.cfg.home;
    const p = paths(inst.cfg);
    // The only group bits: ejabberd's user may traverse home and ejabberd/ (0710) and read its config.
    const groupAllowed = new Map<string, number>([[home, 0o710], [p.ejabberd, 0o710], [p.etc, 0o750]]);
    const seen: string[] = [];
    const check = (file: string) => {
      const st = fs.lstatSync(file);
      if (st.isSymbolicLink()) return;
      const mode = st.mode & 0o777;
      seen.push(file);
      expect(mode & 0o007, `${file} is open to others (${mode.toString(8)})`).to.equal(0);
      const allowed = groupAllowed.get(file) ?? (path.dirname(file) === p.etc ? 0o640 : undefined);
      if (allowed !== undefined) expect(mode, file).to.equal(allowed);
      else expect(mode & 0o070, `${file} is open to its group (${mode.toString(8)})`).to.equal(0);
      if (file.startsWith(p.spool)) expect(st.uid, `${file} not owned by ejabberd`).to.not.equal(0);
      if (st.isDirectory()) for (const e of fs.readdirSync(file)) check(path.join(file, e));
    };
    check(home);
    expect(seen.some((f) => f.endsWith('accounts.json'))).to.equal(true);
    expect(seen.some((f) => f.startsWith(p.spool) && f.endsWith('.DAT'))).to.equal(true);
  });

  it('still lets agents and people log in with SASL PLAIN against the SCRAM-stored passwords, quickly', async () => {
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      const t = await online(inst, alice.jid, alice.password, `login-${i}`);
      times.push(performance.now() - t0);
      await t.stop();
    }
    times.sort((a, b) => a - b);
    console.log(`      (login with PLAIN against a SCRAM hash: median ${times[2]?.toFixed(1)} ms of 5)`);
    expect(times).to.have.length(5);
  });
});
