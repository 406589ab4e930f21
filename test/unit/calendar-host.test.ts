// The calendar host (agents/calendar/host.ts, issue 14 §3): stores opened on use and closed
// beyond the pool's size; the Coordinator reads a virtual calendar's person from its name.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { StorePool } from '../../agents/calendar/virtual.js';
import { calendarOf, displayName, personOfCalendar } from '../../agents/coordinator/scheduling/oacop.js';
import { CalendarStore } from '../../shared/calendar/index.js';

describe('Calendar host [stores] one CalendarStore per person, opened on use', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-calpool-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('opens a store on first use, keeps the recently used ones, closes the least recently used beyond its size', () => {
    const opened: string[] = [];
    const closed: string[] = [];
    const pool = new StorePool((person) => {
      opened.push(person);
      const s = new CalendarStore(path.join(dir, `calendar-${person}.sqlite`));
      const close = s.close.bind(s);
      s.close = () => {
        closed.push(person);
        close();
      };
      return s;
    }, 2);
    const a = pool.get('a');
    expect(pool.get('a')).to.equal(a);
    pool.get('b');
    pool.get('a'); // a is now the most recent
    pool.get('c'); // b goes
    expect(opened).to.deep.equal(['a', 'b', 'c']);
    expect(closed).to.deep.equal(['b']);
    expect(pool.size).to.equal(2);
    // Reopened, b still has what it stored (its own file).
    pool.get('b').saveThread({ threadId: 't', revision: 1, status: 'PROPOSED', requester: 'x', object: {}, slot: null, updated: 'now' });
    pool.get('a');
    pool.get('c');
    expect(pool.get('b').thread('t')?.revision).to.equal(1);
    pool.close();
    expect(pool.size).to.equal(0);
  });
});

describe('Calendar host [names] the Coordinator treats bob@calendars.<domain> as bob\'s calendar', () => {
  it('maps a virtual calendar to its person and shows the person', () => {
    expect(personOfCalendar('bob@calendars.example.test', 'example.test')).to.equal('bob@example.test');
    expect(personOfCalendar('calendar-bob', 'example.test')).to.equal('bob@example.test');
    expect(displayName('bob@calendars.example.test')).to.equal('bob');
    expect(displayName('calendar-bob')).to.equal('bob');
    expect(displayName('room-atlas')).to.equal('atlas');
  });

  it('finds a virtual calendar by the person its topics name', () => {
    const profiles = [
      { jid: 'carol@calendars.example.test', name: 'carol@calendars.example.test', version: '1', capabilities: ['CALENDAR'], topics: ['carol', 'carol@example.test'] },
      { jid: 'bob@calendars.example.test', name: 'bob@calendars.example.test', version: '1', capabilities: ['CALENDAR'], topics: ['bob', 'bob@example.test'] },
    ];
    expect(calendarOf(profiles, 'Bob')?.name).to.equal('bob@calendars.example.test');
    expect(calendarOf(profiles, 'dave')).to.equal(undefined);
  });
});
