// Parley's configuration comes from the environment only (issue #2 §2); every CLI and agent
// reads it through here so that two instances with different values run side by side.
import path from 'node:path';

export interface ParleyConfig {
  /** State directory: ejabberd config/spool/logs, secrets (0600), SQLite databases. */
  home: string;
  domain: string;
  /** Always loopback: nothing in Parley listens on or connects to another address. */
  host: string;
  c2sPort: number;
  componentPort: number;
  httpPort: number;
  /** Erlang distribution port of the ejabberd node (no epmd). */
  distPort: number;
  /** XEP-0313 archiving; off by default (facts.md: MAM costs 10–50× server CPU). */
  mam: boolean;
  offlineLimit: number;
  logLevel: string;
}

// Defaults sit away from a system ejabberd's 5222/5269/5275/5280/5443.
export const DEFAULT_PORTS = { c2s: 15222, component: 15275, http: 15280, dist: 15370 } as const;

function port(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 65535) {
    throw new Error(`${name} must be a TCP port (1-65535), got ${JSON.stringify(raw)}`);
  }
  return n;
}

/**
 * Every process that reads the configuration works inside the state directory, so it creates
 * files owner-only (0600/0700): SQLite databases, their WAL, logs, telemetry, secrets.
 */
export function restrictFileModes(): void {
  process.umask(0o077);
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): ParleyConfig {
  restrictFileModes();
  const c2sPort = port(env, 'PARLEY_C2S_PORT', DEFAULT_PORTS.c2s);
  return {
    home: path.resolve(env.PARLEY_HOME || './.parley'),
    domain: env.PARLEY_DOMAIN || 'localhost',
    host: '127.0.0.1',
    c2sPort,
    componentPort: port(env, 'PARLEY_COMPONENT_PORT', DEFAULT_PORTS.component),
    httpPort: port(env, 'PARLEY_HTTP_PORT', DEFAULT_PORTS.http),
    // Derived from the c2s port unless set, so a second instance only has to move its ports.
    distPort: port(env, 'PARLEY_DIST_PORT', c2sPort === DEFAULT_PORTS.c2s ? DEFAULT_PORTS.dist : c2sPort + 148),
    mam: env.PARLEY_MAM === '1' || env.PARLEY_MAM === 'true',
    offlineLimit: Number(env.PARLEY_OFFLINE_LIMIT || 100000),
    logLevel: env.PARLEY_EJABBERD_LOGLEVEL || 'warning',
  };
}

/** The environment a child process needs to reach the same instance. */
export function configEnv(cfg: ParleyConfig): Record<string, string> {
  return {
    PARLEY_HOME: cfg.home,
    PARLEY_DOMAIN: cfg.domain,
    PARLEY_C2S_PORT: String(cfg.c2sPort),
    PARLEY_COMPONENT_PORT: String(cfg.componentPort),
    PARLEY_HTTP_PORT: String(cfg.httpPort),
    PARLEY_DIST_PORT: String(cfg.distPort),
    PARLEY_MAM: cfg.mam ? '1' : '0',
  };
}

export const paths = (cfg: ParleyConfig) => ({
  ejabberd: path.join(cfg.home, 'ejabberd'),
  etc: path.join(cfg.home, 'ejabberd', 'etc'),
  spool: path.join(cfg.home, 'ejabberd', 'spool'),
  logs: path.join(cfg.home, 'ejabberd', 'logs'),
  run: path.join(cfg.home, 'ejabberd', 'run'),
  secrets: path.join(cfg.home, 'secrets'),
  data: path.join(cfg.home, 'data'),
  telemetry: path.join(cfg.home, 'telemetry'),
  logsDir: path.join(cfg.home, 'logs'),
});
