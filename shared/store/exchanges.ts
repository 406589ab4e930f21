// Durable conversations (issue #6 "Durability"): the snapshot of every live exchange actor, the
// envelopes of recently finished ones (resent after a crash; receivers drop copies), and the
// processed-inbound ledger (sender, reply_with) that makes redelivery harmless. One SQLite file
// per durable role ($PARLEY_HOME/data/<name>-exchanges.sqlite); every write is synchronous, so
// what the router recorded before a SIGKILL is there at restart (WAL: a committed transaction
// survives the death of the process).
import type { Envelope } from '../acl/envelope.js';
import type { PersistedExchange } from '../runtime/router.js';
import { type Db, openDb } from './sqlite.js';

export interface ExchangeStoreOptions {
  /** How long the ledger remembers an inbound envelope (default 24 h; > any offline outage we accept). */
  ledgerMs?: number;
  /** Finished exchanges whose last envelopes are resent at restart: those finished this close to the crash. */
  tombstoneMs?: number;
  now?: () => number;
}

export class ExchangeStore {
  private readonly db: Db;
  private readonly now: () => number;
  private readonly ledgerMs: number;
  readonly tombstoneMs: number;
  private writes = 0;
  private readonly stmts;

  constructor(file: string, opts: ExchangeStoreOptions = {}) {
    this.db = openDb(file);
    this.now = opts.now ?? Date.now;
    this.ledgerMs = opts.ledgerMs ?? 24 * 3600_000;
    this.tombstoneMs = opts.tombstoneMs ?? 2000;
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS exchanges (key TEXT PRIMARY KEY, record TEXT NOT NULL, updated_at INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS finished (key TEXT PRIMARY KEY, sends TEXT NOT NULL, at INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS inbound (dedupe_key TEXT PRIMARY KEY, at INTEGER NOT NULL);
      CREATE INDEX IF NOT EXISTS inbound_at ON inbound(at);
      CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT NOT NULL);
    `);
    this.stmts = {
      save: this.db.prepare('INSERT OR REPLACE INTO exchanges (key, record, updated_at) VALUES (?, ?, ?)'),
      remove: this.db.prepare('DELETE FROM exchanges WHERE key = ?'),
      finish: this.db.prepare('INSERT OR REPLACE INTO finished (key, sends, at) VALUES (?, ?, ?)'),
      all: this.db.prepare('SELECT record FROM exchanges ORDER BY updated_at'),
      lastWrite: this.db.prepare('SELECT max(m) AS m FROM (SELECT max(updated_at) AS m FROM exchanges UNION ALL SELECT max(at) FROM finished)'),
      recentFinished: this.db.prepare('SELECT key, sends FROM finished WHERE at >= ? ORDER BY at'),
      pruneFinished: this.db.prepare('DELETE FROM finished WHERE at < ?'),
      mark: this.db.prepare('INSERT OR IGNORE INTO inbound (dedupe_key, at) VALUES (?, ?)'),
      pruneLedger: this.db.prepare('DELETE FROM inbound WHERE at < ?'),
      setMeta: this.db.prepare('INSERT OR REPLACE INTO meta (k, v) VALUES (?, ?)'),
      getMeta: this.db.prepare('SELECT v FROM meta WHERE k = ?'),
    };
  }

  save(key: string, record: PersistedExchange): void {
    this.stmts.save.run(key, JSON.stringify(record), this.now());
  }

  /** The exchange reached a final state; `sends` are the envelopes it sent in its last moments. */
  remove(key: string, sends: Envelope[] = []): void {
    this.stmts.remove.run(key);
    if (sends.length > 0) this.stmts.finish.run(key, JSON.stringify(sends), this.now());
    if (++this.writes % 1000 === 0) this.prune();
  }

  /** Runs `fn` in one transaction: the ledger entry and the snapshot it caused commit together. */
  atomically<T>(fn: () => T): T {
    return this.db.inTransaction ? fn() : this.db.transaction(fn)();
  }

  /** True the first time (sender, reply_with) is seen; false for a copy (offline redelivery, XEP-0198 resend). */
  firstTime(dedupeKey: string): boolean {
    return this.stmts.mark.run(dedupeKey, this.now()).changes === 1;
  }

  /** Live exchanges, oldest first. */
  exchanges(): PersistedExchange[] {
    return (this.stmts.all.all() as Array<{ record: string }>).map((r) => JSON.parse(r.record) as PersistedExchange);
  }

  /** The time of the last write (≈ the moment the previous process died), if any. */
  lastWrite(): number | undefined {
    return (this.stmts.lastWrite.get() as { m: number | null }).m ?? undefined;
  }

  /**
   * Whether the previous process stopped cleanly (SIGTERM: its socket was flushed, nothing to
   * resend). Reading it marks this process as running: a SIGKILL leaves the mark "dirty".
   */
  takeCleanStop(): boolean {
    const clean = (this.stmts.getMeta.get('clean') as { v: string } | undefined)?.v === '1';
    this.stmts.setMeta.run('clean', '0');
    return clean;
  }

  markCleanStop(): void {
    this.stmts.setMeta.run('clean', '1');
  }

  /** Envelopes of exchanges finished within `tombstoneMs` of the last write before the restart. */
  recentlyFinished(): Array<{ key: string; sends: Envelope[] }> {
    const last = this.lastWrite();
    if (last === undefined) return [];
    return (this.stmts.recentFinished.all(last - this.tombstoneMs) as Array<{ key: string; sends: string }>)
      .map((r) => ({ key: r.key, sends: JSON.parse(r.sends) as Envelope[] }));
  }

  prune(): void {
    const now = this.now();
    this.stmts.pruneFinished.run(now - Math.max(10 * this.tombstoneMs, 60_000));
    this.stmts.pruneLedger.run(now - this.ledgerMs);
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
