// The console's live view: it tails every agent's telemetry file ($PARLEY_HOME/telemetry/*.sqlite)
// by seq, read-only, a few times a second. Agents never wait for the console (issue 13: "nothing
// on the hot path waits"): they write their own files as before (batched, off the hot path), and
// WAL lets this reader run beside them. New rows go to subscribers (SSE, OpenTelemetry) and into
// a one-minute window for message rates and the who-talks-to-whom graph.
import { EventEmitter } from 'node:events';
import { type Db, openDb } from '../store/sqlite.js';
import { telemetryFiles } from '../trace/collect.js';
import type { TraceRecord } from '../trace/types.js';

interface Tail {
  db: Db;
  next: ReturnType<Db['prepare']>;
  lastSeq: number;
}

export interface FeedEvents {
  rows: [rows: TraceRecord[]];
}

const WINDOW_MS = 60000;

export class TelemetryFeed extends EventEmitter<FeedEvents> {
  private readonly tails = new Map<string, Tail>();
  private timer: NodeJS.Timeout | undefined;
  /** The last minute's rows, oldest first (rates, graph). */
  private recent: { at: number; agent: string; direction: string; sender: string | null; receiver: string | null; conversation: string | null }[] = [];

  /**
   * `everyMs` while someone subscribes to the rows (a browser on the sniffer, OpenTelemetry);
   * `idleMs` otherwise, when only the agents page's one-minute rates need the rows.
   */
  constructor(private readonly dir: string, private readonly everyMs = 400, private readonly idleMs = 1000) {
    super();
  }

  start(): void {
    // Existing rows are history (GET /api/messages); the feed starts at each file's end.
    this.poll(true);
    const next = () => {
      this.timer = setTimeout(() => {
        this.poll(false);
        next();
      }, this.listenerCount('rows') > 0 ? this.everyMs : this.idleMs);
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
      return { db, next: db.prepare(`SELECT seq, agent, direction, at, conversation_id, performative, sender, receiver, reply_with,
        in_reply_to, content_type, decision, NULL AS body FROM envelopes WHERE seq > ? ORDER BY seq LIMIT 5000`), lastSeq: last };
    } catch {
      db.close(); // no table yet: try again next poll
      return undefined;
    }
  }

  poll(initial = false): void {
    const fresh: TraceRecord[] = [];
    for (const file of telemetryFiles(this.dir)) {
      let t = this.tails.get(file);
      if (!t) {
        t = this.open(file, initial);
        if (!t) continue;
        this.tails.set(file, t);
      }
      try {
        const rows = t.next.all(t.lastSeq) as TraceRecord[];
        if (rows.length) t.lastSeq = rows.at(-1)!.seq;
        fresh.push(...rows);
      } catch {
        t.db.close();
        this.tails.delete(file); // replaced or removed (a test's new home): reopen
      }
    }
    const cutoff = Date.now() - WINDOW_MS;
    this.recent = this.recent.filter((r) => r.at >= cutoff);
    if (fresh.length === 0) return;
    fresh.sort((a, b) => a.at - b.at);
    for (const r of fresh) this.recent.push({ at: r.at, agent: r.agent, direction: r.direction, sender: r.sender, receiver: r.receiver, conversation: r.conversation_id });
    this.emit('rows', fresh);
  }

  /** Per agent over the last minute: envelopes in and out, and conversations touched in the last 5 s. */
  rates(): Map<string, { in_per_min: number; out_per_min: number; active_conversations: number }> {
    const out = new Map<string, { in_per_min: number; out_per_min: number; active_conversations: number }>();
    const since5 = Date.now() - 5000;
    const active = new Map<string, Set<string>>();
    for (const r of this.recent) {
      const e = out.get(r.agent) ?? { in_per_min: 0, out_per_min: 0, active_conversations: 0 };
      if (r.direction === 'in') e.in_per_min++;
      else if (r.direction === 'out') e.out_per_min++;
      out.set(r.agent, e);
      if (r.at >= since5 && r.conversation) active.set(r.agent, (active.get(r.agent) ?? new Set()).add(r.conversation));
    }
    for (const [agent, set] of active) out.get(agent)!.active_conversations = set.size;
    return out;
  }

  /** Who sent to whom in the last minute (bare JIDs), from the senders' out rows. */
  edges(): { from: string; to: string; count: number }[] {
    const counts = new Map<string, number>();
    for (const r of this.recent) {
      if (r.direction !== 'out' || !r.sender || !r.receiver) continue;
      const key = `${r.sender.split('/')[0]}\u0000${r.receiver.split('/')[0]}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
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
