// Every envelope every agent sent or received, queryable in one place (plan part 2 step 4):
// read-only over the agents' telemetry files ($PARLEY_HOME/telemetry/<agent>.sqlite), which the
// agents already write off the hot path. Used by `npm run trace -- --conversation` and the
// console's /api/messages and /api/conversations.
import type { ParleyConfig } from '../config/index.js';
import { paths } from '../config/index.js';
import { verifyEnvelope } from '../identity/index.js';
import { analyze, type Analysis, mermaid, table, type TraceRecord } from '../trace/index.js';
import { readConversation, telemetryFiles } from '../trace/collect.js';
import { readRows } from './data.js';
import { OpsError } from './errors.js';

export interface MessageQuery {
  conversation?: string;
  agent?: string;
  performative?: string;
  /** Leave out this content type (the sniffer hides HEARTBEAT unless asked). */
  exclude_content?: string;
  /** Epoch ms: only rows at or after. */
  since?: number;
  limit: number;
  /** Opaque: from the previous page's next_cursor. */
  cursor?: string;
  /** asc (default): oldest first, paging forward; desc: newest first, paging back in time. */
  order?: 'asc' | 'desc';
}

type Cursor = [at: number, agent: string, seq: number];

const encodeCursor = (c: Cursor) => Buffer.from(JSON.stringify(c)).toString('base64url');
function decodeCursor(text: string): Cursor {
  try {
    const c = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(c) && typeof c[0] === 'number' && typeof c[1] === 'string' && typeof c[2] === 'number') return c as Cursor;
  } catch {
    // falls through
  }
  throw new OpsError(400, 'INVALID_CURSOR', 'cursor is not one this API returned');
}

/** Oldest first from `since`/`cursor` (a client pages forward through time), or newest first. */
export function queryMessages(cfg: ParleyConfig, q: MessageQuery): { messages: TraceRecord[]; next_cursor: string | null } {
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (clause: string, ...values: unknown[]) => {
    where.push(clause);
    params.push(...values);
  };
  if (q.conversation) add('conversation_id = ?', q.conversation);
  if (q.agent) add('agent = ?', q.agent);
  if (q.performative) add('performative = ?', q.performative.toUpperCase());
  if (q.exclude_content) add('content_type IS NOT ?', q.exclude_content);
  if (q.since !== undefined) add('at >= ?', q.since);
  const desc = q.order === 'desc';
  if (q.cursor) add(`(at, agent, seq) ${desc ? '<' : '>'} (?, ?, ?)`, ...decodeCursor(q.cursor));
  const dir = desc ? 'DESC' : 'ASC';
  const sql = `SELECT * FROM envelopes ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY at ${dir}, agent ${dir}, seq ${dir} LIMIT ?`;
  const rows = telemetryFiles(paths(cfg).telemetry).flatMap((f) => readRows(f, sql, [...params, q.limit + 1]) as unknown as TraceRecord[]);
  rows.sort((a, b) => (desc ? -1 : 1) * (a.at - b.at || a.agent.localeCompare(b.agent) || a.seq - b.seq));
  const page = rows.slice(0, q.limit);
  const last = page.at(-1);
  return { messages: page, next_cursor: rows.length > q.limit && last ? encodeCursor([last.at, last.agent, last.seq]) : null };
}

export interface ConversationSummary {
  id: string;
  /** The person who asked (the Presenter's USER_MSG content.user), when a person took part. */
  person: string | null;
  started_at: number;
  ended_at: number;
  duration_ms: number;
  /** Envelopes sent (out rows). */
  hops: number;
  agents: string[];
  /** The last performative sent: INFORM, FAILURE, REFUSE, … */
  outcome: string | null;
}

interface ConvAgg { conversation_id: string; t0: number; t1: number; hops: number; person: string | null }
interface LastOut { conversation_id: string; performative: string | null; at: number }

/**
 * The newest conversations a person took part in (a USER_MSG: the Presenter's, which the
 * Coordinator received too), leaving out the agents' housekeeping (registrations, DF changes,
 * lease renewals), which outnumbers them on a quiet system.
 */
function peoplesConversations(files: readonly string[], limit: number, before: number | undefined): string[] {
  const sql = `SELECT conversation_id, MIN(at) AS t0 FROM envelopes WHERE content_type = 'USER_MSG' AND conversation_id IS NOT NULL
    ${before !== undefined ? 'AND at < ?' : ''} GROUP BY conversation_id ORDER BY t0 DESC LIMIT ?`;
  const t0 = new Map<string, number>();
  for (const file of files) {
    for (const r of readRows(file, sql, [...(before !== undefined ? [before] : []), limit]) as unknown as Array<{ conversation_id: string; t0: number }>) {
      t0.set(r.conversation_id, Math.min(t0.get(r.conversation_id) ?? Infinity, r.t0));
    }
  }
  return [...t0].sort((a, b) => b[1] - a[1]).slice(0, limit).map(([id]) => id);
}

/**
 * Newest first. `before`: only conversations that started before (epoch ms), for paging;
 * `people`: only those a person took part in.
 */
