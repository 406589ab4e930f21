// mod_http_api client for loopback callers (facts.md: ~7–10 ms per call, against ~300 ms for
// an `ejabberdctl` call, which starts a new Erlang VM each time).
import http from 'node:http';
import type { ParleyConfig } from '../config/index.js';

export class EjabberdApiError extends Error {
  constructor(readonly command: string, readonly status: number, readonly body: string) {
    super(`ejabberd API ${command} failed (HTTP ${status}): ${body}`);
  }
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

export function callApi<T = unknown>(cfg: ParleyConfig, command: string, args: object = {}, timeoutMs = 5000): Promise<T> {
  const body = JSON.stringify(args);
  return new Promise<T>((resolve, reject) => {
    const req = http.request(
      {
        host: cfg.host,
        port: cfg.httpPort,
        path: `/api/${command}`,
        method: 'POST',
        agent,
        timeout: timeoutMs,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode !== 200) return reject(new EjabberdApiError(command, res.statusCode ?? 0, text));
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
};

export function closeApiAgent(): void {
  agent.destroy();
}
