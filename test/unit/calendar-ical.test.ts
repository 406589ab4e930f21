// Calendar [ical]: every real-world file in test/vectors/ics imports, expands to the right
// instances (RRULE, several RRULEs, RDATE incl. PERIOD, EXDATE, RECURRENCE-ID overrides, DURATION,
// all-day, TRANSPARENT, VTIMEZONE incl. a made-up zone) and survives an export → re-parse round trip.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import ICAL from 'ical.js';
import {
  busyIntervals, occurrences, IcalError, parseCalendar, PRODID, CalendarStore,
} from '../../shared/calendar/index.js';
import { ICS, NY_WEEKLY } from '../support/calendar-fixtures.js';

const LA = 'America/Los_Angeles';
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
const win = (a: string, b: string) => ({ start: Date.parse(a), end: Date.parse(b) });

function load(file: string): CalendarStore {
  const store = new CalendarStore(':memory:');
  store.importIcs(fs.readFileSync(path.join(ICS, file), 'utf8'));
  return store;
}
const starts = (file: string, a: string, b: string, zone = LA) => occurrences(load(file).events(), win(a, b), zone).map((o) => iso(o.start));
const busy = (file: string, a: string, b: string, zone = LA) => busyIntervals(load(file).events(), win(a, b), zone).map((i) => `${iso(i.start)}/${iso(i.end)}`);

