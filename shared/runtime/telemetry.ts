// Seed contract §5 (telemetry): every envelope an agent sends or receives is recorded with its
// headers, timing and the agent's decision, in the agent's own SQLite file under
// $PARLEY_HOME/telemetry/, so that `npm run trace` can follow one conversation across agents.
// Writes are batched into one transaction per tick: recording must not slow the hot path.
import type { Envelope } from '../acl/index.js';
import { type Db, openDb } from '../store/index.js';

export type Direction = 'in' | 'out' | 'note';

export interface TelemetryRecord {
  agent: string;
  direction: Direction;
  /** Epoch milliseconds with sub-ms precision (performance.timeOrigin + now). */
  at: number;
  conversation_id: string | null;
  performative: string | null;
  sender: string | null;
  receiver: string | null;
  reply_with: string | null;
  in_reply_to: string | null;
  content_type: string | null;
  /** What the agent did: accepted, routed, refused:<code>, not-understood:<code>, a Coordinator decision, … */
  decision: string;
  /** The whole envelope (or the raw body when it did not parse), JSON. */
  body: string | null;
}

export interface Telemetry {
  /**
   * `raw`: the envelope's wire JSON when the caller has it (stored as the body), or the raw body
   * that did not parse. `at` defaults to now; the agent passes the arrival time, so a reply it
   * sent while routing sorts after it.
   */
  envelope(direction: 'in' | 'out', env: Envelope | null, decision: string, raw?: string, at?: number): void;
  note(conversationId: string, decision: string, detail?: object): void;
  flush(): void;
  close(): void;
}

/**
 * Epoch milliseconds with sub-ms precision (timeOrigin + the monotonic clock), kept within
 * about a millisecond of the wall clock. timeOrigin is read once, at the process's start: a
 * wall-clock step after it (NTP on a fresh CI machine) left processes disagreeing, and in one CI
 * run the Presenter's records were 10 ms ahead of the other agents', so a conversation's trace
 * put its USER_MSG after the Coordinator received it (system.test.ts, trace invariants). When
 * the two clocks part by more than a quarter of a millisecond beyond Date.now()'s millisecond,
 * the precise clock is moved to the middle of that millisecond.
 */
export function preciseClock(monotonic: () => number = () => performance.now(), wall: () => number = Date.now, origin = performance.timeOrigin): () => number {
  let base = origin;
  return () => {
    const precise = base + monotonic();
    const now = wall();
    if (precise >= now - 0.25 && precise <= now + 1.25) return precise;
    base += now + 0.5 - precise;
    return now + 0.5;
  };
}

export const preciseNow = preciseClock();

const SCHEMA = `
CREATE TABLE IF NOT EXISTS envelopes (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  agent TEXT NOT NULL, direction TEXT NOT NULL, at REAL NOT NULL,
  conversation_id TEXT, performative TEXT, sender TEXT, receiver TEXT,
  reply_with TEXT, in_reply_to TEXT, content_type TEXT, decision TEXT NOT NULL, body TEXT
);
-- No live index: conversation ids are random, so an index on them costs a random B-tree page
-- write per row (~30 µs of the agent's hot path, npm run bench); the trace CLI scans instead.
DROP INDEX IF EXISTS envelopes_conversation;`;

function contentType(env: Envelope | null): string | null {
  const c = env?.content as Record<string, unknown> | undefined;
  if (!c) return null;
  if (typeof c.type === 'string') return c.type;
  const key = ['need', 'candidates', 'facts', 'status', 'reason'].find((k) => k in c);
  return key ?? null;
}

export class SqliteTelemetry implements Telemetry {
  private readonly db: Db;
  private readonly insert;
  private queue: TelemetryRecord[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(file: string, private readonly agent: string) {
    this.db = openDb(file);
    this.db.exec(SCHEMA);
    // Positional parameters: binding by name cost ~20 % more per row (bench, see docs/runtime.md).
    const stmt = this.db.prepare(`INSERT INTO envelopes (agent, direction, at, conversation_id, performative, sender, receiver,
      reply_with, in_reply_to, content_type, decision, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    this.insert = this.db.transaction((rows: TelemetryRecord[]) => {
      for (const r of rows) {
        stmt.run(r.agent, r.direction, r.at, r.conversation_id, r.performative, r.sender, r.receiver, r.reply_with,
          r.in_reply_to, r.content_type, r.decision, r.body);
      }
    });
  }

  /**
   * The telemetry of another agent of this process, in this file (agent column = `agent`): a
   * specialist host's thousand virtual agents share one file and one write batch. Closing a view
   * only flushes; the file's owner closes it.
   */
  view(agent: string): Telemetry {
    return {
      envelope: (direction, env, decision, raw, at) => this.record(agent, direction, env, decision, raw, at),
      note: (conversationId, decision, detail) => this.noteAs(agent, conversationId, decision, detail),
      flush: () => this.flush(),
      close: () => this.flush(),
    };
  }

  envelope(direction: 'in' | 'out', env: Envelope | null, decision: string, raw?: string, at = preciseNow()): void {
    this.record(this.agent, direction, env, decision, raw, at);
  }

  private record(agent: string, direction: 'in' | 'out', env: Envelope | null, decision: string, raw?: string, at = preciseNow()): void {
    this.push({
      agent,
      direction,
      at,
      conversation_id: env?.conversation_id ?? null,
      performative: env?.performative ?? null,
      sender: env?.sender ?? null,
      receiver: env?.receiver ?? null,
      reply_with: env?.reply_with ?? null,
      in_reply_to: env?.in_reply_to ?? null,
      content_type: contentType(env),
      decision,
      // The wire text when the caller has it (no second JSON.stringify on the hot path).
      body: env ? (raw ?? JSON.stringify(env)) : (raw?.slice(0, 4096) ?? null),
    });
  }

  note(conversationId: string, decision: string, detail?: object): void {
    this.noteAs(this.agent, conversationId, decision, detail);
  }

  private noteAs(agent: string, conversationId: string, decision: string, detail?: object): void {
    this.push({
      agent, direction: 'note', at: preciseNow(), conversation_id: conversationId, performative: null,
      sender: null, receiver: null, reply_with: null, in_reply_to: null, content_type: null, decision,
      body: detail ? JSON.stringify(detail) : null,
    });
  }

  private push(r: TelemetryRecord): void {
    this.queue.push(r);
    if (this.queue.length >= 500) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), 20);
  }

  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.queue.length === 0) return;
    const rows = this.queue;
    this.queue = [];
    this.insert(rows);
  }

  close(): void {
    this.flush();
    this.db.close();
  }
}

/** For unit tests and benches that do not trace. */
export class MemoryTelemetry implements Telemetry {
  readonly records: Array<{ direction: Direction; decision: string; env: Envelope | null }> = [];
  envelope(direction: 'in' | 'out', env: Envelope | null, decision: string): void {
    this.records.push({ direction, decision, env });
  }
  note(_c: string, decision: string): void {
    this.records.push({ direction: 'note', decision, env: null });
  }
  flush(): void {}
  close(): void {}
}
