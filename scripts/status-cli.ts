// npm run status [-- --json]: every agent with its role, skills, presence and health.
//   supervisor  GET /agents on the local control socket (status, pid, restarts), when one runs
//   directory   the DF's registrations ($PARLEY_HOME/data/registry.sqlite, read-only): role, skills, lease
//   presence    ejabberd's connected sessions (mod_http_api connected_users): online resources
//   health      XEP-0199 ping from the admin account to each online agent's full JID, with RTT
// Operator-side and local, like the other CLIs; it sends no FIPA envelope.
import fs from 'node:fs';
import path from 'node:path';
import { client, xml } from '@xmpp/client';
import { Command } from 'commander';
import { loadConfig, paths } from '../shared/config/index.js';
import { api, closeApiAgent } from '../shared/ejabberd/api.js';
import { credentialsFor } from '../shared/ejabberd/accounts.js';
import { identify, jidOfName, roomsDomain } from '../shared/runtime/names.js';
import { SqliteDirectoryStore } from '../shared/store/directory.js';
import type { ChildInfo } from '../shared/supervisor/child.js';
import { controlRequest } from '../shared/supervisor/control.js';

const opts = new Command('status').option('--json', 'print JSON').option('--ping-timeout <ms>', 'XEP-0199 ping timeout', '2000').parse().opts<{ json?: boolean; pingTimeout: string }>();
const cfg = loadConfig();

type Ping = { ok: true; ms: number } | { ok: false; error: string };
const pingText = (p: Ping | undefined): string => (p === undefined ? '?' : p.ok ? `ok ${p.ms.toFixed(1)} ms` : `FAIL (${p.error})`);

/** `--json`: numbers, booleans and enums a program can use (issue 16), not the table's text. */
interface JsonRow {
  name: string;
  role: string;
  skills: string[];
  /** null: not supervised (or no supervisor running). */
  supervisor: { status: ChildInfo['status']; pid: number | null; restarts: number; uptime_s: number | null; extra: boolean } | null;
  registered: boolean;
  /** Seconds since the Registry last heard its heartbeat; null when not registered. */
  heard_s_ago: number | null;
  presence: 'online' | 'online-component' | 'offline';
  /** Connected XMPP sessions (resources). */
  sessions: number;
  /** XEP-0199 round trip of the first session (or the component), ms; null when not pinged or it failed. */
  ping_ms: number | null;
  ping_ok: boolean | null;
  ping_error?: string;
}

interface Row {
  name: string;
  role: string;
  skills: string[];
  supervisor: string;
  registered: string;
  presence: string;
  ping: string;
}

async function ping(fullJids: string[], timeoutMs: number): Promise<Map<string, Ping>> {
  const out = new Map<string, Ping>();
  if (fullJids.length === 0) return out;
  const { password } = credentialsFor(cfg, 'admin');
  const xmpp = client({ service: `xmpp://${cfg.host}:${cfg.c2sPort}`, domain: cfg.domain, resource: `status-${process.pid}`, credentials: (auth, mechs) => auth({ username: 'admin', password }, mechs.includes('PLAIN') ? 'PLAIN' : (mechs[0] as string)) });
  xmpp.on('error', () => undefined);
  await xmpp.start();
  try {
    await Promise.all(fullJids.map(async (jid) => {
      const t0 = performance.now();
      try {
        await xmpp.iqCaller.request(xml('iq', { type: 'get', to: jid }, xml('ping', { xmlns: 'urn:xmpp:ping' })), timeoutMs);
        out.set(jid, { ok: true, ms: Math.round((performance.now() - t0) * 10) / 10 });
      } catch (err) {
        out.set(jid, { ok: false, error: (err as Error).name === 'TimeoutError' ? `no answer in ${timeoutMs} ms` : (err as Error).message });
      }
    }));
  } finally {
    await xmpp.stop().catch(() => undefined);
  }
  return out;
}

