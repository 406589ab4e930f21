// The KB's storage behind one small interface, with a memory and a SQLite implementation
// (botkit repository.ts style). Both answer GET_FACTS with the same semantics (seed contract
// §2.4, unit-tested side by side): every given filter field must match; `text` is a
// case-insensitive substring of the JSON of the value; newest first (by ts, then by arrival);
// at most `limit` facts (default 20).
import type { Fact, FactFilter, StoredFact } from '../contracts/index.js';
import type { Db } from './sqlite.js';
import { openDb } from './sqlite.js';
import { type Grouped, groupOn } from './group-commit.js';

export type { Fact, FactFilter, StoredFact };

export const DEFAULT_FACT_LIMIT = 20;
export const MAX_FACT_LIMIT = 1000; // contracts/get-facts.json filter.limit maximum

export interface FactStore {
  /** Stores one fact durably; throws when it cannot (the KB answers KB_STORE_FAILED). */
  add(fact: Fact): void;
  query(filter: FactFilter): StoredFact[];
  close(): void;
}

/** The text a `text` filter searches: JSON of the value, lower-cased in JS (Unicode-aware). */
export function searchText(value: Fact['value']): string {
  return JSON.stringify(value).toLowerCase();
}

export function effectiveLimit(filter: FactFilter): number {
  return Math.min(Math.max(1, Math.floor(filter.limit ?? DEFAULT_FACT_LIMIT)), MAX_FACT_LIMIT);
}

/** Time of a fact for ordering; an unparsable ts sorts oldest (never throws). */
export function factTime(ts: string): number {
  const t = Date.parse(ts);
  return Number.isFinite(t) ? t : 0;
}

export function factMatches(fact: Fact, filter: FactFilter): boolean {
  if (filter.session_id !== undefined && fact.session_id !== filter.session_id) return false;
  if (filter.slot !== undefined && fact.slot !== filter.slot) return false;
  if (filter.subject !== undefined && fact.subject !== filter.subject) return false;
  if (filter.text !== undefined && !searchText(fact.value).includes(filter.text.toLowerCase())) return false;
  return true;
}

/** The reply shape: the stored fact without absent optional fields. */
function stored(fact: Fact): StoredFact {
  const out: StoredFact = { session_id: fact.session_id, slot: fact.slot, value: fact.value, confidence: fact.confidence, ts: fact.ts };
  if (fact.subject !== undefined) out.subject = fact.subject;
  return out;
}

export class MemoryFactStore implements FactStore {
  private readonly facts: Array<{ seq: number; fact: Fact }> = [];
  private seq = 0;

  add(fact: Fact): void {
    this.facts.push({ seq: ++this.seq, fact: structuredClone(fact) });
  }
  query(filter: FactFilter): StoredFact[] {
    return this.facts
      .filter((f) => factMatches(f.fact, filter))
      .sort((a, b) => factTime(b.fact.ts) - factTime(a.fact.ts) || b.seq - a.seq)
      .slice(0, effectiveLimit(filter))
      .map((f) => stored(structuredClone(f.fact)));
  }
  close(): void {}
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS facts (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id TEXT NOT NULL,
  slot TEXT NOT NULL,
  subject TEXT,
  value TEXT NOT NULL,
  search TEXT NOT NULL,
  confidence REAL NOT NULL,
  ts TEXT NOT NULL,
  ts_ms INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS facts_session ON facts(session_id, ts_ms);
CREATE INDEX IF NOT EXISTS facts_subject ON facts(subject, ts_ms);
CREATE INDEX IF NOT EXISTS facts_time ON facts(ts_ms);`;

interface Row {
  session_id: string;
  slot: string;
  subject: string | null;
  value: string;
  confidence: number;
  ts: string;
}

/** Durable across restarts: `$PARLEY_HOME/data/kb.sqlite` in production, `:memory:` in tests. */
export class SqliteFactStore implements FactStore {
  private readonly db: Db;
  private grouped: Grouped | undefined;
  private readonly insert;

  constructor(file: string) {
    this.db = openDb(file);
    this.db.exec(SCHEMA);
    this.insert = this.db.prepare(
      `INSERT INTO facts (session_id, slot, subject, value, search, confidence, ts, ts_ms)
       VALUES (@session_id, @slot, @subject, @value, @search, @confidence, @ts, @ts_ms)`,
    );
  }

  add(fact: Fact): void {
    this.insert.run({
      session_id: fact.session_id,
      slot: fact.slot,
      subject: fact.subject ?? null,
      value: JSON.stringify(fact.value),
      search: searchText(fact.value),
      confidence: fact.confidence,
      ts: fact.ts,
      ts_ms: factTime(fact.ts),
    });
  }

  query(filter: FactFilter): StoredFact[] {
    const where: string[] = [];
    const params: Record<string, string | number> = { limit: effectiveLimit(filter) };
    for (const key of ['session_id', 'slot', 'subject'] as const) {
      const v = filter[key];
      if (v === undefined) continue;
      where.push(`${key} = @${key}`);
      params[key] = v;
    }
    if (filter.text !== undefined) {
      // instr, not LIKE: the needle's % and _ are literal characters here.
      where.push('instr(search, @text) > 0');
      params.text = filter.text.toLowerCase();
    }
    const sql = `SELECT session_id, slot, subject, value, confidence, ts FROM facts
      ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY ts_ms DESC, seq DESC LIMIT @limit`;
    return (this.db.prepare(sql).all(params) as Row[]).map((row) => {
      const fact: StoredFact = { session_id: row.session_id, slot: row.slot, value: JSON.parse(row.value) as Fact['value'], confidence: row.confidence, ts: row.ts };
      if (row.subject !== null) fact.subject = row.subject;
      return fact;
    });
  }

  /** Inserts during a burst commit with it (shared/store/group-commit.ts): the KB's STORED leaves after its fact is committed. */
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
