// Every agent's durable replay ledger (issue "Close the perimeter" §5): the replay-window entries
// (sender DID + reply_with → until when the envelope would still be accepted) of every envelope
// this agent accepted, kept for exactly as long as a copy could pass the time checks, so a copy is
// refused also after the agent restarts. And a heartbeat: the last moment the agent was known
// online, from which the offline gap after a crash starts (shared/identity/offline-gaps.ts).
//
// One SQLite file per agent ($PARLEY_HOME/data/<name>-replay.sqlite, owner-only like all state);
// a durable role's in its exchange store's file instead (tables replay_seen, replay_meta).
// An entry is written after the envelope was handled (shared/runtime/agent.ts), so a kill between
// acceptance and handling leaves the server's redelivery acceptable: at-least-once, never lost.
import fs from 'node:fs';
import type Database from 'better-sqlite3';
import { type Grouped, groupOn } from './group-commit.js';
import { type Layout, relayout } from './relayout.js';
import { type Db, openDb } from './sqlite.js';

export interface LedgerEntry {
  key: string;
  expiresAt: number;
}

/**
 * A ledger written before issue 15's change keyed `seen` by its key (WITHOUT ROWID): its rows move
 * to the appended table (all of them: a row refuses a copy until it expires, and prune() drops
 * the expired ones later).
 */
const KEYED_SEEN: Layout = {
  table: 'seen', old: (sql) => /WITHOUT ROWID/i.test(sql), columns: 'key, expires_at', order: 'expires_at', indexes: ['seen_expiry'],
  create: 'CREATE TABLE seen (key TEXT NOT NULL, expires_at INTEGER NOT NULL)',
};

export class ReplayLedger {
  private readonly db: Db;
  private readonly stmts: Record<'record' | 'live' | 'prune' | 'setMeta' | 'getMeta', Database.Statement<unknown[]>>;
  private writes = 0;
  /** A view's key prefix ('' for the file's owner): many agents of one host share one file. */
  private readonly prefix: string;
  private readonly owner: boolean;
  /** False for a view and for a ledger within another store's connection (their owners close it). */
  private readonly ownsDb: boolean;
  /** The file's owner: heartbeats waiting for the next group commit (key → ms). */
  private readonly root: ReplayLedger;
  private readonly beats = new Map<string, number>();
  private scheduled: NodeJS.Immediate | undefined;
  private grouped: Grouped | undefined;

