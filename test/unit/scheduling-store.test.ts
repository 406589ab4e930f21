import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SchedulingStore } from '../../agents/coordinator/scheduling/store.js';

describe('Coordinator [scheduling store] data/scheduling.sqlite, named for what it holds', () => {
  it('keeps an installation\'s meetings, tasks and zones from the old data/coordinator.sqlite', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-sched-'));
    try {
      const old = new SchedulingStore(path.join(dir, 'coordinator.sqlite'));
      old.saveZone('alice@localhost', 'Europe/Berlin');
      old.close();
      const store = new SchedulingStore(path.join(dir, 'scheduling.sqlite'));
      try {
        expect(store.zones()).to.deep.equal({ 'alice@localhost': 'Europe/Berlin' });
        expect(fs.existsSync(path.join(dir, 'coordinator.sqlite')), 'the old file is moved, not copied').to.equal(false);
      } finally {
        store.close();
      }
      // A second start with both absent or the new one present leaves things as they are.
      const again = new SchedulingStore(path.join(dir, 'scheduling.sqlite'));
      expect(again.zones()).to.have.property('alice@localhost');
      again.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the last meeting is the last booked, cancelled or not: never an older one behind it', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-sched-'));
    const store = new SchedulingStore(path.join(dir, 'scheduling.sqlite'));
    try {
      const base = { organizer: 'alice@localhost', slot: { start: '2026-12-10T09:00:00Z', end: '2026-12-10T09:30:00Z' }, revision: 0, participants: ['calendar-alice', 'calendar-bob'], status: 'CONFIRMED' as const };
      store.saveMeeting({ ...base, threadId: 'urn:uuid:older', title: 'Older' });
      store.saveMeeting({ ...base, threadId: 'urn:uuid:newer', title: 'Newer' });
      expect(store.lastMeeting('alice@localhost')?.title).to.equal('Newer');
      store.saveMeeting({ ...base, threadId: 'urn:uuid:newer', title: 'Newer', revision: 1, status: 'CANCELLED' });
      expect(store.lastMeeting('alice@localhost')).to.deep.include({ title: 'Newer', status: 'CANCELLED' });
      // The older meeting's own update (a reschedule) does not make it the last booked.
      store.saveMeeting({ ...base, threadId: 'urn:uuid:older', title: 'Older', revision: 1 });
      expect(store.lastMeeting('alice@localhost')?.title).to.equal('Newer');
      expect(store.lastMeeting('bob@localhost')).to.equal(undefined);
    } finally {
      store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
