// One conversation, analysed: messages paired from the merged telemetry, the contract's
// invariants checked, and the scenario's expectations when given. Pure: no I/O.
import { checkExpectations, type Expectations } from './expect.js';
import { accepted, allowedEdges, correlation, outInPairs, singleConversation } from './invariants.js';
import { mergeByTime, pairMessages } from './messages.js';
import { noteText } from './render.js';
import type { ChatEnds, TraceMessage, TraceRecord, Violation } from './types.js';

export interface AnalyzeOptions {
  conversationId: string;
  domain: string;
  chat?: ChatEnds;
  expect?: Expectations;
}

export interface Analysis {
  conversationId: string;
  records: TraceRecord[];
  messages: TraceMessage[];
  notes: TraceRecord[];
  violations: Violation[];
  chat?: ChatEnds;
  /** First to last event, ms (the person's question to the answer when known). */
  durationMs: number;
  t0: number;
}

export function analyze(rows: TraceRecord[], opts: AnalyzeOptions): Analysis {
  const records = mergeByTime(rows);
  const messages = pairMessages(records);
  const notes = records.filter((r) => r.direction === 'note');
  const violations: Violation[] = [
    ...singleConversation(records, opts.conversationId),
    ...correlation(messages, records),
    ...allowedEdges(messages, opts.domain),
    ...outInPairs(messages),
    ...accepted(records),
  ];
  if (messages.length === 0) violations.unshift({ invariant: 'recorded', detail: `no telemetry for conversation ${opts.conversationId}` });
  if (opts.expect) {
    const decisions = records.map((r) => (r.direction === 'note' ? noteText(r, 10000) : r.decision));
    violations.push(...checkExpectations(opts.expect, messages, opts.chat?.answer, decisions));
  }
  const times = records.map((r) => r.at);
  if (opts.chat) times.push(opts.chat.askedAt, ...(opts.chat.answeredAt ? [opts.chat.answeredAt] : []));
  const t0 = times.length ? Math.min(...times) : 0;
  const t1 = times.length ? Math.max(...times) : 0;
  return { conversationId: opts.conversationId, records, messages, notes, violations, chat: opts.chat, durationMs: t1 - t0, t0 };
}
