// The Registry's (DF) storage behind one small interface, with a memory and a SQLite
// implementation (botkit repository.ts style). It stores and returns entries; what a lease
// means and how candidates are ranked lives in agents/registry/ (pure, unit-tested).
import type { AgentProfile } from '../contracts/types.gen.js';
import type { Db } from './sqlite.js';
import { openDb } from './sqlite.js';

export type { AgentProfile };

/** One registration. Times are epoch milliseconds. */
export interface DirectoryRecord {
  profile: AgentProfile;
  registered_at: number;
  /** Last REGISTER or HEARTBEAT: the lease runs from here. Kept across restarts. */
  last_seen: number;
  /** When the DF last put this agent first in a candidate list (0 = never): round-robin fairness. */
  last_used: number;
}

export interface DirectoryStore {
  /** Inserts or replaces the registration of record.profile.jid. */
  put(record: DirectoryRecord): void;
  get(jid: string): DirectoryRecord | undefined;
  /** Sets last_seen; false when the jid is not registered. */
  touch(jid: string, at: number): boolean;
  markUsed(jid: string, at: number): void;
  /** False when the jid was not registered. */
  remove(jid: string): boolean;
  all(): DirectoryRecord[];
  close(): void;
}

const copy = (r: DirectoryRecord): DirectoryRecord => structuredClone(r);

export class MemoryDirectoryStore implements DirectoryStore {
  private readonly records = new Map<string, DirectoryRecord>();

  put(record: DirectoryRecord): void {
    this.records.set(record.profile.jid, copy(record));
  }
  get(jid: string): DirectoryRecord | undefined {
    const r = this.records.get(jid);
    return r && copy(r);
  }
  touch(jid: string, at: number): boolean {
    const r = this.records.get(jid);
    if (!r) return false;
    r.last_seen = at;
    return true;
  }
  markUsed(jid: string, at: number): void {
    const r = this.records.get(jid);
    if (r) r.last_used = at;
  }
  remove(jid: string): boolean {
    return this.records.delete(jid);
  }
  all(): DirectoryRecord[] {
    return [...this.records.values()].map(copy);
  }
  close(): void {}
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS registrations (
  jid TEXT PRIMARY KEY,
  profile TEXT NOT NULL,
  registered_at INTEGER NOT NULL,
  last_seen INTEGER NOT NULL,
  last_used INTEGER NOT NULL DEFAULT 0
);`;

interface Row {
  profile: string;
  registered_at: number;
  last_seen: number;
  last_used: number;
}

const fromRow = (row: Row): DirectoryRecord => ({
  profile: JSON.parse(row.profile) as AgentProfile,
  registered_at: row.registered_at,
  last_seen: row.last_seen,
  last_used: row.last_used,
});

/** Durable across restarts: `$PARLEY_HOME/data/registry.sqlite` in production, `:memory:` in tests. */
export class SqliteDirectoryStore implements DirectoryStore {
  private readonly db: Db;
  private readonly stmts;

  constructor(file: string) {
    this.db = openDb(file);
    this.db.exec(SCHEMA);
    this.stmts = {
      put: this.db.prepare(
        `INSERT OR REPLACE INTO registrations (jid, profile, registered_at, last_seen, last_used)
         VALUES (@jid, @profile, @registered_at, @last_seen, @last_used)`,
      ),
      get: this.db.prepare('SELECT profile, registered_at, last_seen, last_used FROM registrations WHERE jid = ?'),
      touch: this.db.prepare('UPDATE registrations SET last_seen = ? WHERE jid = ?'),
      markUsed: this.db.prepare('UPDATE registrations SET last_used = ? WHERE jid = ?'),
      remove: this.db.prepare('DELETE FROM registrations WHERE jid = ?'),
      all: this.db.prepare('SELECT profile, registered_at, last_seen, last_used FROM registrations ORDER BY jid'),
    };
  }

  put(record: DirectoryRecord): void {
    this.stmts.put.run({
      jid: record.profile.jid,
      profile: JSON.stringify(record.profile),
      registered_at: record.registered_at,
      last_seen: record.last_seen,
      last_used: record.last_used,
    });
  }
  get(jid: string): DirectoryRecord | undefined {
    const row = this.stmts.get.get(jid) as Row | undefined;
    return row && fromRow(row);
  }
  touch(jid: string, at: number): boolean {
    return this.stmts.touch.run(at, jid).changes > 0;
  }
  markUsed(jid: string, at: number): void {
    this.stmts.markUsed.run(at, jid);
  }
  remove(jid: string): boolean {
    return this.stmts.remove.run(jid).changes > 0;
  }
  all(): DirectoryRecord[] {
    return (this.stmts.all.all() as Row[]).map(fromRow);
  }
  close(): void {
    if (this.db.open) this.db.close();
  }
}
