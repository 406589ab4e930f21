// One row per person in presenter-threads.sqlite (what was shown last: shown-choices.ts, last-value.ts),
// good for `ttlMs`, with who has a row kept in memory: every answer to a person passes `drop`, and
// most have nothing to forget.
import type { Db } from '../../shared/store/index.js';

export class PersonRows {
  private readonly putStmt;
  private readonly getStmt;
  private readonly dropStmt;
  private readonly holders: Set<string>;

  /** `table` (person, `column`, at); an identifier of this code's own, never a person's text. */
  constructor(db: Db, table: string, column: string, private readonly ttlMs: number, private readonly now: () => number) {
    db.exec(`CREATE TABLE IF NOT EXISTS ${table} (person TEXT PRIMARY KEY, ${column} TEXT NOT NULL, at INTEGER NOT NULL)`);
    this.putStmt = db.prepare(`INSERT OR REPLACE INTO ${table} (person, ${column}, at) VALUES (?, ?, ?)`);
    this.getStmt = db.prepare<[string], { v: string; at: number }>(`SELECT ${column} AS v, at FROM ${table} WHERE person = ?`);
    this.dropStmt = db.prepare(`DELETE FROM ${table} WHERE person = ?`);
    this.holders = new Set((db.prepare(`SELECT person FROM ${table}`).all() as Array<{ person: string }>).map((r) => r.person));
  }

  put(person: string, value: string): void {
    this.putStmt.run(person, value, this.now());
    this.holders.add(person);
  }

  /** The person's value while it is fresh, if any (no statement runs for someone without one). */
  get(person: string): string | undefined {
    const row = this.holders.has(person) ? this.getStmt.get(person) : undefined;
    return row && this.now() - row.at <= this.ttlMs ? row.v : undefined;
  }

  drop(person: string): void {
    if (this.holders.delete(person)) this.dropStmt.run(person);
  }
}
