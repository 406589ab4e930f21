// Pairs telemetry rows into messages: an envelope is identified by (sender, reply_with), the
// runtime's duplicate key; the sender's `out` row and the receiver's `in` row describe it.
import type { TraceMessage, TraceRecord } from './types.js';

export const isEnvelopeRow = (r: TraceRecord) => r.direction !== 'note' && r.reply_with !== null && r.sender !== null;

/** Rows of every agent in one time line; ties keep each agent's own order (seq). */
export function mergeByTime(records: TraceRecord[]): TraceRecord[] {
  return [...records].sort((a, b) => a.at - b.at || (a.agent === b.agent ? a.seq - b.seq : a.agent.localeCompare(b.agent)));
}

export function pairMessages(records: TraceRecord[]): TraceMessage[] {
  const byKey = new Map<string, TraceMessage>();
  for (const r of mergeByTime(records)) {
    if (!isEnvelopeRow(r)) continue;
    const key = `${r.sender}\u0000${r.reply_with}`;
    let m = byKey.get(key);
    if (!m) {
      m = {
        sender: r.sender as string,
        receiver: r.receiver ?? '?',
        performative: r.performative ?? '?',
        content_type: r.content_type,
        conversation_id: r.conversation_id,
        reply_with: r.reply_with as string,
        in_reply_to: r.in_reply_to,
        at: r.at,
      };
      byKey.set(key, m);
    }
    // The first row of each side counts; later `in` rows of the same key are duplicates.
    if (r.direction === 'out') {
      m.out ??= r;
      m.at = m.out.at;
    } else {
      m.in ??= r;
    }
  }
  return [...byKey.values()].sort((a, b) => a.at - b.at);
}

/** Agents that wrote telemetry for this conversation (the ones whose side we can check). */
export const recordingAgents = (records: TraceRecord[]) => new Set(records.map((r) => r.agent));
