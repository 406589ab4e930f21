// mod_http_api client (~7–10 ms per call, against ~300 ms for an `ejabberdctl` call, which starts
// a new Erlang VM each time). Every command authenticates as the admin account (HTTP basic auth):
// the instance's api_permissions refuse unauthenticated callers, loopback included.
import http from 'node:http';
import path from 'node:path';
import { type ParleyConfig, paths } from '../config/index.js';
import { SecretMap } from '../secrets/index.js';
import { hostOf, nodeConfig } from './cluster.js';

/** The account the operator's tools act as; its password lives in secrets/accounts.json (0600). */
export const ADMIN_ACCOUNT = 'admin';

function authorization(cfg: ParleyConfig): string | undefined {
  const password = new SecretMap(path.join(paths(cfg).secrets, 'accounts.json')).get(ADMIN_ACCOUNT);
  if (!password) return undefined;
  return 'Basic ' + Buffer.from(`${ADMIN_ACCOUNT}@${cfg.domain}:${password}`).toString('base64');
}

export class EjabberdApiError extends Error {
  constructor(readonly command: string, readonly status: number, readonly body: string, hint?: string) {
    super(`ejabberd API ${command} failed (HTTP ${status}): ${body}${hint ? `; ${hint}` : ''}`);
  }
}

/**
 * Why the admin is refused, as the operator can act on it: most often another installation's
 * ejabberd on this one's ports (two PARLEY_HOMEs, same ports), which answers, so it counts as
 * running, but has its own admin. Every command that authenticates says so, not only `npm start`.
 */
export function adminRefusedHint(cfg: ParleyConfig, host: string, port: number): string {
  return `the ejabberd answering on ${host}:${port} refuses this installation's admin (${cfg.home}/secrets/accounts.json): ` +
    'is it another installation\'s, started with another PARLEY_HOME? Stop that one, or give this one other ports (PARLEY_C2S_PORT, PARLEY_HTTP_PORT, …)';
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

/** True when the server stops the command at authentication (no or wrong admin credentials). */
export const isAuthRefusal = (err: unknown) => err instanceof EjabberdApiError && (err.status === 401 || err.status === 403);

const refused = (err: unknown) => (err as NodeJS.ErrnoException).code === 'ECONNREFUSED';

/**
 * One command on the node `cfg` describes. The installation's own configuration (node 1) of a
 * cluster falls back to the other nodes while node 1 refuses connections (it died): accounts and
 * sessions are cluster-wide, so any node serves them (docs/cluster.md). A node-specific
 * configuration (cluster.ts nodeConfig, node > 1) asks that node only.
 */
export async function callApi<T = unknown>(cfg: ParleyConfig, command: string, args: object = {}, timeoutMs = 5000): Promise<T> {
  try {
    return await callNode<T>(cfg, cfg.httpPort, command, args, timeoutMs, hostOf(cfg).listen);
  } catch (err) {
    if (!refused(err) || cfg.node !== 1 || cfg.ejabberdNodes < 2) throw err;
    for (let i = 2; i <= cfg.ejabberdNodes; i++) {
      try {
        const n = nodeConfig(cfg, i);
        return await callNode<T>(cfg, n.httpPort, command, args, timeoutMs, hostOf(n).listen);
      } catch (next) {
        if (!refused(next)) throw next;
      }
    }
    throw err;
  }
}

function callNode<T>(cfg: ParleyConfig, port: number, command: string, args: object, timeoutMs: number, host: string): Promise<T> {
  const body = JSON.stringify(args);
  const auth = authorization(cfg);
  return new Promise<T>((resolve, reject) => {
    const req = http.request(
      {
        host, // the admin API answers on the ejabberd host's loopback only (a namespaced node: its own address, cluster.ts)
        port,
        path: `/api/${command}`,
        method: 'POST',
        agent,
        timeout: timeoutMs,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          ...(auth ? { authorization: auth } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const status = res.statusCode ?? 0;
          const hint = auth && (status === 401 || status === 403) ? adminRefusedHint(cfg, host, port) : undefined;
          if (status !== 200) return reject(new EjabberdApiError(command, status, text, hint));
          try {
            resolve((text ? JSON.parse(text) : null) as T);
          } catch {
            resolve(text as unknown as T);
          }
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`ejabberd API ${command}: timed out after ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** Whether the HTTP API answers at all (any status: a 401 before the admin exists counts). */
export function apiAnswers(cfg: ParleyConfig, timeoutMs = 2000): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.request({ host: hostOf(cfg).listen, port: cfg.httpPort, path: '/api/status', method: 'POST', agent, timeout: timeoutMs,
      headers: { 'content-type': 'application/json', 'content-length': 2 } }, (res) => {
      res.resume();
      resolve(typeof res.statusCode === 'number');
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve(false));
    req.end('{}');
  });
}

export const api = {
  status: (cfg: ParleyConfig) => callApi<string>(cfg, 'status'),
  register: (cfg: ParleyConfig, user: string, password: string) =>
    callApi<string>(cfg, 'register', { user, host: cfg.domain, password }),
  unregister: (cfg: ParleyConfig, user: string) => callApi<unknown>(cfg, 'unregister', { user, host: cfg.domain }),
  changePassword: (cfg: ParleyConfig, user: string, newpass: string) =>
    callApi<unknown>(cfg, 'change_password', { user, host: cfg.domain, newpass }),
  checkAccount: (cfg: ParleyConfig, user: string) =>
    callApi<number>(cfg, 'check_account', { user, host: cfg.domain }).then(
      (r) => r === 0,
      (err) => (err instanceof EjabberdApiError && err.status !== 0 ? false : Promise.reject(err)),
    ),
  registeredUsers: (cfg: ParleyConfig) => callApi<string[]>(cfg, 'registered_users', { host: cfg.domain }),
  connectedUsers: (cfg: ParleyConfig) => callApi<string[]>(cfg, 'connected_users'),
  /** Every session of the cluster with the Erlang node that holds it (mod_admin_extra). */
  connectedUsersInfo: (cfg: ParleyConfig) => callApi<Array<{ jid: string; node: string }>>(cfg, 'connected_users_info'),
  convertToScram: (cfg: ParleyConfig) => callApi<unknown>(cfg, 'convert_to_scram', { host: cfg.domain }),
};

export function closeApiAgent(): void {
  agent.destroy();
}
