// Calendar [availability]: working hours per person and zone, free = window ∩ hours − busy,
// two and three participants with overlapping and disjoint calendars (incl. an RRULE series in
// America/New_York), fuzzy slots for untrusted requesters (oacop-rfc §6.1), rate limit, ledger.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import {
  describeHours, freeIntervals, intersectAll, isoSlot, OUTSIDE_WORKING_HOURS_RE, outsideHoursComment, subtract, workingIntervals, busyIntervals, type Interval,
  Ledger, fuzzySlots, RateLimiter, CalendarStore,
} from '../../shared/calendar/index.js';
import { type WorkingHours, validateWorkingHours } from '../../shared/calendar/config.js';
import { NY_WEEKLY } from '../support/calendar-fixtures.js';

const H = (timezone: string, start = '09:00', end = '17:00', days = [1, 2, 3, 4, 5]): WorkingHours => ({ days, start, end, timezone });
const win = (a: string, b: string): Interval => ({ start: Date.parse(a), end: Date.parse(b) });
const show = (xs: Interval[]) => xs.map((i) => { const s = isoSlot(i); return `${s.start}/${s.end}`; });

function calendar(...events: string[]): CalendarStore {
  const store = new CalendarStore(':memory:');
  store.importIcs(['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//test//EN', ...events, 'END:VCALENDAR', ''].join('\r\n'));
  return store;
}
const vevent = (uid: string, start: string, end: string, extra: string[] = []) =>
  ['BEGIN:VEVENT', `UID:${uid}`, 'DTSTAMP:20251201T000000Z', `DTSTART:${start}`, `DTEND:${end}`, ...extra, 'END:VEVENT'].join('\r\n');

describe('Calendar [availability] working hours', () => {
  it('gives each working day its hours in the person\'s zone, DST-correct, skipping weekends', () => {
    const w = workingIntervals(H('Europe/Berlin'), win('2025-10-24T00:00:00Z', '2025-10-28T00:00:00Z'));
    // Fri 24 CEST (+2), Mon 27 CET (+1) after the switch on Sun 26
    expect(show(w)).to.deep.equal(['2025-10-24T07:00:00Z/2025-10-24T15:00:00Z', '2025-10-27T08:00:00Z/2025-10-27T16:00:00Z']);
  });

  it('clips to the requested window and rejects unusable hours', () => {
    expect(show(workingIntervals(H('UTC'), win('2025-12-10T12:00:00Z', '2025-12-10T14:00:00Z')))).to.deep.equal(['2025-12-10T12:00:00Z/2025-12-10T14:00:00Z']);
    expect(() => validateWorkingHours(H('Mars/Olympus'))).to.throw(/time zone/);
    expect(() => validateWorkingHours(H('UTC', '17:00', '09:00'))).to.throw(/after/);
    expect(() => validateWorkingHours(H('UTC', '09:00', '17:00', [0]))).to.throw(/weekdays/);
  });

  it('subtracts busy time and drops gaps shorter than the meeting', () => {
    const free = freeIntervals(H('UTC'), win('2025-12-10T00:00:00Z', '2025-12-11T00:00:00Z'),
      [win('2025-12-10T10:00:00Z', '2025-12-10T11:00:00Z'), win('2025-12-10T11:20:00Z', '2025-12-10T16:00:00Z')], 30 * 60_000);
    expect(show(free)).to.deep.equal(['2025-12-10T09:00:00Z/2025-12-10T10:00:00Z', '2025-12-10T16:00:00Z/2025-12-10T17:00:00Z']);
    expect(subtract([win('2025-12-10T09:00:00Z', '2025-12-10T10:00:00Z')], [win('2025-12-10T08:00:00Z', '2025-12-10T11:00:00Z')])).to.deep.equal([]);
  });
});

