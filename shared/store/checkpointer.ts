// WAL checkpoints off the event loop (issue 15, "write off the hot path without weakening the
// crash guarantees"). SQLite's auto-checkpoint runs inside the COMMIT that takes the WAL past
// 1,000 pages: that COMMIT copies the pages into the database file and fsyncs it twice, on the
// agent's event loop. Measured with the exchange store's tables, 6,000 group commits: 121–149 µs
// per commit with it, 76–78 µs without; p99 615–630 µs against 165–168 µs, worst 8.5 ms against
// 0.6 ms. Here one worker thread per process checkpoints the hot files (PASSIVE, every
// CHECKPOINT_EVERY_MS) through its own connection, which never blocks the writer; the files'
// own connections run with wal_autocheckpoint = 0.
//
// Durability is unchanged: a transaction is durable when its COMMIT reaches the WAL, before and
// after (synchronous = NORMAL; a checkpoint only moves committed pages into the database file).
// Should the worker fail to start or die, every adopted file gets its auto-checkpoint back, so
// the WAL never grows without bound.
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';

/** How often the worker checkpoints each adopted file. */
export const CHECKPOINT_EVERY_MS = 200;
/** Files per process the worker takes; beyond that a file checkpoints itself (a calendar host's thousands of people, say). */
export const MAX_ADOPTED_FILES = 32;
const SQLITE_DEFAULT_AUTOCHECKPOINT = 1000;

export type ToCheckpointer = { type: 'add' | 'remove'; file: string; everyMs?: number };
export type FromCheckpointer = { type: 'refused'; file: string };

export class Checkpointer {
  private worker: Worker | undefined;
  private failed = false;
  private readonly adopted = new Map<string, Database.Database>();

  /** Takes over `db`'s checkpoints when it can; false: `db` keeps checkpointing itself. */
  adopt(file: string, db: Database.Database): boolean {
    if (this.failed || this.adopted.has(file) || this.adopted.size >= MAX_ADOPTED_FILES) return false;
    const worker = this.start();
    if (!worker) return false;
    db.pragma('wal_autocheckpoint = 0');
    this.adopted.set(file, db);
    worker.postMessage({ type: 'add', file, everyMs: CHECKPOINT_EVERY_MS } satisfies ToCheckpointer);
    return true;
  }

  /** `file`'s connection is closing: the worker closes its own (its last checkpoint included). */
  release(file: string, db: Database.Database): void {
    if (this.adopted.get(file) !== db) return;
    this.adopted.delete(file);
    this.worker?.postMessage({ type: 'remove', file } satisfies ToCheckpointer);
  }

  /** Whether the worker checkpoints `file` now (tests, status). */
  adopts(file: string): boolean {
    return this.adopted.has(file) && !this.failed;
  }

  /** Tests: stop the worker as a crash would. */
  async crashForTest(): Promise<void> {
    await this.worker?.terminate();
  }

  private start(): Worker | undefined {
    if (this.worker) return this.worker;
    try {
      const worker = new Worker(new URL('./checkpoint-worker.js', import.meta.url));
      worker.on('message', (m: FromCheckpointer) => this.giveBack(m.file));
      worker.on('error', () => this.giveBack());
      worker.on('exit', () => this.giveBack());
      worker.unref(); // never what keeps a process alive (after the listeners: adding one refs it again)
      this.worker = worker;
      return worker;
    } catch {
      this.failed = true;
      return undefined;
    }
  }

  /** The worker is gone (or could not open `only`): those files checkpoint themselves again, as SQLite does by default. */
  private giveBack(only?: string): void {
    if (this.failed) return;
    if (only === undefined) this.failed = true;
    for (const [file, db] of this.adopted) {
      if (only !== undefined && file !== only) continue;
      this.adopted.delete(file);
      try {
        if (db.open) db.pragma(`wal_autocheckpoint = ${SQLITE_DEFAULT_AUTOCHECKPOINT}`);
      } catch {
        // closed meanwhile
      }
    }
  }
}

/** The process's checkpointer (one worker thread, started with the first adopted file). */
export const checkpointer = new Checkpointer();
