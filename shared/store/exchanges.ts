// Durable conversations (issue #6 "Durability"): the snapshot of every live exchange actor, the
// envelopes of recently finished ones (resent after a crash; receivers drop copies), and the
// processed-inbound ledger (sender, reply_with) that makes redelivery harmless. One SQLite file
// per durable role ($PARLEY_HOME/data/<name>-exchanges.sqlite); every write is synchronous, so
// what the router recorded before a SIGKILL is there at restart (WAL: a committed transaction
// survives the death of the process). Many agents of one process (the calendar host) share one
// file through views: each view's rows carry its scope as a key prefix, like ReplayLedger's.
import type { Envelope } from '../acl/index.js';
import type { PersistedExchange } from '../runtime/index.js';
import { packRecord, unpackRecord } from './exchange-record.js';
import { createTables, statements } from './exchanges-schema.js';
import { type Grouped, groupOn } from './group-commit.js';
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
  private readonly stmts: ReturnType<typeof statements>;
  /**
   * The file's one transaction wrapper, made once: better-sqlite3 builds a wrapper (five functions
   * and their properties) per db.transaction() call, and atomically() runs for every inbound
   * envelope of a durable role (docs/bench.md "stop 33").
   */
  private readonly tx: (fn: () => unknown) => unknown;
  /** A view's key prefix ('' for the file's owner); a scope is a bare JID, so `scope\n` never prefixes another. */
  private readonly prefix: string;
  private readonly owner: boolean;
  /** The store that owns the file (itself, or the one a view shares). */
  private readonly root: ExchangeStore;
  private grouped: Grouped | undefined;
  /**
   * While the file's group commit is open (the owner's): snapshots to write just before its COMMIT,
   * the latest per exchange (saveLater). An exchange takes several transitions per burst (a
   * Coordinator's conversation ≈ 6); only the state at the commit is what a crash can find.
   */
  private deferring = false;
  private readonly deferred = new Map<string, { view: ExchangeStore; key: string; build: () => PersistedExchange }>();
  /** The owner's: each live exchange's row (full key → rowid), so no index on the key is needed (exchanges-schema.ts). */
  private readonly rowids = new Map<string, number | bigint>();

  /**
   * `file`, or a view of another store for one of many agents in a process (agents/calendar/
   * host.ts): its exchanges, finished sends, inbound ledger and clean-stop mark carry `scope`;
   * pruning and closing belong to the owner.
   */
  constructor(file: string | { share: ExchangeStore; scope: string }, opts: ExchangeStoreOptions = {}) {
    if (typeof file !== 'string') {
      const s = file.share;
      this.db = s.db;
      this.stmts = s.stmts;
      this.tx = s.tx;
      this.now = s.now;
      this.ledgerMs = s.ledgerMs;
      this.tombstoneMs = s.tombstoneMs;
      this.prefix = `${file.scope}\n`;
      this.owner = false;
      this.root = s.root;
      return;
    }
    this.prefix = '';
    this.owner = true;
    this.root = this;
    this.db = openDb(file);
    this.now = opts.now ?? Date.now;
    this.ledgerMs = opts.ledgerMs ?? 24 * 3600_000;
    this.tombstoneMs = opts.tombstoneMs ?? 2000;
    createTables(this.db);
    this.stmts = statements(this.db);
    this.tx = this.db.transaction((fn: () => unknown) => fn());
    this.loadRowids();
  }

  /** The file's connection, for a ledger kept within it (replay-ledger.ts `within`). */
  get connection(): Db {
    return this.root.db;
  }

  /** key → rowid from the file (at open, and after a rollback undid inserts and deletes). */
  private loadRowids(): void {
    this.rowids.clear();
    for (const r of this.stmts.rowids.all() as Array<{ id: number; key: string }>) this.rowids.set(r.key, r.id);
  }

  save(key: string, record: PersistedExchange): void {
    const full = this.prefix + key;
    const root = this.root;
    root.deferred.delete(full);
    const json = packRecord(record);
    const now = this.now();
    const id = root.rowids.get(full);
    if (id !== undefined && this.stmts.update.run(json, now, id, full).changes === 1) return;
    root.rowids.set(full, this.stmts.insert.run(full, json, now).lastInsertRowid);
  }

  /**
   * save(key, build()), built and written just before the open group commit's COMMIT (at once
   * when none is open): the same transaction, so a kill -9 finds what it found before, the state
   * the burst committed, and the transitions in between cost no JSON and no row each. (A handler
   * that throws inside its savepoint no longer takes its snapshot back with it: the state written
   * is the exchange's state in memory at the commit.)
   */
  saveLater(key: string, build: () => PersistedExchange): void {
    const root = this.root;
    if (!root.deferring) return this.save(key, build());
    root.deferred.set(this.prefix + key, { view: this, key, build });
  }

  /** Writes the deferred snapshots (before the group's COMMIT). */
  private writeDeferred(): void {
    const pending = [...this.deferred.values()];
    this.deferred.clear();
    for (const d of pending) d.view.save(d.key, d.build());
  }

  /** The exchange reached a final state; `sends` are the envelopes it sent in its last moments. */
  remove(key: string, sends: Envelope[] = []): void {
    const full = this.prefix + key;
    const root = this.root;
    root.deferred.delete(full);
    const id = root.rowids.get(full);
    // One transaction: a kill -9 between the live record's delete and its tombstone left neither,
    // and the answer that was still in the socket buffer was never sent again (the Coordinator
    // waited its 24 s for a session step that had been applied; durability-sessions.test).
    this.atomically(() => {
      if (id !== undefined) this.stmts.remove.run(id, full);
      if (sends.length > 0) this.stmts.finish.run(full, JSON.stringify(sends), this.now());
    });
    root.rowids.delete(full); // only once deleted: a failed remove leaves the row, and its rowid, live
    if (++this.root.writes % 1000 === 0) this.root.prune();
  }

  /**
   * Runs `fn` in one transaction: the ledger entry and the snapshot it caused commit together.
   * Inside a group commit (group()) it is a savepoint: a throwing `fn` undoes only its own writes.
   */
  atomically<T>(fn: () => T): T {
    try {
      return this.tx(fn) as T;
    } catch (err) {
      // Rolled back: the rows `fn` inserted or deleted are as they were (rare: only failures pay the reload).
      if (this.db.open) this.root.loadRowids();
      throw err;
    }
  }

  /** The file's group commit (group-commit.ts); the owner's connection, so views share it. */
  group(): Grouped {
    const root = this.root;
    if (!root.grouped) {
      const g = groupOn(root.db);
      root.grouped = {
        begin: () => (root.deferring = g.begin()),
        commit: () => {
          // A failing write throws before the COMMIT: GroupCommit rolls this part back.
          if (root.deferring) root.writeDeferred();
          root.deferring = false;
          g.commit();
        },
        rollback: () => {
          root.deferred.clear();
          root.deferring = false;
          g.rollback();
          if (root.db.open) root.loadRowids();
        },
      };
    }
    return root.grouped;
  }

  /** True the first time (sender, reply_with) is seen; false for a copy (offline redelivery, XEP-0198 resend). */
  firstTime(dedupeKey: string): boolean {
    return this.stmts.mark.run(this.prefix + dedupeKey, this.now()).changes === 1;
  }

  /** Live exchanges, oldest first. */
  exchanges(): PersistedExchange[] {
    this.root.writeDeferred();
    return (this.stmts.all.all(...this.scope()) as Array<{ record: string }>).map((r) => unpackRecord(r.record));
  }

  /** The time of the last write (≈ the moment the previous process died), if any. */
  lastWrite(): number | undefined {
    return (this.stmts.lastWrite.get(...this.scope(), ...this.scope()) as { m: number | null }).m ?? undefined;
  }

  /** Bind values selecting this view's rows: `substr(key, 1, length) = prefix` ('' selects all). */
  private scope(): [number, string] {
    return [this.prefix.length, this.prefix];
  }

  /**
   * Whether the previous process stopped cleanly (SIGTERM: its socket was flushed, nothing to
   * resend). Reading it marks this process as running: a SIGKILL leaves the mark "dirty".
   */
  takeCleanStop(): boolean {
    const clean = (this.stmts.getMeta.get(`${this.prefix}clean`) as { v: string } | undefined)?.v === '1';
    this.stmts.setMeta.run(`${this.prefix}clean`, '0');
    return clean;
  }

  markCleanStop(): void {
    this.stmts.setMeta.run(`${this.prefix}clean`, '1');
  }

  /** Envelopes of exchanges finished within `tombstoneMs` of the last write before the restart. */
  recentlyFinished(): Array<{ key: string; sends: Envelope[] }> {
    const last = this.lastWrite();
    if (last === undefined) return [];
    return (this.stmts.recentFinished.all(last - this.tombstoneMs, ...this.scope()) as Array<{ key: string; sends: string }>)
      .map((r) => ({ key: r.key.slice(this.prefix.length), sends: JSON.parse(r.sends) as Envelope[] }));
  }

  /** Drops old finished sends and ledger entries of every view (the file is one). */
  prune(): void {
    if (!this.owner) return this.root.prune();
    if (!this.db.open) return;
    const now = this.now();
    this.stmts.pruneFinished.run(now - Math.max(10 * this.tombstoneMs, 60_000));
    this.stmts.pruneLedger.run(now - this.ledgerMs);
  }

  close(): void {
    if (!this.owner || !this.db.open) return;
    this.grouped?.commit(); // a burst still open at shutdown: its sends went out with it (transport stop)
    this.db.close();
  }
}
