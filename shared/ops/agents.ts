// Every agent as the operator sees it, merged from three sources (used by `npm run status`,
// `npm run spawn` and the console's /api/agents):
//   supervisor  GET /agents on the local control socket (status, pid, restarts), when one runs
//   directory   the DF's registrations ($PARLEY_HOME/data/registry.sqlite, read-only): role, skills, DID, lease
//   presence    ejabberd's connected sessions and the cluster node of each (connected_users_info)
// plus, on request, an XEP-0199 ping to each online agent (ping.ts).
import fs from 'node:fs';
import path from 'node:path';
import { loadTunables, type ParleyConfig, paths } from '../config/index.js';
import { type ComponentConnection, componentConnections } from '../ejabberd/index.js';
import { connectedSessions } from '../ejabberd/operator.js';
import { agentsDomain, calendarsDomain, identify, jidOfName, roomsDomain } from '../runtime/index.js';
import { SqliteDirectoryStore, type DirectoryRecord } from '../store/index.js';
import type { ChildInfo } from '../supervisor/index.js';
import { controlRequest } from '../supervisor/ipc.js';
import { OpsError } from './errors.js';

export type Presence = 'online' | 'component' | 'offline' | 'unknown';

export interface AgentRow {
  name: string;
  role: string;
  jid: string;
  did: string | null;
  skills: string[];
  /** `name` is the supervisor's (and the log file's) name, which POST /api/agents/{name}/stop takes. */
  supervisor: { name: string | null; status: ChildInfo['status'] | 'unsupervised' | 'no-supervisor'; pid: number | null; restarts: number; uptime_s: number | null; kind: string | null; extra: boolean; last_error?: string };
  presence: Presence;
  /** Connected XMPP resources (full JIDs). */
  resources: string[];
  /**
   * The ejabberd node (Erlang node name) its first session is on, or for an agent hosted by a
   * component process (rooms, a specialist host's virtual agents) the node that process's
   * component connection goes to; null when offline or not known (issue #14: a cluster).
   */
  node: string | null;
  /** The DF's entry; the lease runs lease_ms from the last REGISTER/HEARTBEAT (PARLEY_LEASE_MS). */
  df: { registered: boolean; registered_at: number | null; last_seen_ms_ago: number | null; lease_ms: number; lease_left_ms: number | null };
}

export interface AgentSnapshot {
  agents: AgentRow[];
  supervisor: boolean;
}

function directoryRecords(cfg: ParleyConfig): DirectoryRecord[] {
  const dbFile = path.join(paths(cfg).data, 'registry.sqlite');
  if (!fs.existsSync(dbFile)) return [];
  const store = new SqliteDirectoryStore(dbFile);
  try {
    return store.all();
  } finally {
    store.close();
  }
}

/** Rooms live in the XEP-0114 component, which has no c2s session: their JID is the component's. */
export const componentJid = (cfg: ParleyConfig, name: string) =>
  (name === 'rooms' ? roomsDomain(cfg.domain) : name.startsWith('room-') ? jidOfName(name, cfg.domain) : undefined);

/**
 * The node of the component connection serving `jid` (rooms.<domain>, agents.<domain>,
 * calendars.<domain>), read from the hosting process's sockets (component-sockets.ts): the rooms
 * or calendar process, or the specialist host named like the agent (vs-0001 → agents-vs, or its
 * shards agents-vs-*, when they all sit on one node). While a connection moves home the process
 * holds two; the home one (lowest node) already carries its outbound stanzas.
 */
function componentNode(cfg: ParleyConfig, jid: string, children: ChildInfo[], conns: (pid: number) => ComponentConnection[]): string | null {
  const at = jid.lastIndexOf('@'); // rooms.<domain> itself has no local part
  const [local, host] = [jid.slice(0, Math.max(0, at)).toLowerCase(), jid.slice(at + 1).toLowerCase()];
  const which = host === roomsDomain(cfg.domain) ? 'rooms' : host === agentsDomain(cfg.domain) ? 'agents' : host === calendarsDomain(cfg.domain) ? 'calendars' : undefined;
  if (which === undefined) return null;
  const owner = local.replace(/-\d+$/, '');
  const hosts = children.filter((c) => c.pid !== null && (which !== 'agents' || c.name === `agents-${owner}` || c.name.startsWith(`agents-${owner}-`)));
  const nodes = new Set(hosts.flatMap((c) => conns(c.pid as number).filter((x) => x.which === which).slice(0, 1).map((x) => x.nodeName)));
  return nodes.size === 1 ? [...nodes][0] as string : null;
}

