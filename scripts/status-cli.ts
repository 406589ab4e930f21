// npm run status [-- --json]: every agent with its role, skills, presence and health.
// The rows come from the service layer (shared/ops/agents.ts: supervisor, DF, presence, shared
// with the console's GET /api/agents); this CLI adds an XEP-0199 ping from the admin account to
// each online agent's full JID, with RTT. Operator-side and local; it sends no FIPA envelope.
import { client, xml } from '@xmpp/client';
import { Command } from 'commander';
import { loadConfig } from '../shared/config/index.js';
import { closeApiAgent, credentialsFor, c2sEndpoints, portOpen } from '../shared/ejabberd/index.js';
import { agentSnapshot, componentJid } from '../shared/ops/index.js';
import { installationRoster } from '../shared/identity/index.js';
import { useRoleBook } from '../shared/runtime/index.js';

const opts = new Command('status').option('--json', 'print JSON').option('--ping-timeout <ms>', 'XEP-0199 ping timeout', '2000').parse().opts<{ json?: boolean; pingTimeout: string }>();
const cfg = loadConfig();
// Roles as the installation's agents see them: from its enrolment record (shared/identity/roster.ts).
useRoleBook(installationRoster(cfg.home));

type Ping = { ok: true; ms: number } | { ok: false; error: string };
const pingText = (p: Ping | undefined): string => (p === undefined ? '?' : p.ok ? `ok ${p.ms.toFixed(1)} ms` : `FAIL (${p.error})`);

/** `--json`: numbers, booleans and enums a program can use (issue 16), not the table's text. */
interface JsonRow {
  name: string;
  role: string;
  jid: string;
  did: string | null;
  skills: string[];
  /** null: not supervised (or no supervisor running). */
  /** last_error: why it is `failed` (it kept dying at start), else null. */
  supervisor: { status: string; pid: number | null; restarts: number; uptime_s: number | null; extra: boolean; last_error: string | null } | null;
  registered: boolean;
  /** Seconds since the Registry last heard its heartbeat; null when not registered. */
  heard_s_ago: number | null;
  lease_left_s: number | null;
  presence: 'online' | 'online-component' | 'offline';
  /** The ejabberd node its session is on (Erlang node name); null when offline. */
  node: string | null;
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
  node: string;
  ping: string;
}

