// The console's live view: it tails every agent's telemetry file ($PARLEY_HOME/telemetry/*.sqlite)
// by seq, read-only, a few times a second. Agents never wait for the console (issue 13: "nothing
// on the hot path waits"): they write their own files as before (batched, off the hot path), and
// WAL lets this reader run beside them. New rows go to subscribers (SSE, OpenTelemetry) and into
// a one-minute window for message rates and the who-talks-to-whom graph.
import { EventEmitter } from 'node:events';
import type { Statement } from 'better-sqlite3';
import { type Db, openDb } from '../store/index.js';
import type { TraceRecord } from '../trace/index.js';
import { telemetryFiles } from '../trace/collect.js';

type Stmt = Statement<unknown[]>;

interface Tail {
  db: Db;
  /** Every new row, headers only (for subscribers to `rows`). */
  rows: Stmt;
  /** The newest new rows, headers only (for subscribers to `sample`). */
  newest: Stmt;
  /** New rows counted by direction and sender → receiver (rates, the graph). */
  counts: Stmt;
  /** Conversations of new rows (active conversations). */
  conversations: Stmt;
  /** The last row handed to live views. */
  lastSeq: number;
  /** The last row counted into the rates and the graph. */
  countSeq: number;
}

export interface FeedEvents {
  /** Every new row, in time order (OpenTelemetry needs them all). */
  rows: [rows: TraceRecord[]];
  /** A live view's share of a poll: its newest SAMPLE_ROWS rows, and how many rows were new in all. */
  sample: [rows: TraceRecord[], total: number];
}

const WINDOW_S = 60;
const ACTIVE_S = 5;
/** Rows a second above which a live view is a sample refreshed about once a second (events.ts BUSY_FLUSH_MS). */
export const BUSY_ROWS_PER_S = 150;
/** A live view draws a few dozen rows a second; reading (and parsing) more would be wasted work. */
export const SAMPLE_ROWS = 20;
const HEADERS = `seq, agent, direction, at, conversation_id, performative, sender, receiver, reply_with,
  in_reply_to, content_type, decision, NULL AS body`;

/** One second of traffic: per agent envelopes in and out and the conversations touched; sender → receiver counts. */
interface Bucket {
  agents: Map<string, { in: number; out: number; conversations: Set<string> }>;
  edges: Map<string, number>;
}

const bare = (jid: string) => jid.split('/')[0] as string;

export class TelemetryFeed extends EventEmitter<FeedEvents> {
  private readonly tails = new Map<string, Tail>();
  private timer: NodeJS.Timeout | undefined;
  /**
   * The last minute by second (rates, graph). Counted by SQLite (GROUP BY) rather than from rows:
   * under a full-speed flow the console then parses a few dozen rows a second, not thousands
   * (issue 13: watching costs the agents' cores ≤ 5 %).
   */
  private readonly buckets = new Map<number, Bucket>();

  /**
   * `everyMs` while someone subscribes to the rows (a browser on the sniffer, OpenTelemetry);
   * `idleMs` otherwise, when only the agents page's one-minute rates need the counts.
   */
  private lastCount = -Infinity;
  /** More than BUSY_ROWS_PER_S new rows at the last poll: live views are a sample, read every busyEveryMs. */
  private busy = false;
  private lastPoll = 0;
  private readonly busyEveryMs = 400;

  constructor(
    private readonly dir: string,
    private readonly everyMs = 200,
    private readonly idleMs = 1000,
    private readonly countEveryMs = 1000,
    private readonly now: () => number = Date.now,
  ) {
    super();
  }

  start(): void {
    // Existing rows are history (GET /api/messages); the feed starts at each file's end.
    this.poll(true);
    const next = () => {
      this.timer = setTimeout(() => {
        this.poll(false);
        next();
      }, this.listenerCount('rows') + this.listenerCount('sample') > 0 ? (this.busy ? this.busyEveryMs : this.everyMs) : this.idleMs);
      this.timer.unref();
    };
    next();
  }

