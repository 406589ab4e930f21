// Read-only access to the agents' databases for the operator (console and CLIs): rows of one
// table, opened read-only (WAL: never blocks the agent that writes it), empty when the file or
// the table does not exist yet.
import fs from 'node:fs';
import path from 'node:path';
import type { ParleyConfig } from '../config/index.js';
import { paths } from '../config/index.js';
import { openDb } from '../store/index.js';

export function readRows(file: string, sql: string, params: unknown[] = []): Record<string, unknown>[] {
  if (!fs.existsSync(file)) return [];
  let db;
  try {
    db = openDb(file, { readonly: true });
  } catch {
    return [];
  }
  try {
    return db.prepare(sql).all(...params) as Record<string, unknown>[];
  } catch {
    return []; // the table is created on the agent's first start
  } finally {
    db.close();
  }
}

const parseJson = (v: unknown): unknown => {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
};

/** The Coordinator's meetings (docs/oacop.md), newest first. */
export function meetings(cfg: ParleyConfig, limit = 200): Record<string, unknown>[] {
  return readRows(paths(cfg).scheduling, 'SELECT * FROM meetings ORDER BY updated_at DESC LIMIT ?', [limit])
    .map((r) => ({ ...r, participants: parseJson(r.participants) }));
}

/** The Coordinator's delegated tasks, newest first. */
export function tasks(cfg: ParleyConfig, limit = 200): Record<string, unknown>[] {
  return readRows(paths(cfg).scheduling, 'SELECT * FROM tasks ORDER BY updated_at DESC LIMIT ?', [limit]);
}

/** Every person's calendar bookings (negotiation threads), from data/calendar-<person>.sqlite. */
export function bookings(cfg: ParleyConfig, limit = 200): Record<string, unknown>[] {
  const dir = paths(cfg).data;
  const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => /^calendar-.+\.sqlite$/.test(f)) : [];
  return files.flatMap((f) => readRows(path.join(dir, f), 'SELECT * FROM threads ORDER BY updated DESC LIMIT ?', [limit])
    .map((r) => ({ person: f.replace(/^calendar-|\.sqlite$/g, ''), ...r, object: parseJson(r.object), slot: parseJson(r.slot) })));
}

/** The DF's registrations (data/registry.sqlite). */
export function directory(cfg: ParleyConfig): Record<string, unknown>[] {
  return readRows(path.join(paths(cfg).data, 'registry.sqlite'), 'SELECT * FROM registrations')
    .map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, parseJson(v)])));
}
