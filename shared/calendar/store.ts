// One person's calendar in better-sqlite3 ($PARLEY_HOME/data/calendar-<person>.sqlite): the
// VEVENT/VTODO components as iCalendar text keyed by (UID, RECURRENCE-ID), the VTIMEZONE
// definitions they use, and the OACoP thread state (revision rule, oacop-rfc §3.4).
import { AnsweredRequests, openDb, type Db } from '../store/index.js';
import { buildCalendar, exportCalendar, splitCalendar, type CalendarItem, type Component, type ItemKind, type TimezoneDef } from './ical.js';

export type ThreadStatus = 'PROPOSED' | 'CONFIRMED' | 'CANCELLED' | 'TASK';

export interface ThreadState {
  threadId: string;
  revision: number;
  status: ThreadStatus;
  /** Requester id (DID, else JID) the thread was opened for. */
  requester: string;
  /** The OACoP object as last received (title, duration, …), JSON. */
  object: Record<string, unknown>;
  slot: { start: string; end: string } | null;
  updated: string;
}

export interface ImportResult {
  events: number;
  todos: number;
  timezones: number;
  /** Components not replaced because the stored SEQUENCE is newer. */
  skipped: number;
}

export class CalendarStore {
  private readonly db: Db;
  private cache: { version: string; events: Component[] } | null = null;
  private version = 0;
  private readonly answered: AnsweredRequests;

  constructor(file: string) {
    this.db = openDb(file);
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS items (
        uid TEXT NOT NULL, recurrence_id TEXT NOT NULL DEFAULT '', kind TEXT NOT NULL, sequence INTEGER NOT NULL,
        summary TEXT NOT NULL, status TEXT NOT NULL, transparent INTEGER NOT NULL, ics TEXT NOT NULL,
        PRIMARY KEY (uid, recurrence_id));
      CREATE TABLE IF NOT EXISTS timezones (tzid TEXT PRIMARY KEY, ics TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS threads (
        thread_id TEXT PRIMARY KEY, revision INTEGER NOT NULL, status TEXT NOT NULL, requester TEXT NOT NULL,
        object TEXT NOT NULL, slot TEXT, updated TEXT NOT NULL);
    `);
    this.answered = new AnsweredRequests(this.db);
  }

  /** Runs an OACoP request's effect once; a re-run after a crash gets the stored answer (shared/store/answered.ts). */
  once<T>(key: string, apply: () => T): T {
    return this.answered.once(key, apply);
  }

  /** Imports a VCALENDAR text; throws IcalError when it does not parse. */
  importIcs(text: string): ImportResult {
    const { timezones, items } = splitCalendar(text);
    const result: ImportResult = { events: 0, todos: 0, timezones: timezones.length, skipped: 0 };
    this.db.transaction(() => {
      for (const tz of timezones) this.putTimezone(tz);
      for (const item of items) {
        if (!this.upsert(item)) result.skipped += 1;
        else if (item.kind === 'VEVENT') result.events += 1;
        else result.todos += 1;
      }
    })();
    return result;
  }

  putTimezone(tz: TimezoneDef): void {
    this.db.prepare('INSERT INTO timezones (tzid, ics) VALUES (?, ?) ON CONFLICT(tzid) DO UPDATE SET ics = excluded.ics').run(tz.tzid, tz.ics);
    this.version += 1;
  }

  /** Stores the component unless the stored one has a higher SEQUENCE; true when written. */
  upsert(item: CalendarItem, { force = false } = {}): boolean {
    const prev = this.item(item.uid, item.recurrenceId);
    if (!force && prev && prev.sequence > item.sequence) return false;
    this.db.prepare(`INSERT INTO items (uid, recurrence_id, kind, sequence, summary, status, transparent, ics)
      VALUES (@uid, @recurrenceId, @kind, @sequence, @summary, @status, @transparent, @ics)
      ON CONFLICT(uid, recurrence_id) DO UPDATE SET kind = excluded.kind, sequence = excluded.sequence,
        summary = excluded.summary, status = excluded.status, transparent = excluded.transparent, ics = excluded.ics`)
      .run({ ...item, transparent: item.transparent ? 1 : 0 });
    this.version += 1;
    return true;
  }

  item(uid: string, recurrenceId = ''): CalendarItem | undefined {
    const row = this.db.prepare('SELECT * FROM items WHERE uid = ? AND recurrence_id = ?').get(uid, recurrenceId) as Record<string, unknown> | undefined;
    return row ? toItem(row) : undefined;
  }

  items(kind?: ItemKind): CalendarItem[] {
    const rows = (kind
      ? this.db.prepare('SELECT * FROM items WHERE kind = ? ORDER BY uid, recurrence_id').all(kind)
      : this.db.prepare('SELECT * FROM items ORDER BY kind, uid, recurrence_id').all()) as Record<string, unknown>[];
    return rows.map(toItem);
  }

  timezones(): TimezoneDef[] {
    return this.db.prepare('SELECT tzid, ics FROM timezones ORDER BY tzid').all() as TimezoneDef[];
  }

  exportIcs(): string {
    return exportCalendar(this.timezones(), this.items());
  }

  /** All VEVENT components parsed inside one VCALENDAR (so TZIDs resolve to stored VTIMEZONEs); cached. */
  events(): Component[] {
    // data_version moves when another connection (npm run calendar -- import) commits.
    const version = `${this.version}/${String(this.db.pragma('data_version', { simple: true }))}`;
    if (this.cache?.version !== version) {
      const cal = buildCalendar(this.timezones(), this.items('VEVENT'));
      this.cache = { version, events: cal.getAllSubcomponents('vevent') };
    }
    return this.cache.events;
  }

  thread(threadId: string): ThreadState | undefined {
    const row = this.db.prepare('SELECT * FROM threads WHERE thread_id = ?').get(threadId) as Record<string, unknown> | undefined;
    if (!row) return undefined;
    return {
      threadId: row.thread_id as string,
      revision: row.revision as number,
      status: row.status as ThreadStatus,
      requester: row.requester as string,
      object: JSON.parse(row.object as string) as Record<string, unknown>,
      slot: row.slot ? (JSON.parse(row.slot as string) as ThreadState['slot']) : null,
      updated: row.updated as string,
    };
  }

  saveThread(t: ThreadState): void {
    this.db.prepare(`INSERT INTO threads (thread_id, revision, status, requester, object, slot, updated)
      VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(thread_id) DO UPDATE SET revision = excluded.revision, status = excluded.status,
        requester = excluded.requester, object = excluded.object, slot = excluded.slot, updated = excluded.updated`)
      .run(t.threadId, t.revision, t.status, t.requester, JSON.stringify(t.object), t.slot ? JSON.stringify(t.slot) : null, t.updated);
  }

  /** Runs fn in one SQLite transaction (check-then-write of Confirm must not interleave). */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  close(): void {
    this.db.close();
  }
}

function toItem(row: Record<string, unknown>): CalendarItem {
  return {
    uid: row.uid as string,
    recurrenceId: row.recurrence_id as string,
    kind: row.kind as ItemKind,
    sequence: row.sequence as number,
    summary: row.summary as string,
    status: row.status as string,
    transparent: row.transparent === 1,
    ics: row.ics as string,
  };
}
