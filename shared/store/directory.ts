// The Registry's (DF) storage behind one small interface, with a memory and a SQLite
// implementation (botkit repository.ts style). It stores and returns entries; what a lease
// means and how candidates are ranked lives in agents/registry/ (pure, unit-tested).
import type { AgentProfile } from '../contracts/index.js';
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
  /** The lease group the agent named at REGISTER (contracts/register.json lease_group); never part of the listed profile. */
  lease_group?: string;
}

export interface DirectoryStore {
  /** Inserts or replaces the registration of record.profile.jid. */
  put(record: DirectoryRecord): void;
  get(jid: string): DirectoryRecord | undefined;
  /** Sets last_seen; false when the jid is not registered. */
  touch(jid: string, at: number): boolean;
  /** Sets last_seen without an answer (a HEARTBEAT the caller already knows is registered): may be group-committed. */
  renew(jid: string, at: number): void;
  markUsed(jid: string, at: number): void;
  /** Sets last_seen of every registration of `group` in `domain` still live at `at` (agents/registry/lease.ts isLive); may be group-committed. */
  renewGroup(group: string, domain: string, at: number, leaseMs: number): void;
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
  renew(jid: string, at: number): void {
    this.touch(jid, at);
  }
  markUsed(jid: string, at: number): void {
    const r = this.records.get(jid);
    if (r) r.last_used = at;
  }
  renewGroup(group: string, domain: string, at: number, leaseMs: number): void {
    for (const r of this.records.values()) {
      if (r.lease_group === group && r.profile.jid.endsWith(`@${domain}`) && at - r.last_seen < leaseMs && r.last_seen - at < leaseMs) r.last_seen = at;
    }
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
  last_used INTEGER NOT NULL DEFAULT 0,
  lease_group TEXT
);`;

interface Row {
  profile: string;
  registered_at: number;
  last_seen: number;
  last_used: number;
  lease_group: string | null;
}

/** How long renew/markUsed writes may wait, coalesced (SqliteDirectoryStore). */
export const SOFT_FLUSH_MS = 250;

const fromRow = (row: Row): DirectoryRecord => ({
  profile: JSON.parse(row.profile) as AgentProfile,
  registered_at: row.registered_at,
  last_seen: row.last_seen,
  last_used: row.last_used,
  ...(row.lease_group !== null ? { lease_group: row.lease_group } : {}),
});

/**
 * Durable across restarts: `$PARLEY_HOME/data/registry.sqlite` in production, `:memory:` in tests.
 * Group commit: put, renew and markUsed are queued and written in one transaction when the event
 * loop turns (setImmediate), so the REGISTERs and HEARTBEATs read from one socket read cost one
 * commit, not one each; every other call writes the queue first, so reads see every write and
 * the order is kept. A crash can lose the last turn's writes (milliseconds): the agent's next
 * HEARTBEAT is answered NOT_REGISTERED and it registers again.
 * renew and markUsed (last_seen, last_used: soft state) are coalesced per JID and written at most
 * every SOFT_FLUSH_MS: with a query a turn, their own commit was 0.07 ms of the Registry's CPU per
 * DF query at 10,000 registered. A crash loses at most that much of them: a lease looks that much
 * older (leases last tens of seconds) and the round-robin order forgets the last few heads.
 */
export class SqliteDirectoryStore implements DirectoryStore {
  private readonly db: Db;
  private readonly stmts;
  private queue: (() => void)[] = [];
  private scheduled: NodeJS.Immediate | undefined;
  /** jid → the latest last_seen / last_used not yet written (see the class comment). */
  private soft = new Map<string, { seen?: number; used?: number }>();
  private softTimer: NodeJS.Timeout | undefined;
  private readonly commit: (ops: (() => void)[]) => void;

  constructor(file: string) {
    this.db = openDb(file);
    this.db.exec(SCHEMA);
    // A database from before lease groups (issue 14 §3) gets the column; its rows have none.
    if (!(this.db.pragma('table_info(registrations)') as { name: string }[]).some((c) => c.name === 'lease_group')) {
      this.db.exec('ALTER TABLE registrations ADD COLUMN lease_group TEXT');
    }
    this.db.exec('CREATE INDEX IF NOT EXISTS registrations_lease_group ON registrations(lease_group) WHERE lease_group IS NOT NULL');
    this.stmts = {
      put: this.db.prepare(
        `INSERT OR REPLACE INTO registrations (jid, profile, registered_at, last_seen, last_used, lease_group)
         VALUES (@jid, @profile, @registered_at, @last_seen, @last_used, @lease_group)`,
      ),
      get: this.db.prepare('SELECT profile, registered_at, last_seen, last_used, lease_group FROM registrations WHERE jid = ?'),
      renewGroup: this.db.prepare(`UPDATE registrations SET last_seen = @at
         WHERE lease_group = @group AND substr(jid, instr(jid, '@') + 1) = @domain AND last_seen > @at - @lease AND last_seen < @at + @lease`),
      touch: this.db.prepare('UPDATE registrations SET last_seen = ? WHERE jid = ?'),
      markUsed: this.db.prepare('UPDATE registrations SET last_used = ? WHERE jid = ?'),
      remove: this.db.prepare('DELETE FROM registrations WHERE jid = ?'),
      all: this.db.prepare('SELECT profile, registered_at, last_seen, last_used, lease_group FROM registrations ORDER BY jid'),
    };
    this.commit = this.db.transaction((ops: (() => void)[]) => {
      for (const op of ops) op();
    });
  }

  /** Writes queued so far, in one transaction (tests and close call it too). */
  flush(): void {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    this.softToQueue();
    if (this.queue.length === 0 || !this.db.open) return;
    const ops = this.queue;
    this.queue = [];
    this.commit(ops);
  }

  /** Number of writes waiting: for the next group commit, and coalesced soft writes (one per JID). */
  get pending(): number {
    return this.queue.length + this.soft.size;
  }

  /** Soft writes waiting for their timer (tests). */
  get softPending(): number {
    return this.soft.size;
  }

  /** Moves the soft writes (of `only`, else all) into the ordered queue. */
  private softToQueue(only?: string): void {
    const one = only === undefined ? undefined : this.soft.get(only);
    const entries = only === undefined ? [...this.soft] : one ? [[only, one] as const] : [];
    if (only === undefined) {
      this.soft.clear();
      clearTimeout(this.softTimer);
      this.softTimer = undefined;
    } else this.soft.delete(only);
    for (const [j, w] of entries) {
      if (w.seen !== undefined) this.queue.push(() => this.stmts.touch.run(w.seen, j));
      if (w.used !== undefined) this.queue.push(() => this.stmts.markUsed.run(w.used, j));
    }
  }

  private softly(jid: string, w: { seen?: number; used?: number }): void {
    this.soft.set(jid, { ...this.soft.get(jid), ...w });
    if (this.softTimer === undefined) {
      this.softTimer = setTimeout(() => {
        this.softTimer = undefined;
        this.flush();
      }, SOFT_FLUSH_MS);
      this.softTimer.unref();
    }
  }

  private later(op: () => void): void {
    this.queue.push(op);
    this.scheduled ??= setImmediate(() => this.flush());
  }

  put(record: DirectoryRecord): void {
    const row = {
      jid: record.profile.jid,
      profile: JSON.stringify(record.profile),
      registered_at: record.registered_at,
      last_seen: record.last_seen,
      last_used: record.last_used,
      lease_group: record.lease_group ?? null,
    };
    this.softToQueue(record.profile.jid); // its earlier soft writes land before the put, as they came
    this.later(() => this.stmts.put.run(row));
  }
  get(jid: string): DirectoryRecord | undefined {
    this.flush();
    const row = this.stmts.get.get(jid) as Row | undefined;
    return row && fromRow(row);
  }
  touch(jid: string, at: number): boolean {
    this.flush();
    return this.stmts.touch.run(at, jid).changes > 0;
  }
  renew(jid: string, at: number): void {
    this.softly(jid, { seen: at });
  }
  markUsed(jid: string, at: number): void {
    this.softly(jid, { used: at });
  }
  renewGroup(group: string, domain: string, at: number, leaseMs: number): void {
    this.softToQueue(); // earlier soft renewals of its members first, as they came
    this.later(() => this.stmts.renewGroup.run({ group, domain, at, lease: leaseMs }));
  }
  remove(jid: string): boolean {
    this.flush();
    return this.stmts.remove.run(jid).changes > 0;
  }
  all(): DirectoryRecord[] {
    this.flush();
    return (this.stmts.all.all() as Row[]).map(fromRow);
  }
  close(): void {
    if (!this.db.open) return;
    this.flush();
    this.db.close();
  }
}
