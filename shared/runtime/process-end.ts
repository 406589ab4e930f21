// How an agent process ends (docs/runtime.md "An agent process"): SIGTERM and SIGINT run its
// shutdown once (deregister, close stores, exit 0); an uncaught exception or rejection is logged,
// never a silent crash; the supervisor's end (its IPC channel closing) ends it too. Every agent process installs it: createAgent and the component hosts.
import type { Logger } from '../log/index.js';

export function onProcessEnd(logger: Logger, shutdown: (signal: string) => Promise<void>): void {
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
  // Started by a supervisor (an IPC channel): when it is gone (killed, crashed), so is this agent,
  // shut down as on SIGTERM. An orphan would keep its account and its work while the next
  // supervisor starts a second copy beside it (seen: a bench stopped by a signal left six).
  if (process.send) process.once('disconnect', () => void shutdown('supervisor gone'));
  process.on('uncaughtException', (err) => logger.error({ err: err.message, stack: err.stack }, 'uncaught exception'));
  process.on('unhandledRejection', (err) => logger.error({ err: (err as Error)?.message }, 'unhandled rejection'));
}
