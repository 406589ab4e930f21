// The exchange store's tables (exchanges.ts) and their statements. Rows are appended in rowid
// order and found by rowid (the store keeps key → rowid in memory), never through an index on a
// random key: such an index put every commit's rows on random B-tree pages, each one more WAL
// frame (two pwrite calls) per commit (issue 15; the replay ledger had the same cost). The inbound
// ledger must answer "seen before?" by key, so it is one B-tree keyed by it (WITHOUT ROWID)
// instead of a table plus its key index.
import { type Layout, relayout } from './relayout.js';
import type { Db } from './sqlite.js';

export function createTables(db: Db): void {
  relayout(db, LAYOUTS);
  db.exec(`
    CREATE TABLE IF NOT EXISTS exchanges (key TEXT NOT NULL, record TEXT NOT NULL, updated_at INTEGER NOT NULL);
    CREATE TABLE IF NOT EXISTS finished (key TEXT NOT NULL, sends TEXT NOT NULL, at INTEGER NOT NULL);
    CREATE INDEX IF NOT EXISTS finished_at ON finished(at);
    CREATE TABLE IF NOT EXISTS inbound (dedupe_key TEXT PRIMARY KEY, at INTEGER NOT NULL) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS inbound_at ON inbound(at);
    CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT NOT NULL);
  `);
}

export function statements(db: Db) {
  // `substr(key, 1, ?) = ?` selects a view's rows (length 0 and '' select every row: the owner's).
  const mine = 'substr(key, 1, ?) = ?';
  return {
    insert: db.prepare('INSERT INTO exchanges (key, record, updated_at) VALUES (?, ?, ?)'),
    // The key is checked too: a rowid remembered from a rolled-back insert may belong to another row by now.
    update: db.prepare('UPDATE exchanges SET record = ?, updated_at = ? WHERE rowid = ? AND key = ?'),
    remove: db.prepare('DELETE FROM exchanges WHERE rowid = ? AND key = ?'),
    rowids: db.prepare('SELECT rowid AS id, key FROM exchanges ORDER BY rowid'),
    finish: db.prepare('INSERT INTO finished (key, sends, at) VALUES (?, ?, ?)'),
    all: db.prepare(`SELECT record FROM exchanges WHERE ${mine} ORDER BY updated_at`),
    lastWrite: db.prepare(`SELECT max(m) AS m FROM (SELECT max(updated_at) AS m FROM exchanges WHERE ${mine} UNION ALL SELECT max(at) FROM finished WHERE ${mine})`),
    recentFinished: db.prepare(`SELECT key, sends FROM finished WHERE at >= ? AND ${mine} ORDER BY at`),
    pruneFinished: db.prepare('DELETE FROM finished WHERE at < ?'),
    mark: db.prepare('INSERT OR IGNORE INTO inbound (dedupe_key, at) VALUES (?, ?)'),
    pruneLedger: db.prepare('DELETE FROM inbound WHERE at < ?'),
    setMeta: db.prepare('INSERT OR REPLACE INTO meta (k, v) VALUES (?, ?)'),
    getMeta: db.prepare('SELECT v FROM meta WHERE k = ?'),
  };
}

/** New layouts of the tables an earlier store wrote (keyed by key). */
const LAYOUTS: readonly Layout[] = [
  {
    table: 'exchanges', old: (sql) => /PRIMARY KEY/i.test(sql), columns: 'key, record, updated_at', order: 'rowid',
    create: 'CREATE TABLE exchanges (key TEXT NOT NULL, record TEXT NOT NULL, updated_at INTEGER NOT NULL)',
  },
  {
    table: 'finished', old: (sql) => /PRIMARY KEY/i.test(sql), columns: 'key, sends, at', order: 'rowid',
    create: 'CREATE TABLE finished (key TEXT NOT NULL, sends TEXT NOT NULL, at INTEGER NOT NULL)',
  },
  {
    table: 'inbound', old: (sql) => !/WITHOUT ROWID/i.test(sql), columns: 'dedupe_key, at', order: 'rowid', indexes: ['inbound_at'],
    create: 'CREATE TABLE inbound (dedupe_key TEXT PRIMARY KEY, at INTEGER NOT NULL) WITHOUT ROWID',
  },
];
