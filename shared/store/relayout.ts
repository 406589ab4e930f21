// A table's rows moved to a new layout when an older file is opened (issue 15: the exchange store
// and the replay ledger stopped indexing random keys). Each table due is renamed, made anew,
// filled from the old one and the old one dropped, all in one transaction, so a kill leaves the
// old layout or the new one, never half of each.
import type { Db } from './sqlite.js';

export interface Layout {
  table: string;
  /** True when the table's CREATE statement (sqlite_master.sql) is the old layout. */
  old: (sql: string) => boolean;
  /** The new CREATE TABLE statement. */
  create: string;
  /** The columns copied, in both layouts. */
  columns: string;
  /** The order rows are copied in (appended tables keep it as their rowid order). */
  order: string;
  /** Indexes of the old table to drop first: index names are global, and the caller makes them anew. */
  indexes?: string[];
}

export function relayout(db: Db, layouts: readonly Layout[]): void {
  const tables = new Map((db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string; sql: string }>).map((t) => [t.name, t.sql]));
  const due = layouts.filter((l) => tables.has(l.table) && l.old(tables.get(l.table) as string));
  if (due.length === 0) return;
  db.transaction(() => {
    for (const l of due) {
      for (const i of l.indexes ?? []) db.exec(`DROP INDEX IF EXISTS ${i}`);
      db.exec(`ALTER TABLE ${l.table} RENAME TO ${l.table}_keyed; ${l.create};
        INSERT INTO ${l.table} (${l.columns}) SELECT ${l.columns} FROM ${l.table}_keyed ORDER BY ${l.order}; DROP TABLE ${l.table}_keyed;`);
    }
  })();
}