  stop(): void {
    clearTimeout(this.timer);
    for (const t of this.tails.values()) t.db.close();
    this.tails.clear();
  }

  private open(file: string, atEnd: boolean): Tail | undefined {
    let db: Db;
    try {
      db = openDb(file, { readonly: true });
    } catch {
      return undefined;
    }
    try {
      const last = atEnd ? ((db.prepare('SELECT MAX(seq) AS m FROM envelopes').get() as { m: number | null }).m ?? 0) : 0;
      // Without the body: live subscribers get the headers; a conversation's page reads bodies on demand.
      return {
        db,
        rows: db.prepare(`SELECT ${HEADERS} FROM envelopes WHERE seq > ? ORDER BY seq LIMIT 5000`),
        newest: db.prepare(`SELECT ${HEADERS} FROM envelopes WHERE seq > ? ORDER BY seq DESC LIMIT ${SAMPLE_ROWS}`),
        counts: db.prepare(`SELECT agent, direction, sender, receiver, COUNT(*) AS n, MAX(seq) AS hi FROM envelopes
          WHERE seq > ? GROUP BY agent, direction, sender, receiver`),
        conversations: db.prepare('SELECT DISTINCT agent, conversation_id AS id FROM envelopes WHERE seq > ? AND seq <= ? AND conversation_id IS NOT NULL'),
        lastSeq: last,
        countSeq: last,
      };
    } catch {
      db.close(); // no table yet: try again next poll
      return undefined;
    }
  }

  poll(initial = false): void {
    const all: TraceRecord[] = [];
    const sample: TraceRecord[] = [];
    let total = 0;
    const now = this.now();
    const second = Math.floor(now / 1000);
    const wantAll = this.listenerCount('rows') > 0;
    const wantSample = this.listenerCount('sample') > 0;
    // Rates and the graph are per second over a minute: counted once a second, not every live poll
    // (a browser on the sniffer makes the feed poll every 200 ms).
    const count = initial || now - this.lastCount >= this.countEveryMs;
    if (count) this.lastCount = now;
    for (const file of telemetryFiles(this.dir)) {
      let t = this.tails.get(file);
      if (!t) {
        t = this.open(file, initial);
        if (!t) continue;
        this.tails.set(file, t);
      }
      try {
        if (wantAll || wantSample) {
          const from = t.lastSeq;
          if (wantAll) {
            const rows = t.rows.all(from) as TraceRecord[];
            if (rows.length > 0) t.lastSeq = rows.at(-1)!.seq;
            all.push(...rows);
            if (wantSample) sample.push(...rows.slice(-SAMPLE_ROWS));
          } else {
            // Newest first: the first row is this poll's last (seq grows by one per row, so the
            // rows not read are counted from it).
            const rows = t.newest.all(from) as TraceRecord[];
            if (rows.length > 0) t.lastSeq = rows[0]!.seq;
            sample.push(...rows);
          }
          total += t.lastSeq - from;
        }
        if (count) this.count(t, second, !(wantAll || wantSample));
      } catch {
        t.db.close();
        this.tails.delete(file); // replaced or removed (a test's new home): reopen
      }
    }
    for (const s of this.buckets.keys()) if (s <= second - WINDOW_S) this.buckets.delete(s);
    if (wantAll || wantSample) this.busy = (total * 1000) / Math.max(1, now - this.lastPoll) >= BUSY_ROWS_PER_S;
    this.lastPoll = now;
    if (all.length > 0) this.emit('rows', all.sort((a, b) => a.at - b.at));
    if (sample.length > 0) this.emit('sample', sample.sort((a, b) => a.at - b.at).slice(-SAMPLE_ROWS), total);
  }

