// The console process (issue 13), supervised and started by `npm start` like every agent.
// Wiring only: configuration, the console (shared/console/) and an orderly stop. It has no XMPP
// account: it reads the agents' telemetry and databases and asks the supervisor to spawn/stop.
import os from 'node:os';
import { loadConfig } from '../../shared/config/index.js';
import { consoleSettings } from '../../shared/console/settings.js';
import { startConsole } from '../../shared/console/index.js';
import { installationRoster } from '../../shared/identity/index.js';
import { createLogger } from '../../shared/log/index.js';
import { envNumber } from '../../shared/config/index.js';
import { tellSupervisor } from '../../shared/supervisor/ipc.js';

const logger = createLogger('console');
// The console only watches: once online it runs at a lower CPU priority (PARLEY_CONSOLE_NICE,
// default 10), so on a saturated machine the agents' hot path gets the CPU first (npm run bench --
// --console). Not before: `npm start` is ready when the console is, and at nice 10 from the first
// instant it was started last of all, after every agent had finished its own start (issue 15).
const lowerPriority = () => {
  try {
    os.setPriority(envNumber('PARLEY_CONSOLE_NICE'));
  } catch (err) {
    logger.warn({ err: (err as Error).message }, 'cannot lower the console\'s priority');
  }
};
const cfg = loadConfig();
const settings = consoleSettings(cfg);
// Roles as the installation's agents see them: from its enrolment record, never from names. Only
// the service layer asks (agent lists, conversation checks), and the console imports it, with the
// agent runtime that holds the RoleBook, on the first request that needs it (start-up, issue 15).
const useRoster = async (): Promise<void> => {
  (await import('../../shared/runtime/index.js')).useRoleBook(installationRoster(cfg.home));
};
// No top-level await: the bundled agent is a CommonJS script, whose compiled code V8 can cache
// (scripts/bundle.ts, shared/supervisor/bundle-run.cts).
void (async () => {
  const running = await startConsole(cfg, settings, logger, useRoster).catch((err: Error) => {
    logger.fatal({ err: err.message, port: settings.port }, 'cannot start the console');
    process.exit(1);
  });
  logger.info({ url: running.url, otlp: settings.otlpUrl !== undefined, retentionDays: settings.retentionDays }, 'online');
  tellSupervisor({ type: 'ready', moment: 'online' });
  lowerPriority();

  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    logger.info('stopping');
    void running.close().finally(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  // Ends with its supervisor (its IPC channel closing), as the agents do (shared/runtime/process-end.ts).
  if (process.send) process.once('disconnect', stop);
})();