export async function agentSnapshot(cfg: ParleyConfig): Promise<AgentSnapshot> {
  const sup = await controlRequest(cfg, 'GET', '/agents').catch(() => undefined);
  // The console is supervised like an agent but is none: it has no account and sends no envelope.
  const children = ((sup?.body.agents ?? []) as ChildInfo[]).filter((c) => c.kind !== 'console');
  const records = directoryRecords(cfg);
  const sessions = (await connectedSessions(cfg))
    .map((s) => ({ full: s.jid, node: s.node, id: identify(s.jid, cfg.domain) }))
    .filter((s) => !['person', 'foreign', 'admin'].includes(s.id.role));
  const nameOfChild = (c: ChildInfo) => identify(`${c.name}@${cfg.domain}`, cfg.domain).name;
  // Each process's sockets read once per snapshot, not once per hosted agent.
  const byPid = new Map<number, ComponentConnection[]>();
  const conns = (pid: number) => byPid.get(pid) ?? byPid.set(pid, componentConnections(cfg, pid)).get(pid) as ComponentConnection[];
  const names = new Set([...children.map(nameOfChild), ...records.map((r) => r.profile.name), ...sessions.map((s) => s.id.name)]);
  const now = Date.now();
  const { leaseMs } = loadTunables(process.env, cfg.domain);
  const agents = [...names].sort().map((name): AgentRow => {
    const c = children.find((x) => nameOfChild(x) === name);
    const r = records.find((x) => x.profile.name === name);
    const own = sessions.filter((s) => s.id.name === name);
    const viaComponent = componentJid(cfg, name);
    const viaComponentUp = viaComponent !== undefined && children.some((x) => x.name === 'rooms' && x.status === 'ready');
    return {
      name,
      role: r?.profile.role ?? c?.role ?? (c?.kind === 'core' ? c.name : name === 'rooms' ? 'room host' : identify(jidOfName(name, cfg.domain), cfg.domain).role),
      jid: r?.profile.jid ?? viaComponent ?? jidOfName(name, cfg.domain),
      did: r?.profile.did ?? null,
      skills: r?.profile.skills ?? c?.experts ?? [],
      supervisor: c
        ? { name: c.name, status: c.status, pid: c.pid, restarts: c.restarts, uptime_s: c.uptime_s, kind: c.kind, extra: c.extra === true, ...(c.last_error ? { last_error: c.last_error } : {}) }
        : { name: null, status: sup ? 'unsupervised' : 'no-supervisor', pid: null, restarts: 0, uptime_s: null, kind: null, extra: false },
      presence: own.length ? 'online' : viaComponentUp ? 'component' : 'offline',
      resources: own.map((s) => s.full),
      node: own[0]?.node ?? (own.length === 0 && children.length > 0 ? componentNode(cfg, r?.profile.jid ?? viaComponent ?? '', children, conns) : null),
      df: { registered: r !== undefined, registered_at: r?.registered_at ?? null, last_seen_ms_ago: r ? now - r.last_seen : null, lease_ms: leaseMs, lease_left_ms: r ? Math.max(0, r.last_seen + leaseMs - now) : null },
    };
  });
  return { agents, supervisor: sup !== undefined };
}

export interface SpawnRequest {
  name: string;
  role?: string;
  skills: string[];
  /** A specialist host: `name` serves this many virtual agents (agents/specialist/host.ts). */
  count?: number;
  /** With count: which of PARLEY_AGENTS_SHARDS processes this one is. */
  shard?: string;
}

/** One more specialist under the running supervisor; resolves once the Registry accepted it. */
export async function spawnSpecialist(cfg: ParleyConfig, req: SpawnRequest): Promise<{ agent: ChildInfo; ready_ms: number }> {
  const res = await controlRequest(cfg, 'POST', '/spawn', { kind: 'specialist', name: req.name, skills: req.skills, ...(req.role ? { role: req.role } : {}), ...(req.count ? { count: req.count } : {}), ...(req.shard ? { shard: req.shard } : {}) });
  if (!res) throw new OpsError(503, 'NO_SUPERVISOR', 'no supervisor runs for this PARLEY_HOME (npm start)');
  if (res.status !== 201) throw new OpsError(res.status, String(res.body.error), String(res.body.detail));
  return res.body as unknown as { agent: ChildInfo; ready_ms: number };
}

/** Stops a supervised agent and keeps it down (the supervisor's POST /stop). */
export async function stopAgent(cfg: ParleyConfig, name: string): Promise<ChildInfo> {
  const res = await controlRequest(cfg, 'POST', '/stop', { name });
  if (!res) throw new OpsError(503, 'NO_SUPERVISOR', 'no supervisor runs for this PARLEY_HOME (npm start); nothing to stop');
  if (res.status === 404) {
    const running = await controlRequest(cfg, 'GET', '/agents').catch(() => undefined);
    const names = ((running?.body.agents ?? []) as ChildInfo[]).map((a) => a.name);
    throw new OpsError(404, 'NO_SUCH_AGENT', `no agent named ${name}${names.length ? `; running: ${names.join(', ')}` : ''}`);
  }
  if (res.status !== 200) throw new OpsError(res.status, String(res.body.error), String(res.body.detail));
  return res.body.agent as ChildInfo;
}
