// npm run user -- add NAME | remove NAME | list   (issue #2 §2): people's accounts. Adding a
// person also gives them a calendar agent (docs/oacop.md): account calendar-NAME, settings in
// $PARLEY_HOME/calendars/NAME.json, started now by a running supervisor (POST /spawn); with
// PARLEY_CALENDAR_HOST=1 the calendar host serves it as NAME@calendars.<domain> (no account).
import { Command } from 'commander';
import { calendarConfigFile, ensureCalendarConfig } from '../shared/calendar/config.js';
import { controlRequest } from '../shared/supervisor/ipc.js';
import { envFlag, loadConfig } from '../shared/config/index.js';
import { api, closeApiAgent, ensureAccount, isAgentName, jidOf, removeAccount } from '../shared/ejabberd/index.js';
import { control as ejabberd } from '../shared/ejabberd/operator.js';

const cfg = loadConfig();
const program = new Command('user').description('Manage the accounts of people who chat with the Presenter');

async function requireRunning(): Promise<void> {
  const st = await ejabberd.status(cfg);
  if (!st.running) throw new Error('ejabberd is not running: start it with `npm start` or `npm run ejabberd -- start`');
}

/**
 * XMPP account names are case-insensitive (RFC 7622 §3.2, UsernameCaseMapped), and people type
 * "Carol" or "carol@localhost": both mean carol. Said once when the name changed.
 */
function personName(raw: string): string {
  const bare = raw.trim().toLowerCase();
  const name = bare.endsWith(`@${cfg.domain}`) ? bare.slice(0, -(cfg.domain.length + 1)) : bare;
  if (name !== raw) console.log(`(account names are lower case, without the domain: ${name})`);
  return name;
}

program
  .command('add <name>')
  .description('create (or keep) the account NAME@domain and print its password')
  .action(async (raw: string) => {
    const name = personName(raw);
    if (isAgentName(name)) throw new Error(`${name} is reserved for agents`);
    await requireRunning();
    const { jid, password, created } = await ensureAccount(cfg, name);
    console.log(`${created ? 'added' : 'exists'}: ${jid}`);
    console.log(`password: ${password}`);
    console.log(`server: 127.0.0.1 port ${cfg.c2sPort} (plain TCP on loopback; disable TLS in the client)`);
    await addCalendar(name, jid);
  });

async function addCalendar(name: string, jid: string): Promise<void> {
  // The calendar host's virtual calendars log in as its component, not with an account.
  const hosted = envFlag('PARLEY_CALENDAR_HOST');
  if (!hosted) await ensureAccount(cfg, `calendar-${name}`);
  const c = ensureCalendarConfig(cfg, name, jid);
  const h = c.workingHours;
  console.log(`calendar: ${hosted ? `${name}@calendars.${cfg.domain}` : `calendar-${name}@${cfg.domain}`} (working hours ${h.start}-${h.end} ${h.timezone}; edit ${calendarConfigFile(cfg, name)} or npm run calendar -- hours ${name} …)`);
  const res = await controlRequest(cfg, 'POST', '/spawn', { kind: 'calendar', person: name });
  if (!res) console.log('calendar agent: starts with the next `npm start`');
  else if (res.status === 202) console.log(`calendar agent: ${name}@calendars.${cfg.domain}, served by the calendar host (PARLEY_CALENDAR_HOST=1; it registers within seconds)`);
  else if (res.status === 201) console.log(`calendar agent: running (registered in ${String(res.body.ready_ms)} ms)`);
  else if (res.status === 409) console.log('calendar agent: already running');
  else console.log(`calendar agent: supervisor said ${String(res.body.error)}: ${String(res.body.detail)}`);
}

program
  .command('remove <name>')
  .description('delete the account and its stored password')
  .action(async (raw: string) => {
    const name = personName(raw);
    if (isAgentName(name)) throw new Error(`${name} is an agent account, not a person`);
    await requireRunning();
    const existed = await removeAccount(cfg, name);
    console.log(existed ? `removed: ${jidOf(cfg, name)}` : `no such user: ${jidOf(cfg, name)}`);
    if (!existed) process.exitCode = 1;
  });

program
  .command('list')
  .description('list people (agent accounts are not shown)')
  .action(async () => {
    await requireRunning();
    const users = (await api.registeredUsers(cfg)).filter((u) => !isAgentName(u)).sort();
    for (const u of users) console.log(jidOf(cfg, u));
  });

program.parseAsync().then(
  () => closeApiAgent(),
  (err: Error) => {
    console.error(`user: ${err.message}`);
    closeApiAgent();
    process.exit(1);
  },
);
