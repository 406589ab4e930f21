// An ejabberd cluster on one machine (issue #14 §1): PARLEY_EJABBERD_NODES nodes, each with its
// own node name, spool, logs and ports, joined with ejabberd's own clustering (`ejabberdctl
// join_cluster`, Mnesia replication: accounts, rosters, sessions and routes are cluster-wide).
//
// Separate hosts are simulated with separate loopback addresses (no network namespaces): node i
// > 1 is `parley<c2s>@parley-node<i>`, a short host name that every node's inetrc maps to
// 127.0.0.<10+i>, and its Erlang distribution listens there only. Like real hosts, every node
// uses the same distribution port (PARLEY_DIST_PORT): Debian's ejabberdctl runs Erlang with
// `-erl_epmd_port <port> -start_epmd false`, which makes every node look for every other node on
// that one port (erl_epmd:port_please), so there is still no epmd. The client, component and
// HTTP listeners (three component ones) stay on 127.0.0.1, node i's at each port + (i − 1) × PARLEY_EJABBERD_PORT_STEP.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { type ParleyConfig, paths } from '../config/index.js';

/** The configuration of node `i` (1-based) of `cfg`'s cluster; node 1 is `cfg` itself. */
export function nodeConfig(cfg: ParleyConfig, i: number): ParleyConfig {
  if (i === 1) return { ...cfg, node: 1 };
  const d = (i - 1) * cfg.ejabberdPortStep;
  return { ...cfg, node: i, c2sPort: cfg.c2sPort + d, componentPort: cfg.componentPort + d, agentsComponentPort: cfg.agentsComponentPort + d, calendarsComponentPort: cfg.calendarsComponentPort + d, httpPort: cfg.httpPort + d };
}

/** Every node of the cluster (one for the default single node). */
export function clusterNodes(cfg: ParleyConfig): ParleyConfig[] {
  const first = cfg.node > 1 ? nodeConfig({ ...cfg, ...baseOf(cfg) }, 1) : cfg;
  return Array.from({ length: first.ejabberdNodes }, (_, k) => nodeConfig(first, k + 1));
}

function baseOf(cfg: ParleyConfig): Partial<ParleyConfig> {
  const d = (cfg.node - 1) * cfg.ejabberdPortStep;
  return { c2sPort: cfg.c2sPort - d, componentPort: cfg.componentPort - d, agentsComponentPort: cfg.agentsComponentPort - d, calendarsComponentPort: cfg.calendarsComponentPort - d, httpPort: cfg.httpPort - d, node: 1 };
}

export const clustered = (cfg: ParleyConfig) => cfg.ejabberdNodes > 1;

/** The simulated host of node i: its short host name and loopback address (node 1: localhost). */
export function nodeHost(i: number): { name: string; ip: [number, number, number, number] } {
  return i === 1 ? { name: 'localhost', ip: [127, 0, 0, 1] } : { name: `parley-node${i}`, ip: [127, 0, 0, 10 + i] };
}

/** Erlang node name: the single node's name of old for node 1, the same name on its own host for the others. */
export function nodeName(cfg: ParleyConfig): string {
  const base = cfg.node > 1 ? cfg.c2sPort - (cfg.node - 1) * cfg.ejabberdPortStep : cfg.c2sPort;
  return `parley${base}@${nodeHost(cfg.node).name}`;
}

/** Where agents may log in, in the order this account tries them (see startIndex). */
export interface Endpoint { host: string; port: number }

export function c2sEndpoints(cfg: ParleyConfig): Endpoint[] {
  return clusterNodes(cfg).map((n) => ({ host: cfg.host, port: n.c2sPort }));
}

/** Every node's listener for `rooms.<domain>` (default), `agents.<domain>` or `calendars.<domain>`: each host has its own (ejabberd.yml.tmpl). */
export function componentEndpoints(cfg: ParleyConfig, which: 'rooms' | 'agents' | 'calendars' = 'rooms'): Endpoint[] {
  const port = (n: ParleyConfig) => (which === 'agents' ? n.agentsComponentPort : which === 'calendars' ? n.calendarsComponentPort : n.componentPort);
  return clusterNodes(cfg).map((n) => ({ host: '127.0.0.1', port: port(n) }));
}

/** Agents spread over the nodes by account: the same account always starts on the same node. */
export function startIndex(account: string, count: number): number {
  if (count <= 1) return 0;
  return crypto.createHash('sha256').update(account).digest().readUInt32BE(0) % count;
}

/** Which node (1-based) serves a given c2s port, or undefined. */
export function nodeOfPort(cfg: ParleyConfig, port: number): number | undefined {
  const i = clusterNodes(cfg).findIndex((n) => n.c2sPort === port);
  return i < 0 ? undefined : i + 1;
}

/** inetrc lines naming every node's simulated host (all nodes and ejabberdctl resolve them). */
export function inetrcHosts(cfg: ParleyConfig): string {
  if (!clustered(cfg)) return '';
  return clusterNodes(cfg).slice(1).map((n) => {
    const h = nodeHost(n.node);
    return `{host,{${h.ip.join(',')}}, ["${h.name}"]}.\n`;
  }).join('');
}

/**
 * The cluster's shared Erlang cookie, created once in the state directory. Erlang reads
 * $HOME/.erlang.cookie; Debian's ejabberdctl runs erl through `su ejabberd`, which sets HOME to
 * /var/lib/ejabberd (shared by every ejabberd on the machine), so clustered nodes run erl through
 * a wrapper (etc/erl) that points HOME at this folder. Never on a command line (ps shows those).
 */
export function ensureCookie(cfg: ParleyConfig): string {
  const dir = paths(cfg).cookie;
  const file = path.join(dir, '.erlang.cookie');
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (!fs.existsSync(file)) {
    // Erlang cookies are atoms: upper-case letters, as erl itself generates them.
    const bytes = crypto.randomBytes(32);
    const cookie = Array.from(bytes, (b) => String.fromCharCode(65 + (b % 26))).join('');
    fs.writeFileSync(file, cookie, { mode: 0o600 });
  }
  fs.chmodSync(file, 0o600);
  return dir;
}

/** The wrapper ejabberdctl runs instead of /usr/bin/erl on a clustered node (see ensureCookie). */
export function erlWrapper(cfg: ParleyConfig): string {
  return `#!/bin/sh
# Rendered by shared/ejabberd/cluster.ts: the cluster's nodes share the Erlang cookie kept in
# ${paths(cfg).cookie} (erl reads $HOME/.erlang.cookie; su set HOME to ejabberd's own home).
HOME='${paths(cfg).cookie}' exec /usr/bin/erl "$@"
`;
}
