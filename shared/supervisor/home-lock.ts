// One supervisor per PARLEY_HOME, decided before anything is touched. The lock is SQLite's
// exclusive lock (POSIX fcntl byte-range locks, which the kernel drops the moment the process
// exits, also after kill -9) on `run/home.lock`, held for the supervisor's life: no stale lock to
// judge, and of two starts at the same instant exactly one goes on.
// The file lies in the home's owner-only `run/` folder, so only the owner can take it. The lock
// was a Linux abstract-namespace socket named after the home's path before: abstract names have
// no permissions, and any local user who bound that name first kept every `npm start` of that
// home from starting (test/unit/supervisor-home-lock.test.ts attacks both ways).
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

export interface HomeLock {
  release(): Promise<void>;
}

/** The lock file of a home. */
export const homeLockFile = (home: string) => path.join(home, 'run', 'home.lock');

/** Holds the home's lock, or undefined when another live process holds it. */
export async function lockHome(home: string): Promise<HomeLock | undefined> {
  const file = homeLockFile(home);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.chmodSync(path.dirname(file), 0o700);
  // No busy wait: a held lock answers SQLITE_BUSY at once.
  const db = new Database(file, { timeout: 0 });
  try {
    fs.chmodSync(file, 0o600);
    // Nothing is ever written: no journal file beside it (one left by a kill would be a "hot journal").
    db.pragma('journal_mode = MEMORY');
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
  } catch (err) {
    db.close();
    if ((err as { code?: string }).code === 'SQLITE_BUSY') return undefined;
    throw err;
  }
  return {
    release: async () => {
      if (!db.open) return;
      db.exec('ROLLBACK');
      db.close();
    },
  };
}
