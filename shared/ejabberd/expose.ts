// Reaching Parley from another device (issue "A person's experience in chat"): the operator
// exposes the client port, and the web chat's WebSocket, on a chosen address with TLS required,
// while every agent stays on the loopback listener. PARLEY_EXPOSE_ADDRESS turns it on:
// - STARTTLS required on PARLEY_EXPOSE_C2S_PORT (RFC 6120 §5): no authentication before TLS, so
//   PLAIN only ever travels inside TLS;
// - direct TLS on PARLEY_EXPOSE_TLS_PORT (XEP-0368: publish _xmpps-client._tcp SRV records);
// - XMPP over WebSocket (RFC 7395) over TLS on PARLEY_EXPOSE_WS_PORT, path /ws, and /upload for
//   the attachments the Presenter sends (XEP-0363 get URLs) — never the admin API or web admin,
//   which stay on loopback.
// The certificate is the operator's (PARLEY_TLS_CERT + PARLEY_TLS_KEY) or one generated here
// (EC P-256, self-signed, names the domain and the exposed address) whose SHA-256 fingerprint
// `npm run ejabberd -- admin` prints so that clients can pin it. Secrets stay in the state dir:
// secrets/tls/ (0600) and ejabberd's etc/tls.pem (0640, group ejabberd).
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { envNumber, envString, type ParleyConfig, paths } from '../config/index.js';

export interface Exposure {
  address: string;
  c2sPort: number;
  tlsPort: number;
  wsPort: number;
  /** PEM of the certificate chain served (what clients verify or pin). */
  certFile: string;
  keyFile: string;
  generated: boolean;
}

/** The exposure the environment asks for, or undefined (everything on loopback, the default). */
export function exposure(cfg: ParleyConfig, env: NodeJS.ProcessEnv = process.env): Exposure | undefined {
  const address = envString('PARLEY_EXPOSE_ADDRESS', env);
  if (address === undefined) return undefined;
  if (net.isIP(address) === 0) throw new Error(`PARLEY_EXPOSE_ADDRESS must be an IP address (e.g. 0.0.0.0 or 192.168.1.10), got ${JSON.stringify(address)}`);
  const cert = envString('PARLEY_TLS_CERT', env);
  const key = envString('PARLEY_TLS_KEY', env);
  if ((cert === undefined) !== (key === undefined)) throw new Error('PARLEY_TLS_CERT and PARLEY_TLS_KEY go together: the certificate chain and its private key (PEM)');
  const dir = path.join(paths(cfg).secrets, 'tls');
  return {
    address,
    c2sPort: envNumber('PARLEY_EXPOSE_C2S_PORT', env),
    tlsPort: envNumber('PARLEY_EXPOSE_TLS_PORT', env),
    wsPort: envNumber('PARLEY_EXPOSE_WS_PORT', env),
    certFile: cert ?? path.join(dir, 'cert.pem'),
    keyFile: key ?? path.join(dir, 'key.pem'),
    generated: cert === undefined,
  };
}

/** Creates the self-signed certificate once (openssl, Debian's), naming the domain and the address. */
export function ensureCertificate(cfg: ParleyConfig, e: Exposure): void {
  if (!e.generated || (fs.existsSync(e.certFile) && fs.existsSync(e.keyFile))) return;
  fs.mkdirSync(path.dirname(e.certFile), { recursive: true, mode: 0o700 });
  const names = [`DNS:${cfg.domain}`, ...(e.address === '0.0.0.0' || e.address === '::' ? [] : [`IP:${e.address}`])];
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '825',
    '-subj', `/CN=${cfg.domain}`, '-addext', `subjectAltName=${names.join(',')}`,
    '-keyout', e.keyFile, '-out', e.certFile,
  ], { stdio: 'ignore' });
  fs.chmodSync(e.keyFile, 0o600);
  fs.chmodSync(e.certFile, 0o600);
}

