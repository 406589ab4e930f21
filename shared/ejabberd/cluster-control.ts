// Start, join, stop and inspect every node of the cluster (cluster.ts). With one node (the
// default) each call is the single node's own, unchanged.
import { type ParleyConfig } from '../config/index.js';
import { api, isAuthRefusal } from './api.js';
import { clusterNodes, nodeConfig } from './cluster.js';
import * as node from './control.js';
import { waitFor } from './ports.js';
import { nodeName } from './render.js';

export interface NodeStatus extends node.InstanceStatus {
  index: number;
  c2sPort: number;
  /** Erlang nodes this node sees in its cluster (`ejabberdctl list_cluster`), when running. */
  cluster?: string[];
}

/** `ejabberdctl list_cluster` on one node: the node names of its Mnesia cluster. */
export async function listCluster(cfg: ParleyConfig): Promise<string[]> {
  const { stdout } = await node.ctl(cfg, 'list_cluster');
  return stdout.split('\n').map((l) => l.trim().replace(/^'|'$/g, '')).filter(Boolean);
}

/**
 * Every node at once: Mnesia on a node that did not go down last waits for the others' tables
 * before it serves (a node killed while its peer ran, then both stopped), so starting them one by
 * one could wait forever on the first. A node whose spool is not yet in the cluster (a new one)
 * joins node 1 with `ejabberdctl join_cluster` (it restarts, replaces its database with the
 * cluster's and serves again); a known one rejoins by itself when it starts (its Mnesia schema
 * lists the others).
 */
export async function startCluster(cfg: ParleyConfig, { timeoutMs = 60000 } = {}): Promise<NodeStatus[]> {
  const nodes = clusterNodes(cfg);
  if (nodes.length === 1) return [{ ...(await node.start(cfg, { timeoutMs })), index: 1, c2sPort: cfg.c2sPort }];
  await Promise.all(nodes.map((n) => node.start(n, { timeoutMs, admin: n.node === 1 })));
  const first = nodes[0] as ParleyConfig;
  for (const n of nodes.slice(1)) await join(n, first, timeoutMs);
  return clusterStatus(cfg);
}

/** Starts node `i` alone (it rejoins, or joins, the running cluster). */
export async function startNode(cfg: ParleyConfig, i: number, { timeoutMs = 60000 } = {}): Promise<void> {
  const n = nodeConfig(cfg, i);
  await node.start(n, { timeoutMs, admin: i === 1 });
  if (i > 1) await join(n, nodeConfig(cfg, 1), timeoutMs);
}

async function join(n: ParleyConfig, first: ParleyConfig, timeoutMs: number): Promise<void> {
  const members = await listCluster(first);
  if (!members.includes(nodeName(n))) {
    await node.ctl(n, 'join_cluster', nodeName(first)).catch((err: Error) => {
      throw new Error(`node ${n.node} (${nodeName(n)}) could not join ${nodeName(first)}: ${err.message}`);
    });
    // Measured: a node that just joined refuses the admin until its auth cache is cleared.
    await node.ctl(n, 'clear_cache').catch(() => undefined);
  }
  // Joined: the admin account (and every other) now comes from the cluster's database. A login
  // looked up while the node was still alone (or joining) is cached as unknown (ejabberd's auth
  // cache, one hour): clear it until the admin is known here.
  await waitFor(async () => {
    const ok = await api.status(n).then(() => true, (err: unknown) => (isAuthRefusal(err) ? 'refused' : false));
    if (ok === 'refused') await node.ctl(n, 'clear_cache').catch(() => undefined);
    return ok === true;
  }, { timeoutMs, intervalMs: 200, what: `node ${n.node} to serve the cluster's accounts` });
}

/** Stops the nodes, node 1 last: the last to stop holds the newest tables and starts first next time. */
export async function stopCluster(cfg: ParleyConfig): Promise<boolean> {
  let any = false;
  for (const n of clusterNodes(cfg).reverse()) any = (await node.stop(n)) || any;
  return any;
}

export async function clusterStatus(cfg: ParleyConfig): Promise<NodeStatus[]> {
  const nodes = clusterNodes(cfg);
  return Promise.all(nodes.map(async (n) => {
    const st = await node.status(n);
    const cluster = st.running && nodes.length > 1 ? await listCluster(n).catch(() => undefined) : undefined;
    return { ...st, index: n.node, c2sPort: n.c2sPort, ...(cluster ? { cluster } : {}) };
  }));
}

/** Kills node `i` without a clean shutdown (tests of failover). */
export function killNode(cfg: ParleyConfig, i: number): boolean {
  return node.kill(nodeConfig(cfg, i));
}

/**
 * Every session of the cluster with the Erlang node that holds it (`connected_users_info`,
 * cluster-wide through Mnesia's session table): any running node answers, so a dead node 1 does
 * not hide the others'. Empty when no node answers.
 */
export async function connectedSessions(cfg: ParleyConfig): Promise<Array<{ jid: string; node: string }>> {
  for (const n of clusterNodes(cfg)) {
    try {
      return await api.connectedUsersInfo(n);
    } catch { /* this node is down: ask the next */ }
  }
  return [];
}
