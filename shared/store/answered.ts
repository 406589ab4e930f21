// Requests answered once (issue 12): the reply a request got is stored in the transaction that
// applied its effect. A durable role's exchange is restored after a kill -9 and runs its invoked
// promise actor again when the crash fell between the effect's commit and the exchange's next
// snapshot (docs/runtime.md: re-run actors must be idempotent); keyed by the request, the re-run
// answers with the stored reply instead of applying the change twice.
import type { Db } from './sqlite.js';

/** How long a reply is kept for a re-run (a restart takes seconds; a day is ample). */
const KEEP_MS = 24 * 3_600_000;

/** A request is its verified sender and its reply_with (unique per sender, seed contract §1). */
export function requestKey(r: { sender_did?: string; reply_with: string }, fromJid: string): string {
  return `${r.sender_did ?? fromJid}|${r.reply_with}`;
}

export class AnsweredRequests {
  private readonly stmts: Record<'get' | 'put' | 'prune', import('better-sqlite3').Statement<unknown[]>>;

  constructor(private readonly db: Db) {
    db.exec(`CREATE TABLE IF NOT EXISTS answered (request TEXT PRIMARY KEY, at INTEGER NOT NULL, reply TEXT NOT NULL);
      CREATE INDEX IF NOT EXISTS answered_at ON answered (at);`);
    this.stmts = {
      get: db.prepare('SELECT reply FROM answered WHERE request = ?'),
      put: db.prepare('INSERT INTO answered VALUES (?, ?, ?)'),
      prune: db.prepare('DELETE FROM answered WHERE at < ?'),
    };
  }

  /**
   * Runs `apply` for the request `key` once: its result is stored in the same transaction (nested
   * in the caller's, if any), and a later call with the same key returns it without running
   * `apply` again. A throw rolls back both. Results must be JSON.
   */
  once<T>(key: string, apply: () => T, now = Date.now()): T {
    return this.db.transaction(() => {
      const done = this.stmts.get.get(key) as { reply: string } | undefined;
      if (done) return JSON.parse(done.reply) as T;
      const out = apply();
      this.stmts.put.run(key, now, JSON.stringify(out ?? null));
      this.stmts.prune.run(now - KEEP_MS);
      return out;
    })();
  }
}
