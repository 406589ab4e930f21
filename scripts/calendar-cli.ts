// npm run calendar -- import PERSON FILE.ics | export PERSON | hours PERSON [...] | trust PERSON [ID]
//                   | free PERSON --from ISO --to ISO [--duration PT30M]
// A person's calendar as iCalendar (RFC 5545) in and out, their working hours and trust list
// (docs/oacop.md). Works on the files directly; a running calendar agent sees the changes.
import fs from 'node:fs';
import { Command } from 'commander';
import { Duration } from 'luxon';
import { freeIntervals, isoSlot, busyIntervals, CalendarStore } from '../shared/calendar/index.js';
import {
  calendarConfigFile, calendarDbFile, readCalendarConfig, validateWorkingHours, writeCalendarConfig,
  type CalendarConfig,
} from '../shared/calendar/config.js';
import { loadConfig } from '../shared/config/index.js';

const cfg = loadConfig();
const program = new Command('calendar').description("Import, export and configure a person's calendar");

function personConfig(person: string): CalendarConfig {
  if (!fs.existsSync(calendarConfigFile(cfg, person))) throw new Error(`${person} has no calendar: npm run user -- add ${person}`);
  return readCalendarConfig(cfg, person);
}

function withStore<T>(person: string, fn: (s: CalendarStore) => T): T {
  personConfig(person);
  const store = new CalendarStore(calendarDbFile(cfg, person));
  try {
    return fn(store);
  } finally {
    store.close();
  }
}

const DAY_NAMES = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
/** "1-5", "mon,wed,fri", "mon-fri" → ISO weekdays. */
function parseDays(text: string): number[] {
  const day = (t: string): number => {
    const n = /^\d$/.test(t) ? Number(t) : DAY_NAMES.indexOf(t.slice(0, 3).toLowerCase()) + 1;
    if (n < 1 || n > 7) throw new Error(`unknown day ${JSON.stringify(t)} (use 1-7 or mon…sun)`);
    return n;
  };
  return text.split(',').flatMap((part) => {
    const [a, b] = part.trim().split('-');
    if (b === undefined) return [day(a ?? '')];
    const out: number[] = [];
    for (let d = day(a ?? ''); d <= day(b); d += 1) out.push(d);
    return out;
  });
}

program.command('import <person> <file>').description('add the events and tasks of an .ics file (newer SEQUENCE wins)')
  .action((person: string, file: string) => {
    const r = withStore(person, (s) => s.importIcs(fs.readFileSync(file, 'utf8')));
    console.log(`imported into ${person}'s calendar: ${r.events} event component(s), ${r.todos} task(s), ${r.timezones} time zone(s)${r.skipped ? `; ${r.skipped} older than stored, kept ours` : ''}`);
  });

program.command('export <person>').description('print the calendar as one .ics (RFC 5545) on stdout')
  .action((person: string) => {
    process.stdout.write(withStore(person, (s) => s.exportIcs()));
  });

program.command('hours <person>').description('show or set working hours')
  .option('--days <days>', 'e.g. mon-fri or 1,2,3')
  .option('--start <HH:MM>')
  .option('--end <HH:MM>')
  .option('--tz <zone>', 'IANA time zone, e.g. Europe/Berlin')
  .action((person: string, o: { days?: string; start?: string; end?: string; tz?: string }) => {
    const c = personConfig(person);
    if (o.days !== undefined || o.start !== undefined || o.end !== undefined || o.tz !== undefined) {
      c.workingHours = validateWorkingHours({
        days: o.days !== undefined ? parseDays(o.days) : c.workingHours.days,
        start: o.start ?? c.workingHours.start,
        end: o.end ?? c.workingHours.end,
        timezone: o.tz ?? c.workingHours.timezone,
      });
      writeCalendarConfig(cfg, c);
    }
    const h = c.workingHours;
    console.log(`${person}: ${h.days.map((d) => DAY_NAMES[d - 1]).join(',')} ${h.start}-${h.end} ${h.timezone}`);
  });

program.command('trust <person> [id]').description('list the trust list, or add a DID or bare JID to it')
  .option('--remove', 'remove the id instead')
  .action((person: string, id: string | undefined, o: { remove?: boolean }) => {
    const c = personConfig(person);
    if (id !== undefined) {
      c.trustList = o.remove ? c.trustList.filter((t) => t !== id) : [...new Set([...c.trustList, id])];
      writeCalendarConfig(cfg, c);
      console.log(`${o.remove ? 'removed' : 'trusted'}: ${id}`);
    }
    for (const t of c.trustList) console.log(t);
  });

program.command('free <person>').description('show free slots (what a trusted requester would get)')
  .requiredOption('--from <iso>').requiredOption('--to <iso>')
  .option('--duration <iso>', 'minimum length', 'PT30M')
  .action((person: string, o: { from: string; to: string; duration: string }) => {
    const c = personConfig(person);
    const window = { start: Date.parse(o.from), end: Date.parse(o.to) };
    const dur = Duration.fromISO(o.duration).toMillis();
    if (!(window.end > window.start) || !(dur > 0)) throw new Error('need --from < --to (ISO 8601) and a positive --duration');
    const busy = withStore(person, (s) => busyIntervals(s.events(), window, c.workingHours.timezone));
    for (const f of freeIntervals(c.workingHours, window, busy, dur)) {
      const s = isoSlot(f);
      console.log(`${s.start} – ${s.end}`);
    }
  });

program.parseAsync().catch((err: Error) => {
  console.error(`calendar: ${err.message}`);
  process.exit(1);
});
