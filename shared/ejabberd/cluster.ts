// An ejabberd cluster on one machine (issue #14 §1): PARLEY_EJABBERD_NODES nodes, each with its
// own node name, spool, logs and ports, joined with ejabberd's own clustering (`ejabberdctl
// join_cluster`, Mnesia replication: accounts, rosters, sessions and routes are cluster-wide).
//
// Separate hosts (hosts.ts decides which kind, docs/cluster.md): node i > 1 is
// `parley<c2s>@parley-node<i>`, a short host name that every node's inetrc maps to its address:
// in its own network namespace 10.214.X.i where the sandbox permits one, else the loopback
// address 127.0.0.<10+i> of one network stack. Its Erlang distribution listens there only. Like
// real hosts, every node uses the same distribution port (PARLEY_DIST_PORT): Debian's ejabberdctl
// runs Erlang with `-erl_epmd_port <port> -start_epmd false`, which makes every node look for
// every other node on that one port (erl_epmd:port_please), so there is still no epmd. Node i's
// client, component and HTTP listeners are at each port + (i − 1) × PARLEY_EJABBERD_PORT_STEP, on
// 127.0.0.1 (node 1, and every node on loopback addresses) or on its namespace's address.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { type ParleyConfig, paths } from '../config/index.js';
import { type ClusterHosts, netnsName, readHosts } from './hosts.js';

/**
 * The configuration of node `i` (1-based) of `cfg`'s cluster; node 1 is `cfg` itself. Its `host`
 * is where a client on this machine reaches node i's client port: its namespace's address when it
 * has one (a `host` set to another machine, PARLEY_XMPP_HOST, is left alone).
 */
export function nodeConfig(cfg: ParleyConfig, i: number, hosts = readHosts(cfg)): ParleyConfig {
  const host = localHost(cfg, hosts) ? nodeHost(i, hosts).listen : cfg.host;
  if (i === 1) return { ...cfg, node: 1, host };
  const d = (i - 1) * cfg.ejabberdPortStep;
  return { ...cfg, node: i, host, c2sPort: cfg.c2sPort + d, componentPort: cfg.componentPort + d, agentsComponentPort: cfg.agentsComponentPort + d, calendarsComponentPort: cfg.calendarsComponentPort + d, httpPort: cfg.httpPort + d };
}

/** Whether cfg.host is this machine's side of the cluster (loopback, or one of the namespaces' addresses). */
function localHost(cfg: ParleyConfig, hosts: ClusterHosts | undefined): boolean {
  return cfg.host === '127.0.0.1' || (hosts?.mode === 'netns' && cfg.host.startsWith(`${hosts.subnet}.`));
}

/** Every node of the cluster (one for the default single node). */
export function clusterNodes(cfg: ParleyConfig, hosts = readHosts(cfg)): ParleyConfig[] {
  const first = cfg.node > 1 ? nodeConfig({ ...cfg, ...baseOf(cfg) }, 1, hosts) : cfg;
  return Array.from({ length: first.ejabberdNodes }, (_, k) => nodeConfig(first, k + 1, hosts));
}

function baseOf(cfg: ParleyConfig): Partial<ParleyConfig> {
  const d = (cfg.node - 1) * cfg.ejabberdPortStep;
  return { c2sPort: cfg.c2sPort - d, componentPort: cfg.componentPort - d, agentsComponentPort: cfg.agentsComponentPort - d, calendarsComponentPort: cfg.calendarsComponentPort - d, httpPort: cfg.httpPort - d, node: 1 };
}

export const clustered = (cfg: ParleyConfig) => cfg.ejabberdNodes > 1;

export interface NodeHost {
  /** The host part of its Erlang node name. */
  name: string;
  /** Where its Erlang distribution listens (what `name` resolves to in every node's inetrc). */
  ip: [number, number, number, number];
  /** Where its client, component and HTTP listeners are. */
  listen: string;
}

/**
 * The simulated host of node i under `hosts` (hosts.ts; none: loopback addresses). Node 1 stays
 * in the root namespace, the operator's host: its listeners on 127.0.0.1 as a single node's, so
 * the admin URL, PARLEY_EXPOSE_ADDRESS and the one-node install are unchanged; with namespaces
 * only its distribution moves, to the bridge's address, where the other nodes reach it.
 */
export function nodeHost(i: number, hosts?: ClusterHosts): NodeHost {
  const name = i === 1 ? 'localhost' : `parley-node${i}`;
  if (hosts?.mode === 'netns' && hosts.subnet) {
    const ip = [...hosts.subnet.split('.').map(Number), i] as NodeHost['ip'];
    return { name, ip, listen: i === 1 ? '127.0.0.1' : ip.join('.') };
  }
  return { name, ip: i === 1 ? [127, 0, 0, 1] : [127, 0, 0, 10 + i], listen: '127.0.0.1' };
}

/** This node's host under the installation's recorded plan. */
export const hostOf = (cfg: ParleyConfig): NodeHost => nodeHost(cfg.node, readHosts(cfg));

/** The network namespace this node runs in, if any (node 1 never: the root namespace). */
export function nodeNetns(cfg: ParleyConfig): string | undefined {
  return cfg.node > 1 && readHosts(cfg)?.mode === 'netns' ? netnsName(cfg, cfg.node) : undefined;
}

/** Erlang node name: the single node's name of old for node 1, the same name on its own host for the others. */
export function nodeName(cfg: ParleyConfig): string {
  const base = cfg.node > 1 ? cfg.c2sPort - (cfg.node - 1) * cfg.ejabberdPortStep : cfg.c2sPort;
  return `parley${base}@${nodeHost(cfg.node).name}`; // the same names under either plan: a spool outlives a change of plan
}

/** Where agents may log in, in the order this account tries them (see startIndex). */
export interface Endpoint { host: string; port: number }

export function c2sEndpoints(cfg: ParleyConfig): Endpoint[] {
  return clusterNodes(cfg).map((n) => ({ host: n.host, port: n.c2sPort }));
}

/** Every node's listener for `rooms.<domain>` (default), `agents.<domain>` or `calendars.<domain>`: each host has its own (ejabberd.yml.tmpl). */
export function componentEndpoints(cfg: ParleyConfig, which: 'rooms' | 'agents' | 'calendars' = 'rooms'): Endpoint[] {
  const port = (n: ParleyConfig) => (which === 'agents' ? n.agentsComponentPort : which === 'calendars' ? n.calendarsComponentPort : n.componentPort);
  const hosts = readHosts(cfg);
  return clusterNodes(cfg, hosts).map((n) => ({ host: nodeHost(n.node, hosts).listen, port: port(n) }));
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

/**
 * inetrc lines naming every node's simulated host (all nodes and ejabberdctl resolve them). With
 * namespaces node 1's `localhost` is the bridge's address too: inside node i's namespace
 * 127.0.0.1 is node i itself. The first entry for a name wins (measured with OTP 25's inet_db),
 * so render.ts puts these before the template's own `localhost` line.
 */
export function inetrcHosts(cfg: ParleyConfig, hosts = readHosts(cfg)): string {
  if (!clustered(cfg)) return '';
  const all = clusterNodes(cfg, hosts).map((n) => nodeHost(n.node, hosts));
  return all.filter((h) => hosts?.mode === 'netns' || h.name !== 'localhost')
    .map((h) => `{host,{${h.ip.join(',')}}, ["${h.name}"]}.\n`).join('');
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
