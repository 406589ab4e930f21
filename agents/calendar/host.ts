// The calendar host (issue 14 §3 "People's calendars become virtual agents of a calendar host"):
//   node dist/agents/calendar/host.js                      every person with $PARLEY_HOME/calendars/<person>.json,
//                                                          and each one added later (the folder is watched)
//   node dist/agents/calendar/host.js --host NAME --count N   people NAME-0001 … (scale tests, the bench)
// One XEP-0114 component connection (calendars.<domain>, the operator's component secret) serves
// every calendar as its own Agent person@calendars.<domain> (virtual.ts), so the Coordinator finds
// and negotiates with them through the DF exactly as with calendar processes (docs/oacop.md).
// Trust: the component secret says a stanza comes from this host, the operator's enrolment (done
// here, on the operator's host) says the JID is a calendar (shared/runtime/names.ts).
// The supervisor runs it instead of one process per person when PARLEY_CALENDAR_HOST=1.
import fs from 'node:fs';
import path from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { assertPerson, calendarsDir, ledgerDbFile, listCalendarPeople } from '../../shared/calendar/config.js';
import { Ledger } from '../../shared/calendar/index.js';
import { loadTunables, envFlag, envNumber, envString, loadConfig, paths } from '../../shared/config/index.js';
import { componentEndpoints, componentSecret } from '../../shared/ejabberd/index.js';
import { pinnedDidsFile, installationRoster, TrustStore } from '../../shared/identity/index.js';
import { createLogger } from '../../shared/log/index.js';
import {
  exchangeStoreFile, calendarsDomain, useRoleBook, replayLedgerFile, signingEnabled, SqliteTelemetry,
  warmUp, onProcessEnd, RegisterBatcher, jidOfName, generatedLocals, type Agent,
} from '../../shared/runtime/index.js';
import { REGISTERING_AT_ONCE } from '../../shared/runtime/registration.js';
import { ComponentHost } from '../../shared/runtime/component-host.js';
import { ExchangeStore, GroupCommit, ReplayLedger } from '../../shared/store/index.js';
import { componentTransport } from '../../shared/transport/component.js';
import { VirtualCalendars } from './virtual.js';
import { tellSupervisor } from '../../shared/supervisor/ipc.js';

const positive = (v: string): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError('must be a positive integer');
  return n;
};
const program = new Command('calendar-host')
  .description("One process serving people's calendars as virtual agents over the calendars.<domain> component")
  .option('--host <name>', 'with --count: the people are NAME-0001 … (log and telemetry name calendars-NAME)')
  .option('--count <n>', 'serve N generated people NAME-0001 … instead of everyone in $PARLEY_HOME/calendars', positive)
  .parse();
const opts = program.opts<{ host?: string; count?: number }>();
if ((opts.host === undefined) !== (opts.count === undefined)) program.error('error: --host and --count go together');

const config = loadConfig();
const tunables = loadTunables(process.env, config.domain);
// The supervisor's host is "calendars" (its log, telemetry and control name); a spawned one calendars-NAME.
const name = opts.host ? `calendars-${opts.host}` : 'calendars';
const logger = createLogger(name);
const initial = (() => {
  try {
    if (opts.host === undefined) return listCalendarPeople(config);
    const people = generatedLocals(opts.host, opts.count ?? 0);
    assertPerson(people[people.length - 1] ?? '');
    return people;
  } catch (err) {
    return program.error(`error: ${(err as Error).message}`);
  }
})();
const t0 = performance.now();

const roster = installationRoster(config.home);
useRoleBook(roster);
const domain = calendarsDomain(config.domain);
const transport = componentTransport({ domain, password: componentSecret(config), host: '127.0.0.1', port: config.calendarsComponentPort, endpoints: componentEndpoints(config, 'calendars'), returnHomeMs: envNumber('PARLEY_RETURN_HOME_MS'), logger });
// The calendars' REGISTERs go to the Registry in REGISTER_MANY batches, each still signed by its
// calendar (shared/runtime/register-batch.ts), as the specialist host's do.
const batcher = envFlag('PARLEY_REGISTER_BATCH')
  ? new RegisterBatcher({ transport, domain: config.domain, registryJid: jidOfName('Registry', config.domain), agentOf: (jid): Agent | undefined => calendars.agentOf(jid), logger })
  : undefined;
