// Reads one conversation's rows from every agent's telemetry file ($PARLEY_HOME/telemetry/*.sqlite),
// read-only (WAL lets us read while the agents write). Replies that carry another
// conversation_id are pulled in too (by in_reply_to), so the single-conversation check sees them.
import fs from 'node:fs';
import path from 'node:path';
import { openDb } from '../store/index.js';
import { mergeByTime, pairMessages } from './messages.js';
import type { TraceRecord } from './types.js';

export function telemetryFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir).filter((f) => f.endsWith('.sqlite')).sort().map((f) => path.join(dir, f));
}

export function readConversation(dir: string, conversationId: string): TraceRecord[] {
  const rows: TraceRecord[] = [];
  for (const file of telemetryFiles(dir)) {
    let db;
    try {
      db = openDb(file, { readonly: true });
    } catch {
      continue; // a file being created right now: nothing of ours in it yet
    }
    try {
      const own = db.prepare('SELECT * FROM envelopes WHERE conversation_id = ? ORDER BY seq').all(conversationId) as TraceRecord[];
      const ids = own.map((r) => r.reply_with).filter((x): x is string => x !== null);
      const strays = ids.length === 0 ? [] : (db
        .prepare(`SELECT * FROM envelopes WHERE in_reply_to IN (SELECT value FROM json_each(?)) AND (conversation_id IS NULL OR conversation_id != ?)`)
        .all(JSON.stringify(ids), conversationId) as TraceRecord[]);
      rows.push(...own, ...strays);
    } catch {
      // no envelopes table yet
    } finally {
      db.close();
    }
  }
  return rows;
}

/**
 * Rows appear up to a flush period (20 ms) after the fact, later on a loaded machine: read until
 * two reads agree and every envelope sent is also recorded as received (and the reverse), or
 * until maxMs. An unpaired envelope after maxMs is left for the out-in-pairs invariant to name.
 */
export async function readSettled(dir: string, conversationId: string, { settleMs = 150, maxMs = 10_000 } = {}): Promise<TraceRecord[]> {
  const deadline = Date.now() + maxMs;
  let prev = -1;
  let rows: TraceRecord[] = [];
  for (;;) {
    await new Promise((r) => setTimeout(r, settleMs));
    rows = readConversation(dir, conversationId);
    const paired = pairMessages(mergeByTime(rows)).every((m) => m.in && m.out);
    if ((rows.length === prev && paired) || Date.now() > deadline) return rows;
    prev = rows.length;
  }
}
