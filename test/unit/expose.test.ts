// Reaching Parley from another device (issue 16), the parts that need no ejabberd: the operator's
// own certificate is used as given (nothing generated, its fingerprint is the one printed), half a
// pair is refused, and the attachment links point where a device can reach them.
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { loadConfig, paths } from '../../shared/config/index.js';
import {
  ensureCertificate, exposure, fingerprint, installCertificate, uploadUrl,
} from '../../shared/ejabberd/operator.js';

describe('Expose [certificate] the operator\'s own, or a generated one', () => {
  let home: string;
  beforeEach(() => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-expose-'));
  });
  afterEach(() => fs.rmSync(home, { recursive: true, force: true }));

  it('uses PARLEY_TLS_CERT and PARLEY_TLS_KEY as given: nothing generated, ejabberd gets that pair, its fingerprint is printed', () => {
    const cert = path.join(home, 'op-cert.pem');
    const key = path.join(home, 'op-key.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=chat.example.org', '-keyout', key, '-out', cert], { stdio: 'ignore' });
    const env = { PARLEY_HOME: home, PARLEY_EXPOSE_ADDRESS: '192.0.2.10', PARLEY_TLS_CERT: cert, PARLEY_TLS_KEY: key };
    const cfg = loadConfig(env);
    const e = exposure(cfg, env);
    expect(e).to.deep.include({ address: '192.0.2.10', certFile: cert, keyFile: key, generated: false });
    fs.mkdirSync(paths(cfg).etc, { recursive: true });
    ensureCertificate(cfg, e!);
    expect(fs.existsSync(path.join(paths(cfg).secrets, 'tls')), 'nothing generated').to.equal(false);
    const pem = fs.readFileSync(installCertificate(cfg, e!), 'utf8');
    expect(pem).to.contain(fs.readFileSync(cert, 'utf8').trim()).and.contain(fs.readFileSync(key, 'utf8').trim());
    expect(fingerprint(e!)).to.equal(new crypto.X509Certificate(fs.readFileSync(cert)).fingerprint256);
  });

  it('refuses half a pair and an address that is not an IP', () => {
    const env = { PARLEY_HOME: home, PARLEY_EXPOSE_ADDRESS: '0.0.0.0', PARLEY_TLS_CERT: '/x/cert.pem' };
    expect(() => exposure(loadConfig(env), env)).to.throw(/go together/);
    const bad = { PARLEY_HOME: home, PARLEY_EXPOSE_ADDRESS: 'my-laptop' };
    expect(() => exposure(loadConfig(bad), bad)).to.throw(/must be an IP address/);
  });

  it('attachment links: loopback when nothing is exposed; the exposed HTTPS port on the address, or the domain for a wildcard', () => {
    const base = { PARLEY_HOME: home, PARLEY_HTTP_PORT: '15280', PARLEY_DOMAIN: 'chat.example.org', PARLEY_EXPOSE_WS_PORT: '5443' };
    const at = (address?: string) => {
      const env = { ...base, ...(address ? { PARLEY_EXPOSE_ADDRESS: address } : {}) };
      const cfg = loadConfig(env);
      return uploadUrl(cfg, exposure(cfg, env));
    };
    expect(at()).to.equal('http://127.0.0.1:15280/upload');
    expect(at('192.168.1.10')).to.equal('https://192.168.1.10:5443/upload');
    expect(at('0.0.0.0')).to.equal('https://chat.example.org:5443/upload');
    expect(at('fd00::10')).to.equal('https://[fd00::10]:5443/upload');
  });
});
