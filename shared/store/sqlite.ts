// better-sqlite3 opened the same way everywhere: WAL (readers never block the writer, and the
// trace CLI can read a live agent's database), NORMAL sync (durable at checkpoints, fast).
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

export type Db = Database.Database;

export function openDb(file: string, { readonly = false } = {}): Db {
  if (file !== ':memory:' && !readonly) fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file, { readonly, fileMustExist: readonly });
  db.pragma('busy_timeout = 5000');
  if (!readonly) {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
  }
  return db;
}