  /** Counts the rows after the last count into `second`'s bucket; `unwatched`: no live view reads the rows, so their cursor follows. */
  private count(t: Tail, second: number, unwatched: boolean): void {
    const bucket = this.bucket(second);
    const counts = t.counts.all(t.countSeq) as { agent: string; direction: string; sender: string | null; receiver: string | null; n: number; hi: number }[];
    if (counts.length === 0) return;
    const to = Math.max(...counts.map((c) => c.hi));
    for (const c of counts) {
      const a = this.agentIn(bucket, c.agent);
      if (c.direction === 'in') a.in += c.n;
      else if (c.direction === 'out') {
        a.out += c.n;
        if (c.sender && c.receiver) {
          const key = `${bare(c.sender)}\u0000${bare(c.receiver)}`;
          bucket.edges.set(key, (bucket.edges.get(key) ?? 0) + c.n);
        }
      }
    }
    for (const c of t.conversations.all(t.countSeq, to) as { agent: string; id: string }[]) this.agentIn(bucket, c.agent).conversations.add(c.id);
    t.countSeq = to;
    if (unwatched) t.lastSeq = Math.max(t.lastSeq, to);
  }

  private bucket(second: number): Bucket {
    let b = this.buckets.get(second);
    if (!b) this.buckets.set(second, (b = { agents: new Map(), edges: new Map() }));
    return b;
  }

  private agentIn(b: Bucket, agent: string) {
    let a = b.agents.get(agent);
    if (!a) b.agents.set(agent, (a = { in: 0, out: 0, conversations: new Set() }));
    return a;
  }

  /** Per agent over the last minute: envelopes in and out, and conversations touched in the last 5 s. */
  rates(): Map<string, { in_per_min: number; out_per_min: number; active_conversations: number }> {
    const out = new Map<string, { in_per_min: number; out_per_min: number; active_conversations: number }>();
    const now = Math.floor(this.now() / 1000);
    const active = new Map<string, Set<string>>();
    for (const [second, b] of this.buckets) {
      if (second <= now - WINDOW_S) continue;
      for (const [agent, a] of b.agents) {
        const e = out.get(agent) ?? { in_per_min: 0, out_per_min: 0, active_conversations: 0 };
        e.in_per_min += a.in;
        e.out_per_min += a.out;
        out.set(agent, e);
        if (second > now - ACTIVE_S) for (const id of a.conversations) active.set(agent, (active.get(agent) ?? new Set()).add(id));
      }
    }
    for (const [agent, set] of active) out.get(agent)!.active_conversations = set.size;
    return out;
  }

  /** Who sent to whom in the last minute (bare JIDs), from the senders' out rows. */
  edges(): { from: string; to: string; count: number }[] {
    const counts = new Map<string, number>();
    const now = Math.floor(this.now() / 1000);
    for (const [second, b] of this.buckets) {
      if (second <= now - WINDOW_S) continue;
      for (const [key, n] of b.edges) counts.set(key, (counts.get(key) ?? 0) + n);
    }
    return [...counts].map(([k, count]) => {
      const [from, to] = k.split('\u0000') as [string, string];
      return { from, to, count };
    });
  }
}

/** Retention (PARLEY_CONSOLE_RETENTION_DAYS): deletes old telemetry rows in small batches. */
export function pruneTelemetry(dir: string, days: number, batch = 5000): number {
  if (days <= 0) return 0;
  const cutoff = Date.now() - days * 86400000;
  let deleted = 0;
  for (const file of telemetryFiles(dir)) {
    let db: Db | undefined;
    try {
      db = openDb(file);
      // Small statements: the agent writing this file never waits long for our lock.
      for (;;) {
        const n = db.prepare('DELETE FROM envelopes WHERE seq IN (SELECT seq FROM envelopes WHERE at < ? ORDER BY seq LIMIT ?)').run(cutoff, batch).changes;
        deleted += n;
        if (n < batch) break;
      }
    } catch {
      // no table yet
    } finally {
      db?.close();
    }
  }
  return deleted;
}