describe('Calendar [ical] real-world vectors expand to the right busy time', () => {
  it('daily_recur: a daily series in a VTIMEZONE (05:00 PDT = 12:00Z) gives one hour a day', () => {
    expect(busy('daily_recur.ics', '2012-08-01T00:00:00Z', '2012-08-04T00:00:00Z')).to.deep.equal([
      '2012-08-01T12:00:00Z/2012-08-01T13:00:00Z', '2012-08-02T12:00:00Z/2012-08-02T13:00:00Z', '2012-08-03T12:00:00Z/2012-08-03T13:00:00Z',
    ]);
  });

  it('day_long_recur_yearly: weekday all-day instances exist but TRANSP:TRANSPARENT blocks nothing', () => {
    const occ = occurrences(load('day_long_recur_yearly.ics').events(), win('2012-08-03T00:00:00Z', '2012-08-10T00:00:00Z'), LA);
    expect(occ.map((o) => iso(o.start))).to.deep.equal(['2012-08-03T07:00:00Z', '2012-08-06T07:00:00Z', '2012-08-07T07:00:00Z', '2012-08-08T07:00:00Z', '2012-08-09T07:00:00Z']);
    expect(occ.every((o) => !o.blocks)).to.equal(true);
    expect(busy('day_long_recur_yearly.ics', '2012-08-03T00:00:00Z', '2012-08-10T00:00:00Z')).to.deep.equal([]);
  });

  it('duration_instead_of_dtend: DURATION:P1D blocks a whole day from the start', () => {
    expect(busy('duration_instead_of_dtend.ics', '2012-06-29T00:00:00Z', '2012-07-03T00:00:00Z')).to.deep.equal(['2012-06-30T13:00:00Z/2012-07-01T13:00:00Z']);
  });

  it('google_birthday: RDATE instances and overrides without a master, all-day in the person\'s zone', () => {
    expect(busy('google_birthday.ics', '2012-12-01T00:00:00Z', '2014-12-31T00:00:00Z')).to.deep.equal([
      '2012-12-10T08:00:00Z/2012-12-11T08:00:00Z', '2013-12-10T08:00:00Z/2013-12-11T08:00:00Z', '2014-12-10T08:00:00Z/2014-12-11T08:00:00Z',
    ]);
    expect(busy('google_birthday.ics', '2012-12-01T00:00:00Z', '2012-12-31T00:00:00Z', 'Europe/Berlin')).to.deep.equal(['2012-12-09T23:00:00Z/2012-12-10T23:00:00Z']);
  });

  it('minimal: one hour in America/Los_Angeles', () => {
    expect(busy('minimal.ics', '2012-06-30T00:00:00Z', '2012-07-01T00:00:00Z')).to.deep.equal(['2012-06-30T13:00:00Z/2012-06-30T14:00:00Z']);
  });

  it('multiple_rrules: a weekly and a monthly RRULE together (Mondays and Sundays of April 2012)', () => {
    expect(starts('multiple_rrules.ics', '2012-04-01T00:00:00Z', '2012-05-01T00:00:00Z')).to.deep.equal(
      ['01', '02', '08', '09', '15', '16', '22', '23', '29', '30'].map((d) => `2012-04-${d}T18:00:00Z`));
    expect(starts('multiple_rrules.ics', '2012-08-01T00:00:00Z', '2012-09-01T00:00:00Z')).to.deep.equal([]); // UNTIL
  });

  it('only_dtstart_date: a DATE without DTEND lasts one day', () => {
    expect(busy('only_dtstart_date.ics', '2012-06-29T00:00:00Z', '2012-07-02T00:00:00Z')).to.deep.equal(['2012-06-30T07:00:00Z/2012-07-01T07:00:00Z']);
  });

  it('rdate_exdate: COUNT=4 minus an EXDATE gives three zero-length instances that block nothing', () => {
    expect(starts('rdate_exdate.ics', '2024-06-01T00:00:00Z', '2024-07-01T00:00:00Z', 'UTC')).to.deep.equal(['2024-06-09T03:00:00Z', '2024-06-10T03:00:00Z', '2024-06-12T03:00:00Z']);
    expect(busy('rdate_exdate.ics', '2024-06-01T00:00:00Z', '2024-07-01T00:00:00Z', 'UTC')).to.deep.equal([]);
  });

  it('recur_instances: overrides move instances (one to another day), EXDATE removes one, RDATE adds some, a PERIOD RDATE keeps its own end', () => {
    expect(busy('recur_instances.ics', '2012-10-01T00:00:00Z', '2012-12-31T00:00:00Z')).to.deep.equal([
      '2012-10-02T22:00:00Z/2012-10-02T22:30:00Z', // 10:00 PDT moved to 15:00 PDT
      '2012-11-06T18:00:00Z/2012-11-06T18:30:00Z', // first Tuesday, PST
      '2012-11-07T04:00:00Z/2012-11-07T04:30:00Z', // RDATE Nov 5 moved to Nov 6 20:00 PST
      '2012-11-10T18:00:00Z/2012-11-10T18:30:00Z',
      '2012-11-30T18:00:00Z/2012-11-30T18:30:00Z', // Dec 4 is an EXDATE
    ]);
    expect(busy('recur_instances.ics', '2023-11-20T00:00:00Z', '2023-11-30T00:00:00Z')).to.deep.equal([
      '2023-11-23T09:00:00Z/2023-11-23T09:30:00Z', '2023-11-25T09:00:00Z/2023-11-25T12:30:00Z',
    ]);
  });

  it('recur_instances_finite: UNTIL ends the monthly series; RDATEs add instances', () => {
    expect(starts('recur_instances_finite.ics', '2012-10-01T00:00:00Z', '2013-03-01T00:00:00Z')).to.deep.equal([
      '2012-10-02T17:00:00Z', '2012-11-05T18:00:00Z', '2012-11-06T18:00:00Z', '2012-11-10T18:00:00Z', '2012-12-04T18:00:00Z',
    ]);
  });

  it('timezone_from_file: a VTIMEZONE unknown to any database (UTC-07:41) is honoured', () => {
    expect(busy('timezone_from_file.ics', '2023-03-06T00:00:00Z', '2023-03-07T00:00:00Z')).to.deep.equal(['2023-03-06T21:23:00Z/2023-03-06T22:23:00Z']);
  });

  it('utc_negative_zero: Etc/GMT (-0000) is UTC', () => {
    expect(busy('utc_negative_zero.ics', '2012-08-21T00:00:00Z', '2012-08-22T00:00:00Z')).to.deep.equal(['2012-08-21T21:00:00Z/2012-08-21T21:30:00Z']);
  });

  it('covers every .ics vector file', () => {
    const files = fs.readdirSync(ICS).filter((f) => f.endsWith('.ics')).sort();
    expect(files).to.have.length(12);
    for (const f of files) expect(load(f).items().length, f).to.be.greaterThan(0);
  });
});



