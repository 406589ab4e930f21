// The sessions agent's store ($PARLEY_HOME/data/sessions.sqlite): sessions with their state
// and state_version, the admission ledger (RFC 0001 §5.1) and the hash-chained turn log (§3.5).
// Callers wrap check-and-write in `transact` so a turn, its state and its version land together
// (§3.4 "atomically") or not at all. The CLI (scripts/session-cli.ts) reads the same file.
import path from 'node:path';
import { paths, type ParleyConfig } from '../config/index.js';
import { AnsweredRequests, type Db, openDb } from '../store/index.js';
import type { Turn } from './chain.js';

export const sessionsDbFile = (cfg: ParleyConfig): string => path.join(paths(cfg).data, 'sessions.sqlite');

export interface SessionRow {
  id: string;
  convener: string;
  /** The person a Presenter convened for (docs/sessions.md), else null. */
  on_behalf_of: string | null;
  /** Whose quota the session counts against: the person, else the convener DID (§5.3). */
  quota_key: string;
  title: string | null;
  state_schema: string;
  state: Record<string, unknown>;
  state_version: number;
  status: 'open' | 'closed';
  max_participants: number;
  created_at: string;
  expires_at: string;
}

export interface Participant {
  did: string;
  name: string | null;
  admitted_at: string;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS sessions (
  id TEXT PRIMARY KEY, convener TEXT NOT NULL, on_behalf_of TEXT, quota_key TEXT NOT NULL, title TEXT,
  state_schema TEXT NOT NULL, state TEXT NOT NULL, state_version INTEGER NOT NULL, status TEXT NOT NULL,
  max_participants INTEGER NOT NULL, created_at TEXT NOT NULL, expires_at TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS sessions_quota ON sessions (quota_key, status);
CREATE TABLE IF NOT EXISTS participants (
  session_id TEXT NOT NULL, did TEXT NOT NULL, name TEXT, admitted_at TEXT NOT NULL, PRIMARY KEY (session_id, did));
CREATE TABLE IF NOT EXISTS turns (
  session_id TEXT NOT NULL, seq INTEGER NOT NULL, turn_id TEXT NOT NULL, previous_turn_id TEXT, op TEXT NOT NULL,
  actor TEXT NOT NULL, at TEXT NOT NULL, body TEXT NOT NULL, hash TEXT NOT NULL, PRIMARY KEY (session_id, seq));
-- Ids of deleted sessions (only the id and when): a deleted session's id is never used again.
CREATE TABLE IF NOT EXISTS deleted_sessions (id TEXT PRIMARY KEY, deleted_at TEXT NOT NULL);`;

type Raw<T> = { [K in keyof T]: T[K] extends object | null ? string | null : T[K] };

const toSession = (r: Raw<SessionRow>): SessionRow => ({ ...r, state: JSON.parse(r.state as string) as Record<string, unknown> } as SessionRow);
const toTurn = (r: Raw<Turn>): Turn => ({ ...r, body: JSON.parse(r.body as string) as Record<string, unknown> } as Turn);

export class SessionStore {
  readonly db: Db;
  private readonly answered: AnsweredRequests | undefined;

  constructor(file: string, opts: { readonly?: boolean } = {}) {
    this.db = openDb(file, opts);
    if (!opts.readonly) this.db.exec(SCHEMA);
    this.answered = opts.readonly ? undefined : new AnsweredRequests(this.db);
  }

  /** Runs `fn` in one SQLite transaction (rolled back if it throws). */
  transact<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  get(id: string): SessionRow | undefined {
    const r = this.db.prepare('SELECT * FROM sessions WHERE id = ?').get(id) as Raw<SessionRow> | undefined;
    return r ? toSession(r) : undefined;
  }

  list(): SessionRow[] {
    return (this.db.prepare('SELECT * FROM sessions ORDER BY created_at, id').all() as Raw<SessionRow>[]).map(toSession);
  }

  countOpen(quotaKey: string): number {
    return (this.db.prepare("SELECT count(*) AS n FROM sessions WHERE quota_key = ? AND status = 'open'").get(quotaKey) as { n: number }).n;
  }

  insert(s: SessionRow): void {
    this.db.prepare(`INSERT INTO sessions VALUES (@id, @convener, @on_behalf_of, @quota_key, @title, @state_schema, @state,
      @state_version, @status, @max_participants, @created_at, @expires_at)`).run({ ...s, state: JSON.stringify(s.state) });
  }

  /** Writes the changed fields of a session. */
  patch(id: string, fields: Partial<Pick<SessionRow, 'convener' | 'quota_key' | 'state' | 'state_version' | 'status'>>): void {
    const cols = Object.keys(fields);
    if (cols.length === 0) return;
    const values = { ...fields, ...(fields.state ? { state: JSON.stringify(fields.state) } : {}), id };
    this.db.prepare(`UPDATE sessions SET ${cols.map((c) => `${c} = @${c}`).join(', ')} WHERE id = @id`).run(values);
  }

  participants(id: string): Participant[] {
    return this.db.prepare('SELECT did, name, admitted_at FROM participants WHERE session_id = ? ORDER BY admitted_at, did').all(id) as Participant[];
  }

  isParticipant(id: string, did: string): boolean {
    return this.db.prepare('SELECT 1 FROM participants WHERE session_id = ? AND did = ?').get(id, did) !== undefined;
  }

  admit(id: string, p: Participant): void {
    this.db.prepare('INSERT INTO participants VALUES (?, ?, ?, ?)').run(id, p.did, p.name, p.admitted_at);
  }

  remove(id: string, did: string): void {
    this.db.prepare('DELETE FROM participants WHERE session_id = ? AND did = ?').run(id, did);
  }

  turns(id: string, afterSeq = 0): Turn[] {
    return (this.db.prepare('SELECT * FROM turns WHERE session_id = ? AND seq > ? ORDER BY seq').all(id, afterSeq) as Raw<Turn>[]).map(toTurn);
  }

  lastTurn(id: string): Turn | undefined {
    const r = this.db.prepare('SELECT * FROM turns WHERE session_id = ? ORDER BY seq DESC LIMIT 1').get(id) as Raw<Turn> | undefined;
    return r ? toTurn(r) : undefined;
  }

  append(t: Turn): void {
    this.db.prepare(`INSERT INTO turns VALUES (@session_id, @seq, @turn_id, @previous_turn_id, @op, @actor, @at, @body, @hash)`)
      .run({ ...t, body: JSON.stringify(t.body) });
  }

  /** RFC 0001 §6: the session's state, admission ledger and log are gone; returns the turns removed. */
  delete(id: string): number {
    return this.transact(() => {
      const n = this.db.prepare('DELETE FROM turns WHERE session_id = ?').run(id).changes;
      this.db.prepare('DELETE FROM participants WHERE session_id = ?').run(id);
      this.db.prepare('DELETE FROM sessions WHERE id = ?').run(id);
      this.db.prepare('INSERT OR IGNORE INTO deleted_sessions VALUES (?, ?)').run(id, new Date().toISOString());
      return n;
    });
  }

  /** True when a session with this id existed and was deleted (its id is retired). */
  wasDeleted(id: string): boolean {
    const has = this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'deleted_sessions'").get() !== undefined;
    return has && this.db.prepare('SELECT 1 FROM deleted_sessions WHERE id = ?').get(id) !== undefined;
  }

  /** Runs a request's effect once; a re-run after a crash gets the stored reply (shared/store/answered.ts). */
  once<T>(key: string, apply: () => T): T {
    if (!this.answered) throw new Error('the session store is read-only');
    return this.answered.once(key, apply);
  }

  close(): void {
    this.db.close();
  }
}
