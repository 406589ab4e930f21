// Who owns a client thread, kept across Presenter restarts (issue "Close the perimeter" §7):
// in memory only, whoever sent a thread id first after a restart took it over and locked its
// owner out. One row per thread in $PARLEY_HOME/data/presenter-threads.sqlite (owner-only, WAL).
import { type Db, type Grouped, groupOn, openDb } from '../../shared/store/index.js';

export interface ThreadOwners {
  get(thread: string): string | undefined;
  set(thread: string, person: string): void;
}

export class SqliteThreadOwners implements ThreadOwners {
  private readonly db: Db;
  private grouped: Grouped | undefined;
  private readonly getStmt;
  private readonly setStmt;

  constructor(file: string) {
    this.db = openDb(file);
    this.db.exec('CREATE TABLE IF NOT EXISTS thread_owners (thread TEXT PRIMARY KEY, person TEXT NOT NULL, at INTEGER NOT NULL)');
    this.getStmt = this.db.prepare<[string], { person: string }>('SELECT person FROM thread_owners WHERE thread = ?');
    // First claim wins: a later claim of the same thread never replaces its owner.
    this.setStmt = this.db.prepare('INSERT OR IGNORE INTO thread_owners (thread, person, at) VALUES (?, ?, ?)');
  }

  get(thread: string): string | undefined {
    return this.getStmt.get(thread)?.person;
  }

  set(thread: string, person: string): void {
    this.setStmt.run(thread, person, Date.now());
  }

  /** The file's connection, for the person's last choices kept beside the owners (shown-choices.ts). */
  get connection(): Db {
    return this.db;
  }

  /** Claims made during an inbound burst commit with it (shared/store/group-commit.ts). */
  group(): Grouped {
    this.grouped ??= groupOn(this.db);
    return this.grouped;
  }

  close(): void {
    if (!this.db.open) return;
    this.grouped?.commit();
    this.db.close();
  }
}
