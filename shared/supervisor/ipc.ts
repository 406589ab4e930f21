// What a supervised child tells its supervisor, as typed messages over Node's IPC channel (issue
// 10 §2: readiness and idleness are not read from log lines). A child started by anything else
// (a test, a shell) has no channel: tell() then does nothing, and the log line says the same.
import type { Logger } from 'pino';

/** The moment a child counts as ready, per kind of process (spec.ts readyOn). */
export type ReadyMoment = 'online' | 'registered' | 'agents registered' | 'calendars registered' | 'rooms registered';

export type ChildMessage =
  | { type: 'ready'; moment: ReadyMoment }
  /** A specialist with nothing to do for its --idle-after-ms (scale-down). */
  | { type: 'idle'; idle_ms: number };

const MOMENTS: ReadonlySet<string> = new Set<ReadyMoment>(['online', 'registered', 'agents registered', 'calendars registered', 'rooms registered']);

export function isChildMessage(v: unknown): v is ChildMessage {
  if (typeof v !== 'object' || v === null) return false;
  const m = v as Record<string, unknown>;
  if (m.type === 'ready') return typeof m.moment === 'string' && MOMENTS.has(m.moment);
  return m.type === 'idle' && typeof m.idle_ms === 'number';
}

export function tellSupervisor(message: ChildMessage): void {
  if (process.send && process.connected) process.send(message);
}

/** Logs the moment (operators read the log) and tells the supervisor. */
export function announce(logger: Logger, fields: object, moment: ReadyMoment): void {
  logger.info(fields, moment);
  tellSupervisor({ type: 'ready', moment });
}
