// Start, join, stop and inspect every node of the cluster (cluster.ts). With one node (the
// default) each call is the single node's own, unchanged.
import { type ParleyConfig } from '../config/index.js';
import { api, isAuthRefusal } from './api.js';
import { clusterNodes, nodeConfig } from './cluster.js';
import { ensureHosts, removeHosts } from './hosts.js';
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
 * one could wait forever on the first. Nodes that already run are the cluster: every other node
 * joins through one of them (join below), node 1 included, so a node 1 that died and comes back
 * (even with a new, empty spool) rejoins the survivors instead of starting a cluster of its own.
 * When none runs, node 1 is the seed, as at a first start.
 */
export async function startCluster(cfg: ParleyConfig, { timeoutMs = 60000 } = {}): Promise<NodeStatus[]> {
  if (cfg.ejabberdNodes === 1) return [{ ...(await node.start(cfg, { timeoutMs })), index: 1, c2sPort: cfg.c2sPort }];
  // The separate hosts first (hosts.ts): running nodes keep theirs, the others get theirs made.
  const running = (await runningNodes(clusterNodes(cfg))).map((n) => n.node);
  await ensureHosts(cfg, cfg.ejabberdNodes, running);
  const nodes = clusterNodes(cfg);
  const survivors = nodes.filter((n) => running.includes(n.node));
  // Only a seed of a brand-new cluster creates the admin with ejabberdctl: a node that joins gets
  // it, with every other account, from the cluster's database.
  await Promise.all(nodes.map((n) => node.start(n, { timeoutMs, admin: survivors.length === 0 && n.node === 1 })));
  const members = survivors.length > 0 ? await largestGroup(survivors) : [nodes[0] as ParleyConfig];
  for (const n of nodes) if (!members.includes(n)) await join(n, members, timeoutMs);
  return clusterStatus(cfg);
}

/**
 * Starts node `i` alone. If any other node runs, node `i` (node 1 too) joins, or rejoins, the
 * cluster through whichever of them answers (docs/cluster.md "Start, join, stop"); if none does,
 * node `i` starts on its own spool: node 1 then seeds a cluster (admin account), any other node
 * waits in Mnesia for its peers' tables as at a full restart.
 */
export async function startNode(cfg: ParleyConfig, i: number, { timeoutMs = 60000 } = {}): Promise<void> {
  const running = (await runningNodes(clusterNodes(cfg))).map((p) => p.node);
  await ensureHosts(cfg, cfg.ejabberdNodes, running);
  const n = nodeConfig(cfg, i);
  const peers = clusterNodes(cfg).filter((p) => p.node !== i && running.includes(p.node));
  await node.start(n, { timeoutMs, admin: i === 1 && peers.length === 0 });
  if (peers.length > 0) await join(n, peers, timeoutMs);
}

/** The nodes of `nodes` that run now (ports open, HTTP API answering). */
async function runningNodes(nodes: ParleyConfig[]): Promise<ParleyConfig[]> {
  const up = await Promise.all(nodes.map((n) => node.status(n).then((st) => st.running, () => false)));
  return nodes.filter((_, k) => up[k]);
}

/**
 * The running nodes that form the largest cluster among `running` (by their `list_cluster`): a
 * node left alone by an earlier start that failed to join is not taken for the cluster; it joins.
 */
async function largestGroup(running: ParleyConfig[]): Promise<ParleyConfig[]> {
  const lists = await Promise.all(running.map((n) => listCluster(n).catch(() => [] as string[])));
  let best = 0;
  lists.forEach((l, k) => { if (l.length > (lists[best] as string[]).length) best = k; });
  const names = lists[best] as string[];
  const group = running.filter((n) => names.includes(nodeName(n)));
  return group.length > 0 ? group : [running[0] as ParleyConfig];
}

/**
 * Makes `n` a member of the cluster that `members` run. ejabberd 23.01's join_cluster
 * (ejabberd_cluster_mnesia:join) pings the given node, deletes the joining node's own Mnesia
 * schema, adds the given node as extra_db_nodes and copies every table from it: any running
 * member will do, so each is tried in turn until one accepts. A node already listed by a member's
 * `list_cluster` (Mnesia's running_db_nodes) rejoined by itself from its schema and must not join
 * again (that would throw its tables away for nothing).
 */
async function join(n: ParleyConfig, members: ParleyConfig[], timeoutMs: number): Promise<void> {
  const tried: string[] = [];
  let joined = false;
  for (const m of members) {
    const running = await listCluster(m).catch((err: Error) => { tried.push(`${nodeName(m)}: ${err.message.split('\n')[0]}`); return undefined; });
    if (running === undefined) continue;
    if (running.includes(nodeName(n))) { joined = true; break; }
    const ok = await node.ctl(n, 'join_cluster', nodeName(m)).then(() => true, (err: Error) => {
      tried.push(`${nodeName(m)}: ${err.message.split('\n')[0]}`);
      return false;
    });
    if (!ok) continue;
    // Measured: a node that just joined refuses the admin until its auth cache is cleared.
    await node.ctl(n, 'clear_cache').catch(() => undefined);
    joined = true;
    break;
  }
  if (!joined) throw new Error(`node ${n.node} (${nodeName(n)}) could not join the cluster through any running node: ${tried.join('; ') || 'none runs'}`);
  // Joined: the admin account (and every other) now comes from the cluster's database. A login
  // looked up while the node was still alone (or joining) is cached as unknown (ejabberd's auth
  // cache, one hour): clear it until the admin is known here.
  await waitFor(async () => {
    const ok = await api.status(n).then(() => true, (err: unknown) => (isAuthRefusal(err) ? 'refused' : false));
    if (ok === 'refused') await node.ctl(n, 'clear_cache').catch(() => undefined);
    return ok === true;
  }, { timeoutMs, intervalMs: 200, what: `node ${n.node} to serve the cluster's accounts` });
}

/**
 * Stops the nodes, node 1 last: the last to stop holds the newest tables and starts first next
 * time. Then the nodes' network namespaces, veths and bridge go (hosts.ts), even if a node would not stop.
 */
export async function stopCluster(cfg: ParleyConfig): Promise<boolean> {
  let any = false;
  try {
    for (const n of clusterNodes(cfg).reverse()) any = (await node.stop(n)) || any;
  } finally {
    await removeHosts(cfg);
  }
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
