// What `npm run trace` works on: the telemetry rows of one conversation from every agent's
// SQLite file (shared/runtime/telemetry.ts), merged by time, and the messages they pair into.
import type { TelemetryRecord } from '../runtime/index.js';

/** One telemetry row; `seq` orders rows of the same agent (its own clock). */
export interface TraceRecord extends TelemetryRecord {
  seq: number;
}

/** One envelope on the wire: the sender's `out` row and the receiver's `in` row(s), paired. */
export interface TraceMessage {
  sender: string;
  receiver: string;
  performative: string;
  content_type: string | null;
  conversation_id: string | null;
  reply_with: string;
  in_reply_to: string | null;
  out?: TraceRecord;
  in?: TraceRecord;
  /** When it first appears: the out row, else the in row. */
  at: number;
}

export interface Violation {
  /** Invariant name: single-conversation, correlation, allowed-edges, out-in-pairs, accepted, performatives, answer. */
  invariant: string;
  detail: string;
}

/** The person's side of the exchange, as the trace client saw it (not in telemetry). */
export interface ChatEnds {
  person: string;
  question: string;
  askedAt: number;
  answer?: string;
  answeredAt?: number;
}
