import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import {
  type DirectoryRecord, type DirectoryStore, MemoryDirectoryStore, SqliteDirectoryStore,
} from '../../shared/store/index.js';

const record = (local: string, at = 1000, extra: Partial<DirectoryRecord['profile']> = {}): DirectoryRecord => ({
  profile: { jid: `${local}@localhost`, name: local, version: '1.0.0', capabilities: ['ASK_EXPERT'], ...extra },
  registered_at: at,
  last_seen: at,
  last_used: 0,
});

const impls: Array<[string, () => DirectoryStore]> = [
  ['memory', () => new MemoryDirectoryStore()],
  ['sqlite :memory:', () => new SqliteDirectoryStore(':memory:')],
];

for (const [label, make] of impls) {
  describe(`store [directory] ${label}`, () => {
    let store: DirectoryStore;
    beforeEach(() => (store = make()));
    afterEach(() => store.close());

    it('puts and gets a registration with its whole profile', () => {
      store.put(record('specialist-a', 1000, { topics: ['math'], examples: ['2+2?'], role: 'tutor', max_concurrent: 4 }));
      expect(store.get('specialist-a@localhost')).to.deep.equal(record('specialist-a', 1000, { topics: ['math'], examples: ['2+2?'], role: 'tutor', max_concurrent: 4 }));
      expect(store.get('specialist-b@localhost')).to.equal(undefined);
    });

    it('replaces a registration of the same jid (re-registration after a restart)', () => {
      store.put(record('specialist-a', 1000, { version: '1.0.0' }));
      store.put(record('specialist-a', 5000, { version: '2.0.0' }));
      expect(store.all()).to.have.length(1);
      expect(store.get('specialist-a@localhost')).to.deep.include({ registered_at: 5000, last_seen: 5000 });
      expect(store.get('specialist-a@localhost')?.profile.version).to.equal('2.0.0');
    });

    it('touches last_seen and marks use only for registered jids', () => {
      store.put(record('specialist-a'));
      expect(store.touch('specialist-a@localhost', 2000)).to.equal(true);
      expect(store.touch('specialist-z@localhost', 2000)).to.equal(false);
      store.markUsed('specialist-a@localhost', 3000);
      store.markUsed('specialist-z@localhost', 3000);
      expect(store.get('specialist-a@localhost')).to.deep.include({ last_seen: 2000, last_used: 3000 });
      expect(store.all()).to.have.length(1);
    });

    it('removes a registration and says whether it existed', () => {
      store.put(record('specialist-a'));
      expect(store.remove('specialist-a@localhost')).to.equal(true);
      expect(store.remove('specialist-a@localhost')).to.equal(false);
      expect(store.all()).to.deep.equal([]);
    });

    it('returns copies: mutating a result does not change the store', () => {
      store.put(record('specialist-a'));
      const got = store.get('specialist-a@localhost');
      if (got) got.profile.capabilities.push('OTHER');
      expect(store.get('specialist-a@localhost')?.profile.capabilities).to.deep.equal(['ASK_EXPERT']);
    });
  });
}

describe('store [directory] sqlite file', () => {
  it('keeps registrations, last_seen and last_used across a reopen (Registry restart)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-dir-'));
    const file = path.join(dir, 'data', 'registry.sqlite');
    try {
      const a = new SqliteDirectoryStore(file);
      a.put(record('specialist-a', 1000));
      a.put(record('specialist-b', 1500));
      a.touch('specialist-a@localhost', 4000);
      a.markUsed('specialist-b@localhost', 4100);
      a.close();
      const b = new SqliteDirectoryStore(file);
      expect(b.all().map((r) => [r.profile.jid, r.last_seen, r.last_used])).to.deep.equal([
        ['specialist-a@localhost', 4000, 0],
        ['specialist-b@localhost', 1500, 4100],
      ]);
      b.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
