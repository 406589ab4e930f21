// The exchange store's rows are found by rowid, not through an index on their random keys
// (shared/store/exchanges-schema.ts, issue 15): what an earlier layout stored comes back after the
// upgrade, and a rowid remembered from a rolled-back write never lets one exchange's write land
// on another's row.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import type { Envelope } from '../../shared/acl/index.js';
import type { PersistedExchange } from '../../shared/runtime/index.js';
import { ExchangeStore } from '../../shared/store/index.js';

const record = (key: string, machineId = 'm'): PersistedExchange => ({ key, machineId, conversationId: 'c', outbound: [], snapshot: {}, timers: [], recent: [] });
const answer = { performative: 'INFORM', reply_with: 'msg-answer', in_reply_to: 'msg-request' } as unknown as Envelope;

describe('Exchange store [layout] rows by rowid; an older keyed file is upgraded', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-xlayout-'));
    file = path.join(dir, 'x.sqlite');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('upgrades a file written with keyed tables: live exchanges, tombstones and the inbound ledger survive', () => {
    const now = Date.now();
    const old = new Database(file);
    old.pragma('journal_mode = WAL');
    old.exec(`
      CREATE TABLE exchanges (key TEXT PRIMARY KEY, record TEXT NOT NULL, updated_at INTEGER NOT NULL);
      CREATE TABLE finished (key TEXT PRIMARY KEY, sends TEXT NOT NULL, at INTEGER NOT NULL);
      CREATE TABLE inbound (dedupe_key TEXT PRIMARY KEY, at INTEGER NOT NULL);
      CREATE INDEX inbound_at ON inbound(at);
      CREATE TABLE meta (k TEXT PRIMARY KEY, v TEXT NOT NULL);`);
    old.prepare('INSERT INTO exchanges VALUES (?, ?, ?)').run('c/msg-live', JSON.stringify(record('c/msg-live')), now);
    old.prepare('INSERT INTO finished VALUES (?, ?, ?)').run('c/msg-done', JSON.stringify([answer]), now);
    old.prepare('INSERT INTO inbound VALUES (?, ?)').run('presenter@localhost msg-1', now);
    old.close();

    const store = new ExchangeStore(file);
    try {
      expect(store.exchanges().map((r) => r.key)).to.deep.equal(['c/msg-live']);
      expect(store.recentlyFinished()).to.deep.equal([{ key: 'c/msg-done', sends: [answer] }]);
      expect(store.firstTime('presenter@localhost msg-1'), 'a copy of what was handled before the upgrade').to.equal(false);
      expect(store.firstTime('presenter@localhost msg-2')).to.equal(true);
      // The upgraded row is found by its rowid: updated in place, then removed.
      store.save('c/msg-live', record('c/msg-live', 'm2'));
      expect(store.exchanges().map((r) => r.machineId)).to.deep.equal(['m2']);
      store.remove('c/msg-live');
      expect(store.exchanges()).to.deep.equal([]);
    } finally {
      store.close();
    }
    const db = new Database(file, { readonly: true });
    const sql = Object.fromEntries((db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string; sql: string }>).map((t) => [t.name, t.sql]));
    db.close();
    expect(sql.exchanges).to.not.include('PRIMARY KEY');
    expect(sql.finished).to.not.include('PRIMARY KEY');
    expect(sql.inbound).to.include('WITHOUT ROWID');
    expect(Object.keys(sql).filter((n) => n.endsWith('_keyed'))).to.deep.equal([]);
  });

  it('attack: a rowid left by a rolled-back insert, now another exchange\'s, is never written through', () => {
    const store = new ExchangeStore(file);
    try {
      // A's first snapshot is rolled back with the handling that wrote it…
      expect(() => store.atomically(() => {
        store.save('c/msg-a', record('c/msg-a', 'a1'));
        throw new Error('the handler failed');
      })).to.throw('the handler failed');
      // …so SQLite hands the same rowid to B.
      store.save('c/msg-b', record('c/msg-b', 'b1'));
      store.save('c/msg-a', record('c/msg-a', 'a2'));
      store.remove('c/msg-a');
      expect(store.exchanges().map((r) => [r.key, r.machineId])).to.deep.equal([['c/msg-b', 'b1']]);
    } finally {
      store.close();
    }
    const again = new ExchangeStore(file);
    try {
      again.save('c/msg-b', record('c/msg-b', 'b2'));
      expect(again.exchanges().map((r) => [r.key, r.machineId]), 'after a restart the row is found again').to.deep.equal([['c/msg-b', 'b2']]);
    } finally {
      again.close();
    }
  });

  it('a group rolled back after a remove: the row is live again and a later remove still deletes it', () => {
    const store = new ExchangeStore(file);
    try {
      store.save('c/msg-a', record('c/msg-a'));
      const g = store.group();
      expect(g.begin()).to.equal(true);
      store.remove('c/msg-a', [answer]);
      g.rollback();
      expect(store.exchanges().map((r) => r.key)).to.deep.equal(['c/msg-a']);
      store.remove('c/msg-a', [answer]);
      expect(store.exchanges()).to.deep.equal([]);
    } finally {
      store.close();
    }
  });
});