async function main(): Promise<void> {
  const sup = await controlRequest(cfg, 'GET', '/agents').catch(() => undefined);
  const children = (sup?.body.agents ?? []) as ChildInfo[];
  const dbFile = path.join(paths(cfg).data, 'registry.sqlite');
  const records = fs.existsSync(dbFile) ? (() => {
    const store = new SqliteDirectoryStore(dbFile);
    try {
      return store.all();
    } finally {
      store.close();
    }
  })() : [];
  const sessions = (await api.connectedUsers(cfg).catch(() => [] as string[]))
    .map((full) => ({ full, id: identify(full, cfg.domain) }))
    .filter((s) => !['person', 'foreign'].includes(s.id.role) || s.id.name.startsWith('admin'));
  const agentSessions = sessions.filter((s) => s.id.role !== 'admin');
  const pings = await ping(agentSessions.map((s) => s.full), Number(opts.pingTimeout)).catch((err: Error) => new Map<string, Ping>(agentSessions.map((s) => [s.full, { ok: false, error: `not pinged: ${err.message}` }])));

  const nameOfChild = (c: ChildInfo) => identify(`${c.name}@${cfg.domain}`, cfg.domain).name;
  const names = new Set([...children.map(nameOfChild), ...records.map((r) => r.profile.name), ...agentSessions.map((s) => s.id.name)]);
  // Rooms live in the XEP-0114 component, which has no c2s session: ping each room's JID, and
  // the component's domain for the process that hosts them.
  const componentJid = (name: string) => (name === 'rooms' ? roomsDomain(cfg.domain) : name.startsWith('room-') ? jidOfName(name, cfg.domain) : undefined);
  const componentTargets = [...names].map(componentJid).filter((j): j is string => j !== undefined);
  const componentPings = await ping(componentTargets, Number(opts.pingTimeout)).catch((err: Error) => new Map<string, Ping>(componentTargets.map((j) => [j, { ok: false, error: `not pinged: ${err.message}` }])));
  const json: JsonRow[] = [];
  const rows: Row[] = [...names].sort().map((name) => {
    const c = children.find((x) => nameOfChild(x) === name);
    const r = records.find((x) => x.profile.name === name);
    const own = agentSessions.filter((s) => s.id.name === name);
    const viaComponent = componentJid(name);
    const componentPing = viaComponent ? componentPings.get(viaComponent) : undefined;
    const age = r ? Math.round((Date.now() - r.last_seen) / 100) / 10 : undefined;
    const firstPing = own.length ? pings.get(own[0]?.full ?? '') : componentPing;
    const role = r?.profile.role ?? c?.role ?? (c?.kind === 'core' ? c.name : name === 'rooms' ? 'room host' : identify(jidOfName(name, cfg.domain), cfg.domain).role);
    json.push({
      name, role, skills: r?.profile.skills ?? c?.experts ?? [],
      supervisor: c ? { status: c.status, pid: c.pid, restarts: c.restarts, uptime_s: c.uptime_s, extra: c.extra === true } : null,
      registered: r !== undefined, heard_s_ago: age ?? null,
      presence: own.length ? 'online' : componentPing?.ok ? 'online-component' : 'offline',
      sessions: own.length,
      ping_ms: firstPing?.ok ? firstPing.ms : null, ping_ok: firstPing ? firstPing.ok : null,
      ...(firstPing && !firstPing.ok ? { ping_error: firstPing.error } : {}),
    });
    return {
      name,
      role: r?.profile.role ?? c?.role ?? (c?.kind === 'core' ? c.name : name === 'rooms' ? 'room host' : identify(jidOfName(name, cfg.domain), cfg.domain).role),
      skills: r?.profile.skills ?? c?.experts ?? [],
      supervisor: c ? `${c.status}${c.pid ? ` pid ${c.pid}` : ''}${c.restarts ? ` restarts ${c.restarts}` : ''}${c.extra ? ' extra' : ''}` : sup ? 'not supervised' : 'no supervisor',
      registered: r ? `yes (heard ${age} s ago)` : '-',
      presence: own.length ? `online (${own.length})` : componentPing?.ok ? 'online (component)' : 'offline',
      ping: own.length ? own.map((s) => pingText(pings.get(s.full))).join(', ') : (componentPing ? pingText(componentPing) : '-'),
    };
  });
  if (opts.json) {
    console.log(JSON.stringify({ supervisor: sup !== undefined, agents: json }, null, 2));
    return;
  }
  const head: Row = { name: 'AGENT', role: 'ROLE', skills: ['SKILLS'], supervisor: 'SUPERVISOR', registered: 'DF', presence: 'PRESENCE', ping: 'PING (XEP-0199)' };
  const cells = (r: Row) => [r.name, r.role, r.skills.join(',') || '-', r.supervisor, r.registered, r.presence, r.ping];
  const all = [head, ...rows].map(cells);
  const widths = all[0]!.map((_, i) => Math.max(...all.map((r) => r[i]!.length)));
  for (const r of all) console.log(r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd());
  const unhealthy = rows.filter((r) => r.presence === 'offline' || r.ping.includes('FAIL'));
  console.log(`${rows.length} agents, ${rows.length - unhealthy.length} online and answering pings${unhealthy.length ? `; check: ${unhealthy.map((r) => r.name).join(', ')}` : ''}`);
}

main().then(
  () => closeApiAgent(),
  (err: Error) => {
    console.error(`status: ${err.message}`);
    closeApiAgent();
    process.exit(1);
  },
);
