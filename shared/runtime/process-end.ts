// How an agent process ends (docs/runtime.md "An agent process"): SIGTERM and SIGINT run its
// shutdown once (deregister, close stores, exit 0); an uncaught exception or rejection is logged,
// never a silent crash; the supervisor's end (its IPC channel closing) ends it too. Every agent process installs it: createAgent and the component hosts.
import { envNumber } from '../config/index.js';
import type { Logger } from '../log/index.js';

/**
 * `graceMs` (PARLEY_STOP_GRACE_MS): a shutdown that has not ended the process by then exits it
 * (code 1). Under a supervisor that is when it would SIGKILL; an orphan has no one to do that,
 * and a shutdown can wait for ever on a server that is gone (seen: three agents SIGTERMed right
 * after their ejabberd died were still "stopping" minutes later).
 */
export function onProcessEnd(logger: Logger, shutdown: (signal: string) => Promise<void>, graceMs = envNumber('PARLEY_STOP_GRACE_MS')): void {
  let ending = false;
  const end = (why: string) => {
    if (!ending) {
      ending = true;
      setTimeout(() => {
        logger.error({ why, grace_ms: graceMs }, 'shutdown did not finish in time: exiting');
        process.exit(1);
      }, graceMs).unref();
    }
    void shutdown(why);
  };
  process.once('SIGTERM', () => end('SIGTERM'));
  process.once('SIGINT', () => end('SIGINT'));
  // Started by a supervisor (an IPC channel): when it is gone (killed, crashed), so is this agent,
  // shut down as on SIGTERM. An orphan would keep its account and its work while the next
  // supervisor starts a second copy beside it (seen: a bench stopped by a signal left six).
  if (process.send) process.once('disconnect', () => end('supervisor gone'));
  process.on('uncaughtException', (err) => logger.error({ err: err.message, stack: err.stack }, 'uncaught exception'));
  process.on('unhandledRejection', (err) => logger.error({ err: (err as Error)?.message }, 'unhandled rejection'));
}

/**
 * Runs an agent's start-up (no top-level await: bundled agents are CommonJS scripts). A start that
 * fails — its login refused, a store it cannot open — is logged and exits 1, so the supervisor
 * sees a failed start (and sets a core account's password again, scripts/supervisor.ts) instead of
 * a process that stays up without ever being ready.
 */
export function startUp(run: () => Promise<void>, logger?: Logger): void {
  run().catch((err: unknown) => {
    const message = err instanceof Error ? err.message : String(err);
    if (logger) logger.fatal({ err: message }, 'cannot start');
    else process.stderr.write(`cannot start: ${message}\n`);
    process.exit(1);
  });
}