  /**
   * `file`, or a view of another ledger for one of many agents in a process (agents/specialist/
   * host.ts: a thousand virtual agents, one SQLite file): its entries and heartbeat carry `scope`;
   * closing a view leaves the shared file open (its owner closes it). Or `within` a durable role's
   * exchange store (its connection, tables replay_*): the entries then commit in the same
   * transaction as the snapshots they vouch for, one COMMIT per burst instead of two (issue 15);
   * the entries of `formerFile`, the agent's ledger file before, move in and the file goes.
   */
  constructor(file: string | { share: ReplayLedger; scope: string } | { within: Db; formerFile?: string }) {
    if (typeof file !== 'string' && 'share' in file) {
      this.db = file.share.db;
      this.stmts = file.share.stmts;
      this.prefix = `${file.scope}\n`;
      this.owner = false;
      this.ownsDb = false;
      this.root = file.share.root;
      return;
    }
    this.prefix = '';
    this.owner = true;
    this.root = this;
    const within = typeof file === 'string' ? undefined : file;
    this.ownsDb = within === undefined;
    this.db = within ? within.within : openDb(file as string);
    const t = within ? { seen: 'replay_seen', index: 'replay_seen_expiry', meta: 'replay_meta' } : { seen: 'seen', index: 'seen_expiry', meta: 'meta' };
    if (!within) relayout(this.db, [KEYED_SEEN]);
    // Appended in rowid order, no key index: the key is a hash, so an index on it put each commit's
    // row on a random B-tree page (52 → 29 µs of CPU and 97 → 45 µs of wall time per one-row
    // commit, measured with better-sqlite3 here, issue 15). Nothing looks a key up in the file:
    // live() loads the window into memory at start, which refuses copies (shared/identity/replay.ts).
    // The expiry index is appended at its end too (expiries grow with time).
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS ${t.seen} (key TEXT NOT NULL, expires_at INTEGER NOT NULL);
      CREATE INDEX IF NOT EXISTS ${t.index} ON ${t.seen}(expires_at);
      CREATE TABLE IF NOT EXISTS ${t.meta} (k TEXT PRIMARY KEY, v INTEGER NOT NULL);
    `);
    this.stmts = {
      record: this.db.prepare(`INSERT INTO ${t.seen} (key, expires_at) VALUES (?, ?)`),
      live: this.db.prepare(`SELECT key, expires_at AS expiresAt FROM ${t.seen} WHERE expires_at > ? AND substr(key, 1, ?) = ? ORDER BY expires_at`),
      prune: this.db.prepare(`DELETE FROM ${t.seen} WHERE expires_at <= ?`),
      setMeta: this.db.prepare(`INSERT OR REPLACE INTO ${t.meta} (k, v) VALUES (?, ?)`),
      getMeta: this.db.prepare(`SELECT v FROM ${t.meta} WHERE k = ?`),
    };
    if (within?.formerFile) this.moveIn(within.formerFile);
  }

  /** The entries and heartbeat of the agent's former ledger file, moved into this one; the file is removed. */
  private moveIn(file: string): void {
    if (!fs.existsSync(file)) return;
    const former = new ReplayLedger(file);
    const entries = former.live(Date.now());
    const alive = former.aliveAt();
    former.close();
    this.db.transaction(() => {
      for (const e of entries) this.stmts.record.run(e.key, e.expiresAt);
      if (alive !== undefined && this.aliveAt() === undefined) this.stmts.setMeta.run('alive_at', alive);
    })();
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${file}${suffix}`, { force: true });
  }

  /** Entries still able to refuse a copy at `now` (loaded into the in-memory window at start). */
  live(now: number): LedgerEntry[] {
    if (this.owner) this.stmts.prune.run(now);
    const rows = this.stmts.live.all(now, this.prefix.length, this.prefix) as LedgerEntry[];
    return this.prefix ? rows.map((r) => ({ key: r.key.slice(this.prefix.length), expiresAt: r.expiresAt })) : rows;
  }

  record(key: string, expiresAt: number, now: number): void {
    if (!this.db.open) return; // closed at shutdown (several hosted agents may share one signing)
    this.stmts.record.run(this.prefix + key, expiresAt);
    // Expired rows are dead weight only; prune now and then, not per write.
    if (++this.writes % 1000 === 0) this.stmts.prune.run(now);
  }

  /** The last heartbeat (ms), if this agent ever ran. */
  aliveAt(): number | undefined {
    this.root.flushBeats();
    const row = this.stmts.getMeta.get(`${this.prefix}alive_at`) as { v: number } | undefined;
    return row?.v;
  }

  /**
   * Group commit: the heartbeats of a host's agents sharing this file (a thousand, one every 5 s
   * each) are written in one transaction when the event loop turns, not one commit each.
   */
  heartbeat(now: number): void {
    if (!this.db.open) return;
    const root = this.root;
    root.beats.set(`${this.prefix}alive_at`, now);
    root.scheduled ??= setImmediate(() => root.flushBeats());
  }

  /** Writes the waiting heartbeats now (close and aliveAt do it first). */
  flushBeats(): void {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    if (this.beats.size === 0 || !this.db.open) return;
    const beats = [...this.beats];
    this.beats.clear();
    this.db.transaction(() => {
      for (const [k, v] of beats) this.stmts.setMeta.run(k, v);
    })();
  }

  /** The file's group commit (group-commit.ts): entries recorded during a burst commit with it. */
  group(): Grouped {
    const root = this.root;
    root.grouped ??= groupOn(root.db);
    return root.grouped;
  }

  close(): void {
    if (!this.owner || !this.db.open) return;
    this.grouped?.commit();
    this.flushBeats();
    if (this.ownsDb) this.db.close();
  }
}