async function ping(fullJids: string[], timeoutMs: number): Promise<Map<string, Ping>> {
  const out = new Map<string, Ping>();
  if (fullJids.length === 0) return out;
  const { password } = credentialsFor(cfg, 'admin');
  // The first node that accepts connections (a cluster may have lost node 1).
  const up = await Promise.all(c2sEndpoints(cfg).map((e) => portOpen(e.port, e.host)));
  const at = c2sEndpoints(cfg)[Math.max(0, up.indexOf(true))] as { host: string; port: number };
  const xmpp = client({ service: `xmpp://${at.host}:${at.port}`, domain: cfg.domain, resource: `status-${process.pid}`, credentials: (auth, mechs) => auth({ username: 'admin', password }, mechs.includes('PLAIN') ? 'PLAIN' : (mechs[0] as string)) });
  xmpp.on('error', () => undefined);
  await xmpp.start();
  try {
    await Promise.all(fullJids.map(async (jid) => {
      const t0 = performance.now();
      try {
        await xmpp.iqCaller.request(xml('iq', { type: 'get', to: jid }, xml('ping', { xmlns: 'urn:xmpp:ping' })), timeoutMs);
        out.set(jid, { ok: true, ms: performance.now() - t0 });
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
  const snap = await agentSnapshot(cfg);
  const targets = snap.agents.flatMap((a) => (a.resources.length ? a.resources : [componentJid(cfg, a.name)].filter((j): j is string => j !== undefined)));
  const pings = await ping(targets, Number(opts.pingTimeout))
    .catch((err: Error) => new Map<string, Ping>(targets.map((j) => [j, { ok: false, error: `not pinged: ${err.message}` }])));
  const json: JsonRow[] = [];
  const rows: Row[] = snap.agents.map((a) => {
    const s = a.supervisor;
    const viaComponent = componentJid(cfg, a.name);
    const componentPing = viaComponent ? pings.get(viaComponent) : undefined;
    const firstPing = a.resources.length ? pings.get(a.resources[0] ?? '') : componentPing;
    const supervised = s.pid !== null || s.kind !== null;
    json.push({
      name: a.name, role: a.role, jid: a.jid, did: a.did, skills: a.skills,
      supervisor: supervised ? { status: s.status, pid: s.pid, restarts: s.restarts, uptime_s: s.uptime_s, extra: s.extra, last_error: s.last_error ?? null } : null,
      registered: a.df.registered,
      heard_s_ago: a.df.last_seen_ms_ago === null ? null : Math.round(a.df.last_seen_ms_ago / 100) / 10,
      lease_left_s: a.df.lease_left_ms === null ? null : Math.round(a.df.lease_left_ms / 100) / 10,
      presence: a.resources.length ? 'online' : componentPing?.ok ? 'online-component' : 'offline',
      node: a.node,
      sessions: a.resources.length,
      ping_ms: firstPing?.ok ? Math.round(firstPing.ms * 10) / 10 : null,
      ping_ok: firstPing ? firstPing.ok : null,
      ...(firstPing && !firstPing.ok ? { ping_error: firstPing.error } : {}),
    });
    return {
      name: a.name,
      role: a.role,
      skills: a.skills,
      supervisor: s.pid !== null || s.kind !== null ? `${s.status}${s.pid ? ` pid ${s.pid}` : ''}${s.restarts ? ` restarts ${s.restarts}` : ''}${s.extra ? ' extra' : ''}` : s.status === 'unsupervised' ? 'not supervised' : 'no supervisor',
      registered: a.df.registered ? `yes (heard ${Math.round((a.df.last_seen_ms_ago ?? 0) / 100) / 10} s ago)` : '-',
      presence: a.resources.length ? `online (${a.resources.length})` : componentPing?.ok ? 'online (component)' : 'offline',
      node: a.node ?? '-',
      ping: a.resources.length ? a.resources.map((j) => pingText(pings.get(j))).join(', ') : (componentPing ? pingText(componentPing) : '-'),
    };
  });
  if (opts.json) {
    console.log(JSON.stringify({ supervisor: snap.supervisor, agents: json }, null, 2));
    return;
  }
  const head: Row = { name: 'AGENT', role: 'ROLE', skills: ['SKILLS'], supervisor: 'SUPERVISOR', registered: 'DF', presence: 'PRESENCE', node: 'NODE', ping: 'PING (XEP-0199)' };
  const cells = (r: Row) => [r.name, r.role, r.skills.join(',') || '-', r.supervisor, r.registered, r.presence, r.node, r.ping];
  const all = [head, ...rows].map(cells);
  const widths = all[0]!.map((_, i) => Math.max(...all.map((r) => r[i]!.length)));
  for (const r of all) console.log(r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd());
  const unhealthy = rows.filter((r) => r.presence === 'offline' || r.ping.includes('FAIL'));
  console.log(`${rows.length} agents, ${rows.length - unhealthy.length} online and answering pings${unhealthy.length ? `; check: ${unhealthy.map((r) => r.name).join(', ')}` : ''}`);
  // A specialist that kept dying at start is not restarted: say so, and why.
  for (const a of snap.agents) if (a.supervisor.status === 'failed') console.log(`${a.name} failed to start and is not restarted${a.supervisor.last_error ? `: ${a.supervisor.last_error}` : ''} (log: logs/${a.supervisor.name ?? a.name}.log)`);
}

main().then(
  () => closeApiAgent(),
  (err: Error) => {
    console.error(`status: ${err.message}`);
    closeApiAgent();
    process.exit(1);
  },
);
