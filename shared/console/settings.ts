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
import { DEFAULT_PORTS, envFlag, envNumber, envString, type ParleyConfig, paths } from '../config/index.js';

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

export function consoleSettings(cfg: ParleyConfig, env: NodeJS.ProcessEnv = process.env): ConsoleSettings {
  const port = envNumber('PARLEY_CONSOLE_PORT', env, cfg.c2sPort === DEFAULT_PORTS.c2s ? DEFAULT_CONSOLE_PORT : cfg.c2sPort + (DEFAULT_CONSOLE_PORT - DEFAULT_PORTS.c2s));
  return {
    port,
    bind: envString('PARLEY_CONSOLE_BIND', env) as string,
    sessionTtlMs: envNumber('PARLEY_CONSOLE_SESSION_TTL_MS', env),
    retentionDays: envNumber('PARLEY_CONSOLE_RETENTION_DAYS', env),
    ...(envString('PARLEY_OTLP_URL', env) ? { otlpUrl: envString('PARLEY_OTLP_URL', env) as string } : {}),
    tokenFile: path.join(paths(cfg).secrets, 'console-token'),
  };
}

export const consoleEnabled = (env: NodeJS.ProcessEnv = process.env) => envFlag('PARLEY_CONSOLE', env);
