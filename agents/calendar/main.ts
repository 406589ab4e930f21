// The Calendar agent process: `node dist/agents/calendar/main.js --person bob` (account and
// logical name calendar-bob). Answers OACoP for bob's calendar (docs/oacop.md) from
// $PARLEY_HOME/data/calendar-bob.sqlite and keeps itself registered with the DF (capability
// CALENDAR). Wiring only: behaviour lives in machine.ts and the handlers.
import fs from 'node:fs';
import { randomInt } from 'node:crypto';
import { Command } from 'commander';
import { fromPromise } from 'xstate';
import { assertPerson, calendarConfigFile, calendarDbFile, ensureCalendarConfig, ledgerDbFile, readCalendarConfig, type CalendarConfig } from '../../shared/calendar/config.js';
import { Ledger } from '../../shared/calendar/ledger.js';
import { CalendarStore } from '../../shared/calendar/store.js';
import { loadTunables } from '../../shared/config/agents.js';
import { loadConfig } from '../../shared/config/index.js';
import { accountSecrets, ensureAccount } from '../../shared/ejabberd/accounts.js';
import { createAgent } from '../../shared/runtime/boot.js';
import { registerWithDf } from '../../shared/runtime/df-registration.js';
import { restoreExchanges } from '../../shared/runtime/durable.js';
import { requestKey } from '../../shared/store/answered.js';
import { packageVersion } from '../../shared/runtime/repo-root.js';
import { CalendarContext } from './context.js';
import { calendarExchangeMachine, type HandleInput } from './machine.js';
import { CALENDAR_KINDS, type CalendarKind, handleOacop } from './service.js';
import { envNumber, envString } from '../../shared/config/index.js';

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
if (!accountSecrets(config).get(account)) await ensureAccount(config, account);

// The settings file is re-read when it changes (npm run calendar -- trust/hours on a live agent).
let cached: { mtimeMs: number; value: CalendarConfig } | null = null;
const personConfig = (): CalendarConfig => {
  const mtimeMs = fs.statSync(calendarConfigFile(config, person)).mtimeMs;
  if (cached?.mtimeMs !== mtimeMs) cached = { mtimeMs, value: readCalendarConfig(config, person) };
  return cached.value;
};

const store = new CalendarStore(calendarDbFile(config, person));
const ledger = new Ledger(ledgerDbFile(config));
const ctx = new CalendarContext({
  store, ledger, config: personConfig,
  trustedSenders: [`coordinator@${config.domain}`],
  localDomain: config.domain,
  rng: () => randomInt(0, 2 ** 32) / 2 ** 32,
  now: Date.now,
});

// Durable (issue 12): every OACoP exchange is snapshotted, and a request's effect and answer are
// stored together (store.once), so a kill -9 between them neither loses the answer nor applies the
// request twice; what was sent just before the crash goes out again (restoreExchanges below).
const { agent, logger, onShutdown, store: exchanges } = createAgent({ account, config, enrolAs: 'calendar', durable: true });
const machine = calendarExchangeMachine.provide({
  actors: {
    handle: fromPromise<ReturnType<typeof handleOacop>, HandleInput>(async ({ input }) =>
      store.once(requestKey(input.request, input.from.jid), () => handleOacop(ctx, input.kind as CalendarKind, input.request, input.from))),
  },
});
const handleMs = envNumber('PARLEY_CALENDAR_HANDLE_MS');
for (const kind of CALENDAR_KINDS) {
  agent.router.on(kind, (request, from) => ({ machine, input: { request, from, self: agent.name, kind, handleMs } }));
}
if (exchanges) restoreExchanges(agent, exchanges);
await agent.start();
logger.info({ jid: agent.self.jid, person }, 'online');

// The DF binds our JID to the did:key that signs our envelopes (docs/runtime.md §5).
const registration = registerWithDf(agent, {
  jid: agent.self.jid, name: agent.name, version: packageVersion(), capabilities: ['CALENDAR'],
  ...(agent.signing?.did ? { did: agent.signing.did } : {}),
  description: `Calendar of ${person}: answers OACoP ProposeCollaboration, ConfirmCollaboration, CancelCollaboration, AssignTask`,
  topics: [person, `${person}@${config.domain}`],
}, { heartbeatMs: tunables.heartbeatMs, onRegistered: (e) => logger.info(e, 'registered') });

onShutdown(async () => {
  if (!(await registration.deregister())) logger.warn('deregister: no answer');
  store.close();
  ledger.close();
});