describe('Calendar [ical] RRULE in a non-UTC VTIMEZONE (America/New_York)', () => {
  it('follows the DST switch, drops the EXDATE and moves the overridden instance', () => {
    const store = new CalendarStore(':memory:');
    store.importIcs(NY_WEEKLY);
    const got = busyIntervals(store.events(), win('2025-10-27T00:00:00Z', '2025-12-31T00:00:00Z'), 'UTC').map((i) => iso(i.start));
    expect(got).to.deep.equal([
      '2025-10-28T14:00:00Z', // EDT (-4)
      '2025-11-04T15:00:00Z', // EST (-5) after Nov 2
      '2025-11-19T19:00:00Z', // Nov 18 moved to Wed 14:00 EST; Nov 11 excluded
      '2025-11-25T15:00:00Z', '2025-12-02T15:00:00Z',
    ]);
  });
});

describe('Calendar [ical] export', () => {
  it('round-trips every vector: valid VCALENDAR with PRODID/VERSION, CRLF, folded lines, same UIDs and SEQUENCEs, VTIMEZONEs kept', () => {
    for (const f of fs.readdirSync(ICS).filter((x) => x.endsWith('.ics'))) {
      const store = load(f);
      const text = store.exportIcs();
      expect(text.startsWith('BEGIN:VCALENDAR\r\n'), f).to.equal(true);
      expect(text.endsWith('END:VCALENDAR\r\n'), f).to.equal(true);
      expect(/[^\r]\n/.test(text), `${f}: bare LF`).to.equal(false);
      for (const line of text.split('\r\n')) expect(Buffer.byteLength(line), `${f}: ${line}`).to.be.at.most(75);
      const cal = parseCalendar(text);
      expect(cal.getFirstPropertyValue('prodid')).to.equal(PRODID);
      expect(cal.getFirstPropertyValue('version')).to.equal('2.0');
      const comps = [...cal.getAllSubcomponents('vevent'), ...cal.getAllSubcomponents('vtodo')];
      for (const c of comps) {
        expect(c.hasProperty('uid') && c.hasProperty('dtstamp'), `${f}: UID and DTSTAMP`).to.equal(true);
      }
      const again = new CalendarStore(':memory:');
      again.importIcs(text);
      expect(again.items().map((i) => [i.uid, i.recurrenceId, i.sequence]), f).to.deep.equal(store.items().map((i) => [i.uid, i.recurrenceId, i.sequence]));
      expect(again.timezones().map((t) => t.tzid), f).to.deep.equal(store.timezones().map((t) => t.tzid));
      const window = win('2012-01-01T00:00:00Z', '2025-12-31T00:00:00Z');
      expect(busyIntervals(again.events(), window, LA), f).to.deep.equal(busyIntervals(store.events(), window, LA));
    }
  });

  it('keeps the newer SEQUENCE on re-import and refuses text that is not iCalendar', () => {
    const store = new CalendarStore(':memory:');
    const text = fs.readFileSync(path.join(ICS, 'minimal.ics'), 'utf8');
    store.importIcs(text.replace('SEQUENCE:0', 'SEQUENCE:3'));
    const r = store.importIcs(text);
    expect(r.skipped).to.equal(1);
    expect(store.items()[0]?.sequence).to.equal(3);
    expect(() => store.importIcs('hello')).to.throw(IcalError);
    expect(() => store.importIcs('BEGIN:VEVENT\r\nEND:VEVENT\r\n')).to.throw(IcalError, /VCALENDAR/);
    expect(ICAL.parse(store.exportIcs())).to.be.an('array');
  });
});
