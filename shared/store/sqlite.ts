// better-sqlite3 opened the same way everywhere: WAL (readers never block the writer, and the
// trace CLI can read a live agent's database), NORMAL sync (durable at checkpoints, fast).
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { checkpointer } from './checkpointer.js';

export type Db = Database.Database;

export interface OpenOptions {
  readonly?: boolean;
  /**
   * A file on an agent's hot path (exchanges, replay ledger, telemetry, …): its WAL checkpoints
   * run on the process's checkpointer thread, not inside its COMMITs (checkpointer.ts).
   */
  offThreadCheckpoints?: boolean;
}

export function openDb(file: string, { readonly = false, offThreadCheckpoints = false }: OpenOptions = {}): Db {
  if (file !== ':memory:' && !readonly) fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file, { readonly, fileMustExist: readonly });
  db.pragma('busy_timeout = 5000');
  if (!readonly) {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
  }
  if (offThreadCheckpoints && !readonly && file !== ':memory:') {
    const full = path.resolve(file);
    if (checkpointer.adopt(full, db)) {
      const close = db.close.bind(db);
      db.close = () => {
        checkpointer.release(full, db);
        return close();
      };
    }
  }
  return db;
}