describe('Calendar [availability] several participants', () => {
  const window = win('2025-11-04T00:00:00Z', '2025-11-06T00:00:00Z'); // Tue 4 – Wed 5 Nov 2025
  const freeOf = (store: CalendarStore, hours: WorkingHours) => freeIntervals(hours, window, busyIntervals(store.events(), window, hours.timezone), 30 * 60_000);

  it('two people with overlapping calendars share the hours neither is busy', () => {
    const alice = calendar(vevent('a1', '20251104T140000Z', '20251104T160000Z'));
    const bob = calendar(NY_WEEKLY); // Tuesdays 10:00–11:00 New York = 15:00–16:00Z in November
    const both = intersectAll([freeOf(alice, H('UTC', '13:00', '18:00')), freeOf(bob, H('America/New_York', '09:00', '17:00'))]);
    expect(show(both)).to.deep.equal([
      '2025-11-04T16:00:00Z/2025-11-04T18:00:00Z', // Tue: alice busy 14–16Z, bob 15–16Z; bob starts 14:00Z (09:00 EST)
      '2025-11-05T14:00:00Z/2025-11-05T18:00:00Z',
    ]);
  });

  it('two people with disjoint working hours have nothing in common', () => {
    const a = freeOf(calendar(), H('Asia/Tokyo', '09:00', '12:00'));
    const b = freeOf(calendar(), H('America/New_York', '09:00', '12:00'));
    expect(a).to.have.length(2);
    expect(b).to.have.length(2);
    expect(intersectAll([a, b])).to.deep.equal([]);
  });

  it('three people: a slot exists only where all three are free', () => {
    const alice = calendar(vevent('a', '20251105T140000Z', '20251105T150000Z'));
    const bob = calendar(NY_WEEKLY);
    const carol = calendar(vevent('c', '20251104T000000Z', '20251105T000000Z', ['RRULE:FREQ=DAILY;COUNT=1']), vevent('c2', '20251105T160000Z', '20251105T170000Z'));
    const all = intersectAll([freeOf(alice, H('UTC', '13:00', '18:00')), freeOf(bob, H('America/New_York')), freeOf(carol, H('Europe/Berlin', '09:00', '19:00'))]);
    expect(show(all)).to.deep.equal(['2025-11-05T15:00:00Z/2025-11-05T16:00:00Z', '2025-11-05T17:00:00Z/2025-11-05T18:00:00Z']);
  });

  it('TRANSP:TRANSPARENT and cancelled events never block', () => {
    const s = calendar(vevent('t', '20251104T090000Z', '20251104T170000Z', ['TRANSP:TRANSPARENT']), vevent('x', '20251105T090000Z', '20251105T170000Z', ['STATUS:CANCELLED']));
    expect(show(freeOf(s, H('UTC')))).to.deep.equal(['2025-11-04T09:00:00Z/2025-11-04T17:00:00Z', '2025-11-05T09:00:00Z/2025-11-05T17:00:00Z']);
  });
});

/** A deterministic RNG cycling through the given values. */
const seq = (...values: number[]) => { let i = 0; return () => values[i++ % values.length] as number; };

describe('Calendar [privacy] fuzzy availability for unknown requesters (oacop-rfc §6.1)', () => {
  const free = Array.from({ length: 20 }, (_, d) => ({ start: Date.UTC(2025, 11, 1 + d, 9), end: Date.UTC(2025, 11, 1 + d, 17) }));
  const DUR = 30 * 60_000;

  it('returns at most 3 slots of exactly the meeting length, each inside a free interval', () => {
    for (const r of [0, 0.13, 0.5, 0.77, 0.999]) {
      const slots = fuzzySlots(free, DUR, seq(r, 1 - r, r / 2));
      expect(slots).to.have.length(3);
      for (const s of slots) {
        expect(s.end - s.start).to.equal(DUR);
        expect(free.some((f) => f.start <= s.start && f.end >= s.end)).to.equal(true);
      }
    }
  });

  it('moves starts off the quarter-hour grid by up to ±5 minutes', () => {
    const slots = fuzzySlots(free, DUR, seq(0.5, 0.5, 0.95, 0.3, 0.2, 0.05, 0.9, 0.7, 0.1));
    const offsets = slots.map((s) => ((s.start / 60_000) % 15 + 15) % 15);
    expect(offsets.some((o) => o !== 0)).to.equal(true);
    for (const o of offsets) expect(Math.min(o, 15 - o)).to.be.at.most(5);
  });

  it('never leaves the interval when it is exactly as long as the meeting', () => {
    const tight = [{ start: Date.UTC(2025, 11, 1, 9), end: Date.UTC(2025, 11, 1, 9, 30) }];
    for (const r of [0, 0.5, 0.99]) expect(fuzzySlots(tight, DUR, seq(r))).to.deep.equal(tight);
  });

  it('rate-limits per requester within a sliding window', () => {
    let now = 0;
    const rl = new RateLimiter(3, 60_000, () => now);
    expect([rl.allow('did:x'), rl.allow('did:x'), rl.allow('did:x'), rl.allow('did:x')]).to.deep.equal([true, true, true, false]);
    expect(rl.allow('did:y')).to.equal(true);
    now = 61_000;
    expect(rl.allow('did:x')).to.equal(true);
  });
});