const host = new ComponentHost({ transport: batcher?.transport ?? transport, domain: config.domain, logger, peerResource: envString('PARLEY_RESOURCE') });
const telemetry = new SqliteTelemetry(path.join(paths(config).telemetry, `${name}.sqlite`), name);
const replay = signingEnabled() ? new ReplayLedger(replayLedgerFile(config, name)) : undefined;
// Durable like a calendar process (PARLEY_DURABLE=0: no snapshots, for benchmark comparisons).
const exchanges = envFlag('PARLEY_DURABLE') ? new ExchangeStore(exchangeStoreFile(config, name)) : undefined;
// The shared exchange store and replay ledger commit once per inbound burst (docs/runtime.md "Group commit");
// a person's own store keeps its own transactions (its answers are kept once: shared/store/answered.ts).
if (envFlag('PARLEY_GROUP_COMMIT')) transport.useGroupCommit(new GroupCommit(exchanges ? [exchanges.group()] : [], replay?.group()));
const ledger = new Ledger(ledgerDbFile(config));
const calendars = new VirtualCalendars({
  config, host, logger, telemetry, ledger,
  trust: new TrustStore(pinnedDidsFile(config.home), { enrolled: (jid) => roster.didOf(jid) }),
  ...(replay ? { replay } : {}), ...(exchanges ? { exchanges } : {}),
  keyRing: `vcal-${name}.ring`,
  handleMs: envNumber('PARLEY_CALENDAR_HANDLE_MS'), heartbeatMs: tunables.heartbeatMs, generated: opts.count !== undefined,
  // Batched, 64 REGISTERs are one message to the Registry: let a few batches be outstanding.
  registeringAtOnce: batcher ? 4 * REGISTERING_AT_ONCE : REGISTERING_AT_ONCE,
});
const first = calendars.add(initial);
const tHosted = performance.now();
if (first[0]) warmUp(first[0]);
await host.start();
const tOnline = performance.now();
logger.info({ domain, calendars: first.length }, 'online');
tellSupervisor({ type: 'ready', moment: 'online' });

const ms = (a: number, b: number) => Math.round((b - a) * 10) / 10;
let registered = 0;
const ready = () => {
  // The supervisor waits for this line (shared/supervisor/spec.ts calendarHostSpec); the bench reads its figures.
  const mem = process.memoryUsage();
  logger.info({
    calendars: registered, total_ms: ms(t0, performance.now()), hosted_ms: ms(t0, tHosted), connect_ms: ms(tHosted, tOnline),
    register_ms: ms(tOnline, performance.now()), rss_bytes: mem.rss, heap_used_bytes: mem.heapUsed,
    ...(batcher ? { register_many: batcher.stats } : {}),
  }, 'calendars registered');
  tellSupervisor({ type: 'ready', moment: 'calendars registered' });
};
calendars.register(first, (agent, leaseMs) => {
  logger.debug({ agent: agent.name, lease_ms: leaseMs }, 'registered');
  if ((registered += 1) === first.length) ready();
});
if (first.length === 0) ready();

// `npm run user -- add carol` writes calendars/carol.json: her calendar joins without a restart.
let watcher: fs.FSWatcher | undefined;
if (opts.host === undefined) {
  fs.mkdirSync(calendarsDir(config), { recursive: true });
  let timer: NodeJS.Timeout | undefined;
  const rescan = async () => {
    const added = calendars.add(listCalendarPeople(config).filter((p) => !calendars.has(p)));
    for (const agent of added) await agent.start();
    calendars.register(added, (agent) => logger.info({ agent: agent.name }, 'calendar registered'));
  };
  watcher = fs.watch(calendarsDir(config), () => {
    clearTimeout(timer);
    timer = setTimeout(() => void rescan().catch((err: Error) => logger.error({ err: err.message }, 'adding calendars failed')), 200);
  });
}

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'stopping');
  watcher?.close();
  const unanswered = await calendars.deregisterAll();
  if (unanswered > 0) logger.warn({ unanswered }, 'deregister: no answer');
  await host.stop().catch(() => undefined);
  calendars.close();
  exchanges?.close();
  telemetry.close();
  replay?.close();
  ledger.close();
  process.exit(0);
}
onProcessEnd(logger, shutdown);