export function listConversations(cfg: ParleyConfig, { limit = 50, before, people = false }: { limit?: number; before?: number; people?: boolean } = {}): ConversationSummary[] {
  const byId = new Map<string, ConversationSummary & { lastAt: number }>();
  const files = telemetryFiles(paths(cfg).telemetry);
  const only = people ? JSON.stringify(peoplesConversations(files, limit, before)) : undefined;
  // The person is named in the USER_MSG the Presenter sends (content.user).
  const sql = `SELECT conversation_id, MIN(at) AS t0, MAX(at) AS t1, SUM(direction = 'out') AS hops,
      MAX(CASE WHEN content_type = 'USER_MSG' THEN json_extract(body, '$.content.user') END) AS person
    FROM envelopes WHERE ${only !== undefined ? 'conversation_id IN (SELECT value FROM json_each(?))' : 'conversation_id IS NOT NULL'}
    ${before !== undefined ? 'AND at < ?' : ''} GROUP BY conversation_id ORDER BY t0 DESC LIMIT ?`;
  // One aggregate: SQLite takes the bare column (performative) from the row with the latest time.
  const lastSql = `SELECT conversation_id, performative, MAX(at) AS at FROM envelopes
    WHERE direction = 'out' AND conversation_id IN (SELECT value FROM json_each(?)) GROUP BY conversation_id`;
  for (const file of files) {
    const agent = file.replace(/^.*\//, '').replace(/\.sqlite$/, '');
    for (const r of readRows(file, sql, [...(only !== undefined ? [only] : []), ...(before !== undefined ? [before] : []), limit * 4]) as unknown as ConvAgg[]) {
      const c = byId.get(r.conversation_id) ?? { id: r.conversation_id, person: null, started_at: r.t0, ended_at: r.t1, duration_ms: 0, hops: 0, agents: [], outcome: null, lastAt: -1 };
      c.started_at = Math.min(c.started_at, r.t0);
      c.ended_at = Math.max(c.ended_at, r.t1);
      c.hops += r.hops;
      c.agents.push(agent);
      c.person ??= r.person;
      c.duration_ms = c.ended_at - c.started_at;
      byId.set(c.id, c);
    }
  }
  const page = [...byId.values()].sort((a, b) => b.started_at - a.started_at).slice(0, limit);
  const ids = JSON.stringify(page.map((c) => c.id));
  for (const file of files) {
    for (const r of readRows(file, lastSql, [ids]) as unknown as LastOut[]) {
      const c = byId.get(r.conversation_id);
      if (c && r.at > c.lastAt) Object.assign(c, { lastAt: r.at, outcome: r.performative });
    }
  }
  return page.map(({ lastAt: _lastAt, ...c }) => c);
}

export interface Hop {
  from: string;
  to: string;
  performative: string;
  content_type: string | null;
  reply_with: string;
  in_reply_to: string | null;
  sent_at: number | null;
  received_at: number | null;
  /** Wire time: the receiver's in row minus the sender's out row (same host clock). */
  transit_ms: number | null;
  /** Ed25519 signature over JCS(envelope), checked against its sender_did (stateless). */
  signature: { ok: boolean; did?: string; code?: string; detail?: string };
  envelope: unknown;
}

export interface ConversationDetail {
  id: string;
  analysis: Pick<Analysis, 'violations' | 'durationMs' | 't0'>;
  hops: Hop[];
  notes: { agent: string; at: number; decision: string; body: unknown }[];
  records: TraceRecord[];
  mermaid: string;
  table: string;
}

const parse = (text: string | null): unknown => {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

function signatureOf(envelope: unknown): Hop['signature'] {
  const v = verifyEnvelope(envelope, { maxAgeMs: Number.MAX_SAFE_INTEGER, maxFutureMs: Number.MAX_SAFE_INTEGER });
  return v.ok ? { ok: true, did: v.did } : { ok: false, code: v.code, detail: v.detail };
}

export function analyseConversation(cfg: ParleyConfig, id: string, rows: TraceRecord[] = readConversation(paths(cfg).telemetry, id)): ConversationDetail {
  if (rows.length === 0) throw new OpsError(404, 'NO_SUCH_CONVERSATION', `no telemetry for conversation ${id}`);
  const a = analyze(rows, { conversationId: id, domain: cfg.domain });
  const hops = a.messages.map((m): Hop => {
    const envelope = parse(m.out?.body ?? m.in?.body ?? null);
    const sent = m.out?.at ?? null;
    const received = m.in?.at ?? null;
    return {
      from: m.sender, to: m.receiver, performative: m.performative, content_type: m.content_type, reply_with: m.reply_with,
      in_reply_to: m.in_reply_to, sent_at: sent, received_at: received,
      transit_ms: sent !== null && received !== null ? received - sent : null,
      signature: signatureOf(envelope), envelope,
    };
  });
  return {
    id,
    analysis: { violations: a.violations, durationMs: a.durationMs, t0: a.t0 },
    hops,
    notes: a.notes.map((n) => ({ agent: n.agent, at: n.at, decision: n.decision, body: parse(n.body) })),
    records: a.records,
    mermaid: mermaid(a),
    table: table(a),
  };
}
