// The Calendar agent process: `node dist/agents/calendar/main.js --person bob` (account and
// logical name calendar-bob). Answers OACoP for bob's calendar (docs/oacop.md) from
// $PARLEY_HOME/data/calendar-bob.sqlite and keeps itself registered with the DF (capability
// CALENDAR). Wiring only: behaviour lives in the handlers (service.ts over shared/oacop/); what
// the calendar host (host.ts, many people in one process) shares with this process is in wiring.ts.
import { randomInt } from 'node:crypto';
import { Command } from 'commander';
import { assertPerson, calendarDbFile, ensureCalendarConfig, ledgerDbFile } from '../../shared/calendar/config.js';
import { Ledger, CalendarStore } from '../../shared/calendar/index.js';
import { loadTunables, loadConfig, envNumber, envString } from '../../shared/config/index.js';
import { accountSecrets, ensureAccount } from '../../shared/ejabberd/index.js';
import { createAgent, restoreExchanges, startUp } from '../../shared/runtime/index.js';
import { registerWithDf } from '../../shared/runtime/registration.js';
import { CalendarContext } from '../../shared/oacop/index.js';
import { calendarMachine, calendarProfile, serveOacop, watchedConfig } from './wiring.js';
import { announce, tellSupervisor } from '../../shared/supervisor/ipc.js';

const program = new Command('calendar')
  .description('A Parley calendar agent answering OACoP for one person')
  .requiredOption('--person <name>', 'whose calendar (account calendar-<name>)', envString('PARLEY_CALENDAR_PERSON'))
  .parse();
const { person } = program.opts<{ person: string }>();
try {
  assertPerson(person);
} catch (err) {
  program.error(`error: ${(err as Error).message}`);
}

const config = loadConfig();
const tunables = loadTunables(process.env, config.domain);
const account = `calendar-${person}`;
ensureCalendarConfig(config, person, `${person}@${config.domain}`);
// No top-level await: the bundled agent is a CommonJS script, whose compiled code V8 can cache
// (scripts/bundle.ts, shared/supervisor/bundle-run.cts).
startUp(async () => {
  if (!accountSecrets(config).get(account)) await ensureAccount(config, account);

  const store = new CalendarStore(calendarDbFile(config, person));
  const ledger = new Ledger(ledgerDbFile(config));
  const ctx = new CalendarContext({
    store, ledger, config: watchedConfig(config, person),
    trustedSenders: [`coordinator@${config.domain}`],
    localDomain: config.domain,
    rng: () => randomInt(0, 2 ** 32) / 2 ** 32,
    now: Date.now,
  });

  // Durable (issue 12): every OACoP exchange is snapshotted, and a request's effect and answer are
  // stored together (store.once), so a kill -9 between them neither loses the answer nor applies the
  // request twice; what was sent just before the crash goes out again (restoreExchanges below).
  const { agent, logger, onShutdown, store: exchanges } = createAgent({ account, config, enrolAs: 'calendar', durable: true });
  const served = { ctx, store: () => store };
  serveOacop(agent, calendarMachine(() => served), envNumber('PARLEY_CALENDAR_HANDLE_MS'));
  if (exchanges) restoreExchanges(agent, exchanges);
  await agent.start();
  logger.info({ jid: agent.self.jid, person }, 'online');
  tellSupervisor({ type: 'ready', moment: 'online' });

  const registration = registerWithDf(agent, calendarProfile(agent, person, config.domain), {
    heartbeatMs: tunables.heartbeatMs, onRegistered: (e) => announce(logger, e, 'registered'),
  });

  onShutdown(async () => {
    if (!(await registration.deregister())) logger.warn('deregister: no answer');
    store.close();
    ledger.close();
  });
});
