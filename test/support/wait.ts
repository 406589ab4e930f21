// Polling and bounded waiting for integration tests (real time, real server).
import type { AnyActorRef } from 'xstate';

export async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 15000, intervalMs = 20): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

/** The output of an actor that reaches a final state, or an error after timeoutMs. */
export async function outputOf<T>(actor: AnyActorRef, timeoutMs = 15000): Promise<T> {
  await until(() => actor.getSnapshot().status !== 'active', 'the exchange to finish', timeoutMs);
  const snap = actor.getSnapshot();
  if (snap.status !== 'done') throw new Error(`actor ended ${snap.status}: ${String(snap.error)}`);
  return snap.output as T;
}

/**
 * Until `agent`'s telemetry ($home/telemetry/<agent>.sqlite, flushed in 20 ms batches) records
 * sending `contentType` in each of `conversationIds`: the agent's last row of those conversations
 * is then on disk, so the test reads them whole instead of sleeping for a flush.
 */
export async function untilRecorded(home: string, agent: string, conversationIds: string[], contentType = 'PRESENTER_REPLY', timeoutMs = 10000): Promise<void> {
  const { openDb } = await import('../../shared/store/index.js');
  const file = `${home}/telemetry/${agent}.sqlite`;
  await until(() => {
    const db = openDb(file, { readonly: true });
    try {
      const marks = conversationIds.map(() => '?').join(',');
      const n = (db.prepare(`SELECT COUNT(DISTINCT conversation_id) AS n FROM envelopes WHERE direction = 'out' AND content_type = ? AND conversation_id IN (${marks})`)
        .get(contentType, ...conversationIds) as { n: number }).n;
      return n === new Set(conversationIds).size;
    } finally {
      db.close();
    }
  }, `${agent}'s telemetry to record ${contentType} in ${conversationIds.length} conversation(s)`, timeoutMs);
}

/**
 * The conversations in which `agent`'s telemetry ($home/telemetry/<agent>.sqlite, flushed in
 * 20 ms batches) records sending anything to `receiver` (an agent name, any case) since `since`
 * (epoch ms): a message has left for an agent that cannot record receiving it (held by SIGSTOP).
 */
export async function sentTo(home: string, agent: string, receiver: string, since: number): Promise<Set<string>> {
  const { openDb } = await import('../../shared/store/index.js');
  const fs = await import('node:fs');
  const dir = `${home}/telemetry`;
  const file = fs.existsSync(dir) ? fs.readdirSync(dir).find((f) => f.toLowerCase() === `${agent.toLowerCase()}.sqlite`) : undefined;
  if (!file) return new Set();
  const db = openDb(`${dir}/${file}`, { readonly: true });
  try {
    const rows = db.prepare(`SELECT DISTINCT conversation_id AS c FROM envelopes WHERE direction = 'out' AND lower(receiver) = lower(?) AND at >= ?`)
      .all(receiver, since) as Array<{ c: string }>;
    return new Set(rows.map((r) => r.c));
  } catch {
    return new Set(); // the agent creates the table: not there yet
  } finally {
    db.close();
  }
}
