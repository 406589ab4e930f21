// Parley's configuration comes from the environment only (issue #2 §2); every CLI and agent
// reads it through here so that two instances with different values run side by side.
import path from 'node:path';
import { envEnum, envFlag, envNumber, envString } from './env.js';

export * from './env.js';
export { VARIABLES, type VarName, type VarSpec, isDeclared } from './variables.js';
export { loadTunables } from './agents.js';

export interface ParleyConfig {
  /** State directory: ejabberd config/spool/logs, secrets (0600), SQLite databases. */
  home: string;
  domain: string;
  /** Where agents connect to ejabberd's client port: loopback, or the operator's host for an agent host that joined (PARLEY_XMPP_HOST). */
  host: string;
  /** ejabberd's c2s listener address: loopback, or 0.0.0.0 inside a container (PARLEY_BIND_ADDRESS). */
  bindAddress: string;
  c2sPort: number;
  componentPort: number;
  /** The `agents.<domain>` component's own listener (specialist hosts): never the rooms' one, see ejabberd.yml.tmpl. */
  agentsComponentPort: number;
  /** The `calendars.<domain>` component's own listener (the calendar host, agents/calendar/host.ts). */
  calendarsComponentPort: number;
  /** Processes sharing `agents.<domain>` through ejabberd's domain_balancing (PARLEY_AGENTS_SHARDS; 1: none). */
  agentsShards: number;
  httpPort: number;
  /** Erlang distribution port of the ejabberd node (no epmd). */
  distPort: number;
  /** ejabberd nodes in the cluster (PARLEY_EJABBERD_NODES; 1: the single node of old). */
  ejabberdNodes: number;
  /** Distance between two nodes' ports (PARLEY_EJABBERD_PORT_STEP). */
  ejabberdPortStep: number;
  /** Which node of the cluster this configuration describes (1-based; shared/ejabberd/cluster.ts derives the others). */
  node: number;
  /** XEP-0313 archiving; off by default (facts.md: MAM costs 10–50× server CPU). */
  mam: boolean;
  offlineLimit: number;
  logLevel: string;
}

// Defaults sit away from a system ejabberd's 5222/5269/5275/5280/5443.
export const DEFAULT_PORTS = { c2s: 15222, component: 15275, agentsComponent: 15276, calendarsComponent: 15277, http: 15280, dist: 15370 } as const;

/**
 * Every process that reads the configuration works inside the state directory, so it creates
 * files owner-only (0600/0700): SQLite databases, their WAL, logs, telemetry, secrets.
 */
export function restrictFileModes(): void {
  process.umask(0o077);
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): ParleyConfig {
  restrictFileModes();
  const c2sPort = envNumber('PARLEY_C2S_PORT', env);
  const componentPort = envNumber('PARLEY_COMPONENT_PORT', env);
  return {
    home: path.resolve(envString('PARLEY_HOME', env) as string),
    domain: envString('PARLEY_DOMAIN', env) as string,
    host: envString('PARLEY_XMPP_HOST', env) as string,
    bindAddress: envEnum('PARLEY_BIND_ADDRESS', env),
    c2sPort,
    componentPort,
    // Beside the rooms' listener unless set, so a second instance only has to move its ports.
    agentsComponentPort: envNumber('PARLEY_AGENTS_COMPONENT_PORT', env, componentPort === DEFAULT_PORTS.component ? DEFAULT_PORTS.agentsComponent : componentPort + 1),
    calendarsComponentPort: envNumber('PARLEY_CALENDARS_COMPONENT_PORT', env, componentPort === DEFAULT_PORTS.component ? DEFAULT_PORTS.calendarsComponent : componentPort + 2),
    agentsShards: envNumber('PARLEY_AGENTS_SHARDS', env),
    httpPort: envNumber('PARLEY_HTTP_PORT', env),
    // Derived from the c2s port unless set, so a second instance only has to move its ports.
    distPort: envNumber('PARLEY_DIST_PORT', env, c2sPort === DEFAULT_PORTS.c2s ? DEFAULT_PORTS.dist : c2sPort + 148),
    ejabberdNodes: envNumber('PARLEY_EJABBERD_NODES', env),
    ejabberdPortStep: envNumber('PARLEY_EJABBERD_PORT_STEP', env),
    node: 1,
    mam: envFlag('PARLEY_MAM', env),
    offlineLimit: envNumber('PARLEY_OFFLINE_LIMIT', env),
    logLevel: envEnum('PARLEY_EJABBERD_LOGLEVEL', env),
  };
}

/** The environment a child process needs to reach the same instance. */
export function configEnv(cfg: ParleyConfig): Record<string, string> {
  return {
    PARLEY_HOME: cfg.home,
    PARLEY_DOMAIN: cfg.domain,
    PARLEY_C2S_PORT: String(cfg.c2sPort),
    PARLEY_COMPONENT_PORT: String(cfg.componentPort),
    PARLEY_AGENTS_COMPONENT_PORT: String(cfg.agentsComponentPort),
    PARLEY_CALENDARS_COMPONENT_PORT: String(cfg.calendarsComponentPort),
    PARLEY_AGENTS_SHARDS: String(cfg.agentsShards),
    PARLEY_HTTP_PORT: String(cfg.httpPort),
    PARLEY_DIST_PORT: String(cfg.distPort),
    PARLEY_MAM: cfg.mam ? '1' : '0',
    PARLEY_EJABBERD_NODES: String(cfg.ejabberdNodes),
    PARLEY_EJABBERD_PORT_STEP: String(cfg.ejabberdPortStep),
  };
}

/** Node 1 keeps the single node's folders; node i > 1 of a cluster has its own under ejabberd/node<i>. */
const nodeDir = (cfg: ParleyConfig) => (cfg.node > 1 ? path.join(cfg.home, 'ejabberd', `node${cfg.node}`) : path.join(cfg.home, 'ejabberd'));

export const paths = (cfg: ParleyConfig) => ({
  ejabberd: path.join(cfg.home, 'ejabberd'),
  /** This node's own folder (the ejabberd folder itself for node 1). */
  node: nodeDir(cfg),
  etc: path.join(nodeDir(cfg), 'etc'),
  spool: path.join(nodeDir(cfg), 'spool'),
  logs: path.join(nodeDir(cfg), 'logs'),
  run: path.join(nodeDir(cfg), 'run'),
  /** The cluster's shared Erlang cookie (one file, owner ejabberd, 0600). */
  cookie: path.join(cfg.home, 'ejabberd', 'cookie'),
  secrets: path.join(cfg.home, 'secrets'),
  data: path.join(cfg.home, 'data'),
  /** The Coordinator's OACoP meetings and tasks (was data/coordinator.sqlite: SchedulingStore moves it). */
  scheduling: path.join(cfg.home, 'data', 'scheduling.sqlite'),
  telemetry: path.join(cfg.home, 'telemetry'),
  logsDir: path.join(cfg.home, 'logs'),
});
