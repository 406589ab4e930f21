// Reaching Parley from another device (issue "A person's experience in chat"): the client port
// exposed on another address with TLS required, the agents still on 127.0.0.1. The person's
// device is a network namespace of the test's own, joined by a veth pair (test/support/netns.ts;
// a second loopback address where no namespace can be made: the test prints which), running a
// small client (test/fixtures/tls-device.ts) that verifies the generated certificate against its
// pinned copy, as a phone would after the operator shares what `npm run ejabberd -- admin` prints.
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { defaultCalendarConfig, writeCalendarConfig } from '../../shared/calendar/config.js';
import { loadConfig, type ParleyConfig } from '../../shared/config/index.js';
import { ensureAccount, freePort } from '../../shared/ejabberd/index.js';
import { repoRoot } from '../../shared/runtime/repo-root.js';
import { type DeviceLink, deviceLink } from '../support/netns.js';
import { RawXmpp, tlsFrom } from '../support/raw-xmpp.js';
import { startSupervisor, stopSupervisor, type Supervised } from '../support/supervised.js';


describe('Expose [tls] people connect from another address with TLS required; the agents stay on loopback', function () {
  this.timeout(90000);
  let s: Supervised;
  let cfg: ParleyConfig;
  let ports: { c2s: number; tls: number; ws: number };
  let ca: string;
  let person: { user: string; password: string };
  let link: DeviceLink;
  let EXPOSED: string;
  let DEVICE: string;
  /** Runs the device client in its namespace; its JSON report. */
  const device = async (mode: string, port: number, question?: string, attachment = false) => JSON.parse(await link.run('tls-device', {
    mode, host: EXPOSED, port, localAddress: DEVICE, domain: cfg.domain, caFile: path.join(cfg.home, 'secrets', 'tls', 'cert.pem'), ...person, ...(question ? { question } : {}), attachment,
  })) as Record<string, string | number | boolean | undefined>;

  before(async function () {
    this.timeout(150000);
    link = deviceLink();
    [EXPOSED, DEVICE] = [link.hostAddress, link.deviceAddress];
    console.log(`      (the device: ${link.kind === 'netns' ? `network namespace, ${DEVICE} over a veth pair to ${EXPOSED}` : `loopback addresses ${DEVICE} → ${EXPOSED} (no network namespace could be made)`})`);
    ports = { c2s: await freePort(), tls: await freePort(), ws: await freePort() };
    s = await startSupervisor('parley-tls-', {
      PARLEY_EXPOSE_ADDRESS: EXPOSED, PARLEY_EXPOSE_C2S_PORT: String(ports.c2s), PARLEY_EXPOSE_TLS_PORT: String(ports.tls), PARLEY_EXPOSE_WS_PORT: String(ports.ws),
    }, {
      // phone and tab have calendars (open every day 09–17 UTC), so phone can book a meeting from the device.
      prepare: (home) => {
        const hcfg = loadConfig({ ...process.env, PARLEY_HOME: home });
        for (const p of ['phone', 'tab']) writeCalendarConfig(hcfg, { ...defaultCalendarConfig(p, `${p}@${hcfg.domain}`, 'UTC'), workingHours: { days: [1, 2, 3, 4, 5, 6, 7], start: '09:00', end: '17:00', timezone: 'UTC' } });
      },
    });
    cfg = s.cfg;
    ca = fs.readFileSync(path.join(cfg.home, 'secrets', 'tls', 'cert.pem'), 'utf8');
    const { jid, password } = await ensureAccount(cfg, 'phone');
    person = { user: jid.split('@')[0] as string, password };
  });

  after(async function () {
    this.timeout(60000);
    await stopSupervisor(s?.sup, cfg);
    link?.close();
  });

  it('STARTTLS: nothing but STARTTLS before TLS, the certificate verifies, then PLAIN login and an answer', async () => {
    const r = await device('starttls', ports.c2s, 'what is 6 * 7?');
    expect(r.error).to.equal(undefined);
    expect(r.before).to.match(/<starttls xmlns=['"]urn:ietf:params:xml:ns:xmpp-tls['"]>\s*<required\/>/);
    expect(r.before, 'no SASL mechanism offered in the clear').to.not.contain('<mechanism>');
    expect(r.authorized, 'certificate verified against the pinned copy').to.equal(true);
    expect(r.localAddress).to.equal(DEVICE);
    expect(r.after).to.contain('<mechanism>PLAIN</mechanism>');
    expect(r.jid).to.equal(`${person.user}@${cfg.domain}/phone`);
    expect(r.answer).to.contain('42');
  });

  it('direct TLS (XEP-0368): verified certificate, PLAIN inside TLS, an answer', async () => {
    const r = await device('direct', ports.tls, 'what is 7 * 8?');
    expect(r.error).to.equal(undefined);
    expect([r.authorized, r.localAddress]).to.deep.equal([true, DEVICE]);
    expect(r.features).to.contain('<mechanism>PLAIN</mechanism>');
    expect(r.answer).to.contain('56');
  });

  it('an invitation\'s .ics opens on the device: its link is HTTPS on the exposed address (XEP-0363 upload), certificate verified', async () => {
    const r = await device('direct', ports.tls, 'meet 30m tab 2027-03-03T09:00Z..2027-03-03T12:00Z', true);
    expect(r.error).to.equal(undefined);
    expect(r.answer).to.match(/^Booked: Meeting with tab/);
    expect(r.oob).to.match(new RegExp(`^https://${EXPOSED.replace(/\./g, '\\.')}:${ports.ws}/upload/[0-9a-f]{40}/[^/]{16,}/invitation\\.ics$`));
    expect([r.fileStatus, r.fileAuthorized]).to.deep.equal([200, true]);
    expect(r.file).to.contain('BEGIN:VCALENDAR').and.contain('DTSTART:20270303T090000Z');
  });

  it('attack: a person cannot get an upload slot (only the Presenter stores files there), nor PUT or list on the exposed /upload', async () => {
    const c = await RawXmpp.direct(EXPOSED, ports.tls, link.kind === 'netns' ? EXPOSED : DEVICE, cfg.domain, ca);
    try {
      await c.openStream();
      await c.login(person.user, person.password, 'uploader');
      c.send(`<iq type='get' id='slot1' to='upload.${cfg.domain}'><request xmlns='urn:xmpp:http:upload:0' filename='x.ics' size='10' content-type='text/calendar'/></iq>`);
      const reply = (await c.expect(/<iq[^>]*id=['"]slot1['"][\s\S]*?<\/iq>/, 'the slot answer', 10000))[0];
      expect(reply).to.match(/type=['"]error['"]/).and.match(/forbidden|not-allowed/).and.not.contain('<slot');
    } finally {
      c.close();
    }
    const https = await import('node:https');
    const call = (method: string, p: string) => new Promise<number>((resolve, reject) => {
      const req = https.request({ host: EXPOSED, port: ports.ws, path: p, method, ca, servername: cfg.domain, localAddress: link.kind === 'netns' ? undefined : DEVICE }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.once('error', reject);
      req.end(method === 'PUT' ? 'BEGIN:VCALENDAR' : undefined);
    });
    expect(await call('PUT', '/upload/0000/aaaa/evil.ics'), 'a PUT without a slot').to.be.within(400, 499);
    expect(await call('GET', '/upload/'), 'no listing').to.be.within(400, 499);
    expect(await call('GET', '/upload/0000/aaaa/invitation.ics'), 'a guessed path').to.equal(404);
  });

  it('refuses a login in the clear on the exposed port (no SASL before STARTTLS)', async () => {
    const r = await device('clear-auth', ports.c2s);
    expect(r.error).to.equal(undefined);
    expect(r.reply).to.be.a('string').and.not.contain('<success');
  });

  it('refuses an agent account on the exposed port, even with its right password (agents log in on loopback only)', async () => {
    const { password } = await ensureAccount(cfg, 'coordinator');
    const c = await RawXmpp.direct(EXPOSED, ports.tls, link.kind === 'netns' ? EXPOSED : DEVICE, cfg.domain, ca);
    try {
      await c.openStream();
      const outcome = await c.login('coordinator', password, 'outside').then(() => 'logged in', () => 'refused');
      expect(outcome).to.equal('refused');
    } finally {
      c.close();
    }
  });

  it('a client that does not trust the certificate cannot connect; the operator\'s fingerprint is the one served', async () => {
    const untrusted = await device('untrusted', ports.tls);
    expect(untrusted.connected).to.equal(undefined);
    expect(untrusted.error).to.match(/self[- ]signed certificate/);
    const served = await new Promise<string>((resolve, reject) => {
      const sock = tlsFrom(EXPOSED, ports.tls, link.kind === 'netns' ? EXPOSED : DEVICE, { servername: cfg.domain, ca }, () => {
        resolve(sock.getPeerX509Certificate()?.fingerprint256 ?? '');
        sock.destroy();
      });
      sock.once('error', reject);
    });
    const { stdout } = await promisify(execFile)(process.execPath, [path.join(repoRoot(), 'dist', 'scripts', 'ejabberd-cli.js'), 'admin'], { env: s.env });
    expect(stdout).to.contain(`SHA-256 fingerprint: ${served}`).and.contain(`_xmpps-client._tcp.${cfg.domain}. SRV 0 5 ${ports.tls} ${EXPOSED}.`);
  });

  it('serves only XMPP over WebSocket over TLS on the web port (no admin API there); loopback stays plain for the agents', async () => {
    const upgrade = (p: string) => new Promise<string>((resolve, reject) => {
      const sock = tlsFrom(EXPOSED, ports.ws, link.kind === 'netns' ? EXPOSED : DEVICE, { servername: cfg.domain, ca }, () => {
        sock.write(`GET ${p} HTTP/1.1\r\nHost: ${cfg.domain}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${crypto.randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: xmpp\r\n\r\n`);
      });
      sock.setEncoding('utf8');
      sock.once('data', (d: string) => {
        resolve(d.split('\r\n')[0] as string);
        sock.destroy();
      });
      sock.once('error', reject);
    });
    expect(await upgrade('/ws')).to.match(/^HTTP\/1\.1 101/);
    expect(await upgrade('/api/status')).to.match(/^HTTP\/1\.1 404/);
    // The agents' listener: plain XMPP on 127.0.0.1, not reachable on the exposed address.
    const loop = await RawXmpp.plain('127.0.0.1', cfg.c2sPort, '127.0.0.1', cfg.domain);
    expect(await loop.openStream()).to.not.contain('<required/>');
    loop.close();
    const refused = await RawXmpp.plain(EXPOSED, cfg.c2sPort, link.kind === 'netns' ? EXPOSED : DEVICE, cfg.domain).then((c) => (c.close(), false), () => true);
    expect(refused, 'the agents\' port is not on the exposed address').to.equal(true);
  });
});
