// Every agent's durable replay ledger (issue "Close the perimeter" §5): the replay-window entries
// (sender DID + reply_with → until when the envelope would still be accepted) of every envelope
// this agent accepted, kept for exactly as long as a copy could pass the time checks, so a copy is
// refused also after the agent restarts. And a heartbeat: the last moment the agent was known
// online, from which the offline gap after a crash starts (shared/identity/offline-gaps.ts).
//
// One SQLite file per agent ($PARLEY_HOME/data/<name>-replay.sqlite, owner-only like all state).
// An entry is written after the envelope was handled (shared/runtime/agent.ts), so a kill between
// acceptance and handling leaves the server's redelivery acceptable: at-least-once, never lost.
import { type Db, openDb } from './sqlite.js';

export interface LedgerEntry {
  key: string;
  expiresAt: number;
}

export class ReplayLedger {
  private readonly db: Db;
  private readonly stmts;
  private writes = 0;

  constructor(file: string) {
    this.db = openDb(file);
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS seen (key TEXT PRIMARY KEY, expires_at INTEGER NOT NULL) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS seen_expiry ON seen(expires_at);
      CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v INTEGER NOT NULL);
    `);
    this.stmts = {
      record: this.db.prepare('INSERT OR REPLACE INTO seen (key, expires_at) VALUES (?, ?)'),
      live: this.db.prepare('SELECT key, expires_at AS expiresAt FROM seen WHERE expires_at > ? ORDER BY expires_at'),
      prune: this.db.prepare('DELETE FROM seen WHERE expires_at <= ?'),
      setMeta: this.db.prepare('INSERT OR REPLACE INTO meta (k, v) VALUES (?, ?)'),
      getMeta: this.db.prepare('SELECT v FROM meta WHERE k = ?'),
    };
  }

  /** Entries still able to refuse a copy at `now` (loaded into the in-memory window at start). */
  live(now: number): LedgerEntry[] {
    this.stmts.prune.run(now);
    return this.stmts.live.all(now) as LedgerEntry[];
  }

  record(key: string, expiresAt: number, now: number): void {
    if (!this.db.open) return; // closed at shutdown (several hosted agents may share one signing)
    this.stmts.record.run(key, expiresAt);
    // Expired rows are dead weight only; prune now and then, not per write.
    if (++this.writes % 1000 === 0) this.stmts.prune.run(now);
  }

  /** The last heartbeat (ms), if this agent ever ran. */
  aliveAt(): number | undefined {
    const row = this.stmts.getMeta.get('alive_at') as { v: number } | undefined;
    return row?.v;
  }

  heartbeat(now: number): void {
    if (!this.db.open) return;
    this.stmts.setMeta.run('alive_at', now);
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