/** SHA-256 fingerprint of the served certificate (AA:BB:…), as clients show it. */
export function fingerprint(e: Exposure): string {
  return new crypto.X509Certificate(fs.readFileSync(e.certFile)).fingerprint256;
}

/** ejabberd's copy (certificate + key in one PEM), readable by its group only; returns its path. */
export function installCertificate(cfg: ParleyConfig, e: Exposure): string {
  const file = path.join(paths(cfg).etc, 'tls.pem');
  fs.writeFileSync(file, `${fs.readFileSync(e.certFile, 'utf8').trim()}\n${fs.readFileSync(e.keyFile, 'utf8').trim()}\n`, { mode: 0o640 });
  fs.chmodSync(file, 0o640);
  return file;
}

/**
 * Where people's clients fetch the Presenter's attachments (mod_http_upload's put and get URL): the
 * exposed HTTPS port when exposed — on the exposed address, or the domain when that is a wildcard
 * (it must then resolve to this host for the devices, as for the SRV records) — else loopback.
 */
export function uploadUrl(cfg: ParleyConfig, e: Exposure | undefined): string {
  if (!e) return `http://127.0.0.1:${cfg.httpPort}/upload`;
  const wildcard = e.address === '0.0.0.0' || e.address === '::';
  const host = wildcard ? cfg.domain : net.isIPv6(e.address) ? `[${e.address}]` : e.address;
  return `https://${host}:${e.wsPort}/upload`;
}

/** The listeners and certfiles block for ejabberd.yml ('' when nothing is exposed). */
export function exposureYaml(e: Exposure | undefined, pemFile: string): { listeners: string; certfiles: string } {
  if (!e) return { listeners: '', certfiles: '' };
  const ip = JSON.stringify(e.address);
  const tlsOptions = `    protocol_options:
      - "no_sslv3"
      - "no_tlsv1"
      - "no_tlsv1_1"`;
  return {
    certfiles: `certfiles:\n  - ${JSON.stringify(pemFile)}\n`,
    listeners: `
  -
    # Exposed for people's devices (PARLEY_EXPOSE_ADDRESS): STARTTLS required before anything.
    port: ${e.c2sPort}
    ip: ${ip}
    module: ejabberd_c2s
    starttls_required: true
${tlsOptions}
    max_stanza_size: 262144
    shaper: c2s_shaper
    access: c2s_exposed
  -
    # XEP-0368 direct TLS.
    port: ${e.tlsPort}
    ip: ${ip}
    module: ejabberd_c2s
    tls: true
${tlsOptions}
    max_stanza_size: 262144
    shaper: c2s_shaper
    access: c2s_exposed
  -
    # RFC 7395 XMPP over WebSocket, over TLS: the web chat from another device. /ws only.
    port: ${e.wsPort}
    ip: ${ip}
    module: ejabberd_http
    tls: true
${tlsOptions}
    request_handlers:
      /ws: ejabberd_http_ws
      /upload: mod_http_upload`,
  };
}

/** What `npm run ejabberd -- admin` prints about the exposure. */
export function exposureReport(cfg: ParleyConfig, e: Exposure): string[] {
  const host = e.address === '0.0.0.0' || e.address === '::' ? '<this host>' : e.address;
  return [
    `exposed on ${e.address}: STARTTLS ${e.c2sPort} (required), direct TLS ${e.tlsPort} (XEP-0368), WebSocket wss://${host}:${e.wsPort}/ws`,
    `certificate: ${e.generated ? 'generated, self-signed' : e.certFile}`,
    `SHA-256 fingerprint: ${fingerprint(e)}`,
    'DNS records for clients elsewhere (RFC 6120 §3.2.1, XEP-0368):',
    `  _xmpp-client._tcp.${cfg.domain}. SRV 0 5 ${e.c2sPort} ${host}.`,
    `  _xmpps-client._tcp.${cfg.domain}. SRV 0 5 ${e.tlsPort} ${host}.`,
  ];
}