describe('Calendar [ledger] proofOfBurn (oacop-rfc §6.2)', () => {
  let dir: string;
  let ledger: Ledger;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledger-'));
    ledger = new Ledger(path.join(dir, 'ledger.sqlite'));
  });
  afterEach(() => {
    ledger.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('credits, burns and verifies a txId exactly once', () => {
    expect(ledger.credit('did:key:zA', 5)).to.equal(5);
    const tx = ledger.burn('did:key:zA', 2);
    expect(tx).to.match(/^oap:tx:burn_/);
    expect(ledger.balance('did:key:zA')).to.equal(3);
    expect(ledger.verify(tx, 1, { payer: 'did:key:zA', consumer: 'calendar-bob' })).to.deep.equal({ ok: true, did: 'did:key:zA', amount: 2 });
    expect(ledger.verify(tx, 1)).to.deep.include({ ok: false });
    expect(ledger.list().burns[0]?.consumedBy).to.equal('calendar-bob');
  });

  it('refuses unknown, too small, foreign and unaffordable burns', () => {
    ledger.credit('did:key:zA', 3);
    const tx = ledger.burn('did:key:zA', 1);
    expect(ledger.verify('oap:tx:nope', 1)).to.deep.include({ ok: false });
    expect(ledger.verify(tx, 2)).to.deep.include({ ok: false });
    expect(ledger.verify(tx, 1, { payer: 'did:key:zB' })).to.deep.include({ ok: false });
    expect(ledger.verify(tx, 1, { payer: 'did:key:zA' })).to.deep.include({ ok: true });
    expect(() => ledger.burn('did:key:zA', 5)).to.throw(/cannot burn/);
    expect(() => ledger.credit('did:key:zA', -1)).to.throw(/positive/);
  });

  it('is shared between connections (the CLI and every calendar agent)', () => {
    const other = new Ledger(path.join(dir, 'ledger.sqlite'));
    other.credit('did:key:zC', 1);
    const tx = other.burn('did:key:zC', 1);
    expect(ledger.verify(tx, 1)).to.deep.include({ ok: true });
    expect(other.verify(tx, 1)).to.deep.include({ ok: false });
    other.close();
  });
});

describe('Calendar [availability] working hours as a person reads them', () => {
  const hours = (days: number[], timezone = 'UTC'): WorkingHours => ({ days, start: '09:00', end: '17:00', timezone });
  it('names a run of days as a range and other days one by one', () => {
    expect(describeHours(hours([1, 2, 3, 4, 5]))).to.equal('Mon–Fri 09:00–17:00 UTC');
    expect(describeHours(hours([5, 1, 3], 'America/Argentina/Buenos_Aires'))).to.equal('Mon, Wed, Fri 09:00–17:00 America/Argentina/Buenos_Aires');
    expect(describeHours(hours([6, 7]))).to.equal('Sat, Sun 09:00–17:00 UTC');
    expect(describeHours(hours([1, 2, 3, 4, 5, 6, 7], 'Etc/GMT+5'))).to.equal('Mon–Sun 09:00–17:00 Etc/GMT+5');
  });
  it('a window without any working time gets the comment, in the one form the Coordinator quotes', () => {
    const sat = { start: Date.parse('2026-12-12T00:00:00Z'), end: Date.parse('2026-12-13T23:59:00Z') };
    const comment = outsideHoursComment(hours([1, 2, 3, 4, 5], 'Europe/Berlin'), sat);
    expect(comment).to.equal('outside working hours (Mon–Fri 09:00–17:00 Europe/Berlin)');
    expect(OUTSIDE_WORKING_HOURS_RE.test(comment ?? '')).to.equal(true);
    for (const d of [[5, 1, 3], [6, 7], [1, 2, 3, 4, 5, 6, 7]]) expect(OUTSIDE_WORKING_HOURS_RE.test(`outside working hours (${describeHours(hours(d, 'America/Argentina/Buenos_Aires'))})`)).to.equal(true);
    // Any working minute in the window: no comment (the calendar is then busy, which it never details).
    expect(outsideHoursComment(hours([1, 2, 3, 4, 5, 6]), sat)).to.equal(undefined);
  });
});
