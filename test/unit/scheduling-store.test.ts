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
});
