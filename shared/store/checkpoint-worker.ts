// The checkpointer's worker thread (checkpointer.ts): one connection per adopted file, a PASSIVE
// checkpoint of each every few hundred ms. PASSIVE copies what is committed without waiting for
// or blocking the writer (sqlite.org/c3ref/wal_checkpoint_v2.html); busy_timeout 0, so a lock
// held elsewhere only postpones the copy to the next round.
import { parentPort } from 'node:worker_threads';
import Database from 'better-sqlite3';
import type { FromCheckpointer, ToCheckpointer } from './checkpointer.js';

const files = new Map<string, { db: Database.Database; timer: NodeJS.Timeout }>();

function checkpoint(file: string): void {
  const f = files.get(file);
  if (!f) return;
  try {
    f.db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // busy or gone: the next round tries again; a file deleted under it is dropped at 'remove'
  }
}

function remove(file: string): void {
  const f = files.get(file);
  if (!f) return;
  files.delete(file);
  clearInterval(f.timer);
  try {
    f.db.close(); // the last connection to close checkpoints and removes the WAL
  } catch {
    // already unusable
  }
}

parentPort?.on('message', (m: ToCheckpointer) => {
  if (m.type === 'remove') return remove(m.file);
  if (files.has(m.file)) return;
  try {
    const db = new Database(m.file, { fileMustExist: true });
    db.pragma('busy_timeout = 0');
    files.set(m.file, { db, timer: setInterval(() => checkpoint(m.file), m.everyMs ?? 200) });
  } catch {
    // Cannot open it (removed meanwhile, say): its own connection checkpoints it again.
    parentPort?.postMessage({ type: 'refused', file: m.file } satisfies FromCheckpointer);
  }
});
