// The console's settings, from the environment like the rest of Parley (shared/config):
//   PARLEY_CONSOLE_PORT   HTTP port (default 15290, beside c2s 15222, component 15275, http 15280;
//                         c2s port + 68 when the c2s port was moved, like the dist port, so a second
//                         instance that only moved its ports does not collide)
//   PARLEY_CONSOLE_BIND   bind address; loopback unless the operator sets one
//   PARLEY_CONSOLE        0 = npm start does not start the console
//   PARLEY_CONSOLE_SESSION_TTL_MS  how long a browser login lasts (default 12 h)
//   PARLEY_CONSOLE_RETENTION_DAYS  telemetry older than this is deleted (default 7; 0 = keep all)
//   PARLEY_OTLP_URL       OTLP/HTTP traces endpoint (…/v1/traces); unset = no OpenTelemetry at all
import path from 'node:path';
import { DEFAULT_PORTS, type ParleyConfig, paths } from '../config/index.js';

export const DEFAULT_CONSOLE_PORT = 15290;

export interface ConsoleSettings {
  port: number;
  bind: string;
  sessionTtlMs: number;
  retentionDays: number;
  otlpUrl?: string;
  /** 0600 file holding the admin token. */
  tokenFile: string;
}

function positive(env: NodeJS.ProcessEnv, name: string, fallback: number, { integer = true, min = 0 } = {}): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min || (integer && !Number.isInteger(n))) throw new Error(`${name} must be a number ≥ ${min}, got ${JSON.stringify(raw)}`);
  return n;
}

export function consoleSettings(cfg: ParleyConfig, env: NodeJS.ProcessEnv = process.env): ConsoleSettings {
  const port = positive(env, 'PARLEY_CONSOLE_PORT', cfg.c2sPort === DEFAULT_PORTS.c2s ? DEFAULT_CONSOLE_PORT : cfg.c2sPort + (DEFAULT_CONSOLE_PORT - DEFAULT_PORTS.c2s), { min: 1 });
  if (port > 65535) throw new Error(`PARLEY_CONSOLE_PORT must be a TCP port, got ${port}`);
  return {
    port,
    bind: env.PARLEY_CONSOLE_BIND || '127.0.0.1',
    sessionTtlMs: positive(env, 'PARLEY_CONSOLE_SESSION_TTL_MS', 12 * 3600 * 1000, { min: 1 }),
    retentionDays: positive(env, 'PARLEY_CONSOLE_RETENTION_DAYS', 7, { integer: false }),
    ...(env.PARLEY_OTLP_URL ? { otlpUrl: env.PARLEY_OTLP_URL } : {}),
    tokenFile: path.join(paths(cfg).secrets, 'console-token'),
  };
}

export const consoleEnabled = (env: NodeJS.ProcessEnv = process.env) => env.PARLEY_CONSOLE !== '0';
