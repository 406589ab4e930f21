// The Coordinator's memory of what it initiated (OACoP §3, §4), in
// $PARLEY_HOME/data/scheduling.sqlite: meetings per organizer ("cancel that meeting") and tasks
// (the assignee's answers in chat, and whom to tell of each TaskUpdate). main.ts wraps these
// calls in promise actors; the USER_MSG factory reads `openTasks` to route an assignee's answer.
import type { AskedBack } from './follow-up.js';
import fs from 'node:fs';
import path from 'node:path';
import { type Db, openDb } from '../../../shared/store/index.js';
import { personOfCalendar } from './oacop.js';
import type { Window } from './slots.js';

export interface MeetingRecord {
  threadId: string;
  /** Bare JID of the person who asked. */
  organizer: string;
  title: string;
  slot: Window;
  revision: number;
  /** Logical names of the calendar agents that confirmed (calendar-bob, …). */
  participants: string[];
  /** room-<name>, when one was booked. */
  room?: string;
  status: 'CONFIRMED' | 'CANCELLED';
}

export interface TaskRecord {
  threadId: string;
  /** Bare JIDs of who assigned it and who must do it; the assignee's calendar agent name. */
  assigner: string;
  assignee: string;
  agent: string;
  title: string;
  deadline: string;
  status: 'ASSIGNED' | 'ACCEPTED' | 'DECLINED' | 'IN_PROGRESS' | 'COMPLETED' | 'BLOCKED';
  progress?: number;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meetings (
  thread_id TEXT PRIMARY KEY, organizer TEXT NOT NULL, title TEXT NOT NULL, start TEXT NOT NULL, end TEXT NOT NULL,
  revision INTEGER NOT NULL, participants TEXT NOT NULL, room TEXT, status TEXT NOT NULL, updated_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS meetings_organizer ON meetings(organizer, updated_at);
CREATE TABLE IF NOT EXISTS tasks (
  thread_id TEXT PRIMARY KEY, assigner TEXT NOT NULL, assignee TEXT NOT NULL, agent TEXT NOT NULL, title TEXT NOT NULL,
  deadline TEXT NOT NULL, status TEXT NOT NULL, progress INTEGER, updated_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS tasks_assignee ON tasks(assignee, updated_at);
CREATE TABLE IF NOT EXISTS time_zones (person TEXT PRIMARY KEY, zone TEXT NOT NULL, updated_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS listings (person TEXT PRIMARY KEY, thread_ids TEXT NOT NULL, shown_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS asked_back (person TEXT PRIMARY KEY, text TEXT NOT NULL, missing TEXT NOT NULL, at REAL NOT NULL, used_by TEXT);
CREATE TABLE IF NOT EXISTS meeting_claims (thread_id TEXT PRIMARY KEY, until REAL NOT NULL);`;

/** How long "cancel meeting 2" means the second of the list last shown, not of today's list. */
export const LISTING_TTL_MS = 12 * 3600_000;

/** Tasks the assignee can still answer: not declined, not done. */
const OPEN = `status IN ('ASSIGNED', 'ACCEPTED', 'IN_PROGRESS', 'BLOCKED')`;

interface MeetingRow {
  thread_id: string; organizer: string; title: string; start: string; end: string; revision: number; participants: string; room: string | null; status: string;
}
interface TaskRow {
  thread_id: string; assigner: string; assignee: string; agent: string; title: string; deadline: string; status: string; progress: number | null;
}

const meeting = (r: MeetingRow): MeetingRecord => ({
  threadId: r.thread_id, organizer: r.organizer, title: r.title, slot: { start: r.start, end: r.end }, revision: r.revision,
  participants: JSON.parse(r.participants) as string[], ...(r.room ? { room: r.room } : {}), status: r.status as MeetingRecord['status'],
});
const task = (r: TaskRow): TaskRecord => ({
  threadId: r.thread_id, assigner: r.assigner, assignee: r.assignee, agent: r.agent, title: r.title, deadline: r.deadline,
  status: r.status as TaskRecord['status'], ...(r.progress !== null ? { progress: r.progress } : {}),
});

export class SchedulingStore {
  private readonly db: Db;
  private seq = 0;
  private zoneCache: Record<string, string> | undefined;
  /** Who has an asked_back row (follow-up.ts), read once. */
  private asked: Set<string> | undefined;

  constructor(file: string) {
    moveLegacyFile(file);
    this.db = openDb(file);
    this.db.exec(SCHEMA);
  }

  /** Monotonic within the process so "the last meeting" is well defined even within one ms. */
  private stamp(): number {
    this.seq += 1;
    return Date.now() + this.seq / 1e6;
  }

  saveMeeting(m: MeetingRecord): void {
    this.db.prepare(`INSERT INTO meetings VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT(thread_id) DO UPDATE SET start = excluded.start, end = excluded.end, revision = excluded.revision,
      participants = excluded.participants, room = excluded.room, status = excluded.status, updated_at = excluded.updated_at`)
      .run(m.threadId, m.organizer, m.title, m.slot.start, m.slot.end, m.revision, JSON.stringify(m.participants), m.room ?? null, m.status, this.stamp());
  }

  /**
   * The organizer's most recently booked meeting, cancelled or not (rowid: the booking's order; a
   * cancel updates the row in place). "cancel that meeting" said twice must not reach back to an
   * older meeting: cancel.ts answers that this one is cancelled already.
   */
  lastMeeting(organizer: string): MeetingRecord | undefined {
    const r = this.db.prepare('SELECT * FROM meetings WHERE organizer = ? ORDER BY rowid DESC LIMIT 1').get(organizer) as MeetingRow | undefined;
    return r ? meeting(r) : undefined;
  }

  /** The assignee's open tasks, the last assigned first (pick-task.ts), at most `limit`. */
  openTasks(assignee: string, limit = 50): TaskRecord[] {
    return (this.db.prepare(`SELECT * FROM tasks WHERE assignee = ? AND ${OPEN} ORDER BY rowid DESC LIMIT ?`).all(assignee, limit) as TaskRow[]).map(task);
  }

  /**
   * "my meetings": the booked meetings not yet over that `person` organized or attends (a
   * participant is a calendar agent: calendar-bob or bob@calendars.<domain>), soonest first.
   */
  meetingsAhead(person: string, now: string, domain: string, limit = 20): MeetingRecord[] {
    const name = person.split('@')[0] ?? person;
    const rows = this.db.prepare(`SELECT * FROM meetings WHERE status = 'CONFIRMED' AND end > ? AND (organizer = ? OR instr(participants, ?) > 0)
      ORDER BY start LIMIT ?`).all(now, person, name, limit * 5) as MeetingRow[];
    const attends = (m: MeetingRecord) => m.participants.some((p) => personOfCalendar(p, domain) === person);
    return rows.map(meeting).filter((m) => m.organizer === person || attends(m)).slice(0, limit);
  }

  /** "my tasks": open tasks given to or by `person`, the nearest due date first. */
  openTasksOf(person: string, limit = 20): TaskRecord[] {
    const rows = this.db.prepare(`SELECT * FROM tasks WHERE (assignee = ? OR assigner = ?) AND ${OPEN} ORDER BY deadline LIMIT ?`).all(person, person, limit) as TaskRow[];
    return rows.map(task);
  }

  saveTask(t: TaskRecord): void {
    this.db.prepare(`INSERT INTO tasks VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT(thread_id) DO UPDATE SET status = excluded.status, progress = excluded.progress, updated_at = excluded.updated_at`)
      .run(t.threadId, t.assigner, t.assignee, t.agent, t.title, t.deadline, t.status, t.progress ?? null, this.stamp());
  }

  task(threadId: string): TaskRecord | undefined {
    const r = this.db.prepare('SELECT * FROM tasks WHERE thread_id = ?').get(threadId) as TaskRow | undefined;
    return r ? task(r) : undefined;
  }


  meeting(threadId: string): MeetingRecord | undefined {
    const r = this.db.prepare('SELECT * FROM meetings WHERE thread_id = ?').get(threadId) as MeetingRow | undefined;
    return r ? meeting(r) : undefined;
  }

  /**
   * The numbered meetings a person was last shown ("my meetings"): "cancel meeting 2" then means
   * that list's second, even after a meeting ended or another was booked in between.
   */
  saveListing(person: string, threadIds: readonly string[]): void {
    this.db.prepare('INSERT INTO listings VALUES (?, ?, ?) ON CONFLICT(person) DO UPDATE SET thread_ids = excluded.thread_ids, shown_at = excluded.shown_at')
      .run(person, JSON.stringify(threadIds), Date.now());
  }

  /** The list last shown to `person`, if within LISTING_TTL_MS of `now` (epoch ms). */
  listing(person: string, now = Date.now()): string[] | undefined {
    const r = this.db.prepare('SELECT thread_ids, shown_at FROM listings WHERE person = ?').get(person) as { thread_ids: string; shown_at: number } | undefined;
    return r && now - r.shown_at < LISTING_TTL_MS ? (JSON.parse(r.thread_ids) as string[]) : undefined;
  }

  /** What the Coordinator asked `person` back about (follow-up.ts); the next one replaces it, ASKED_BACK_TTL_MS ends it. */
  saveAskedBack(person: string, asked: AskedBack): void {
    this.db.prepare('INSERT INTO asked_back VALUES (?, ?, ?, ?, ?) ON CONFLICT(person) DO UPDATE SET text = excluded.text, missing = excluded.missing, at = excluded.at, used_by = excluded.used_by')
      .run(person, asked.text, asked.missing, asked.at, asked.usedBy ?? null);
    this.askedHolders().add(person);
  }

  /** Read for every USER_MSG (the hot path): who has a row is kept in memory, so most questions run no statement. */
  askedBack(person: string): AskedBack | undefined {
    if (!this.askedHolders().has(person)) return undefined;
    const r = this.db.prepare('SELECT text, missing, at, used_by FROM asked_back WHERE person = ?').get(person) as { text: string; missing: AskedBack['missing']; at: number; used_by: string | null } | undefined;
    return r ? { text: r.text, missing: r.missing, at: r.at, ...(r.used_by ? { usedBy: r.used_by } : {}) } : undefined;
  }

  private askedHolders(): Set<string> {
    this.asked ??= new Set((this.db.prepare('SELECT person FROM asked_back').all() as Array<{ person: string }>).map((r) => r.person));
    return this.asked;
  }

  /** meeting-locks.ts ClaimRows: one statement, so a claim is taken or refused atomically. */
  claimRow(threadId: string, until: number, now: number): boolean {
    return this.db.prepare('INSERT INTO meeting_claims VALUES (?, ?) ON CONFLICT(thread_id) DO UPDATE SET until = excluded.until WHERE meeting_claims.until <= ?')
      .run(threadId, until, now).changes === 1;
  }

  releaseRow(threadId: string): void {
    this.db.prepare('DELETE FROM meeting_claims WHERE thread_id = ?').run(threadId);
  }

  /** "my time zone is …" (zones.ts). */
  saveZone(person: string, zone: string): void {
    this.db.prepare('INSERT INTO time_zones VALUES (?, ?, ?) ON CONFLICT(person) DO UPDATE SET zone = excluded.zone, updated_at = excluded.updated_at')
      .run(person, zone, Date.now());
    this.zoneCache = undefined;
  }

  /** Every person's zone; read on each USER_MSG, so cached until the next save. */
  zones(): Record<string, string> {
    this.zoneCache ??= Object.fromEntries((this.db.prepare('SELECT person, zone FROM time_zones').all() as Array<{ person: string; zone: string }>).map((r) => [r.person, r.zone]));
    return this.zoneCache;
  }

  close(): void {
    this.db.close();
  }
}

/**
 * The file was data/coordinator.sqlite before it was named for what it holds: an installation
 * that has the old file and not the new one keeps its meetings and tasks (WAL and index beside it).
 */
function moveLegacyFile(file: string): void {
  const legacy = path.join(path.dirname(file), 'coordinator.sqlite');
  if (path.basename(file) === 'coordinator.sqlite' || fs.existsSync(file) || !fs.existsSync(legacy)) return;
  for (const suffix of ['-wal', '-shm', '']) if (fs.existsSync(legacy + suffix)) fs.renameSync(legacy + suffix, file + suffix);
}
