// ExchangeStore.saveLater (issue 15 "persist at the moments that matter"): inside an open group
// commit an exchange's snapshot is written once, its latest, just before the COMMIT; a second
// connection (what a kill -9 leaves) sees nothing before it and the latest state after it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import type { PersistedExchange } from '../../shared/runtime/index.js';
import { ExchangeStore } from '../../shared/store/index.js';

function rec(key: string, state: string): PersistedExchange {
  return { key, machineId: 'm', conversationId: 'c', outbound: [], snapshot: { value: state }, timers: [], recent: [] };
}

function setup() {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'parley-deferred-')), 'x-exchanges.sqlite');
  const store = new ExchangeStore(file);
  const outside = () => {
    const db = new Database(file, { readonly: true });
    try {
      return (db.prepare('SELECT key, record FROM exchanges ORDER BY key').all() as Array<{ key: string; record: string }>)
        .map((r) => [r.key, (JSON.parse(r.record) as PersistedExchange).snapshot]);
    } finally {
      db.close();
    }
  };
  return { store, outside };
}

describe('store [exchanges] snapshots deferred to the group commit', () => {
  it('writes one snapshot per exchange, built at the COMMIT from the latest state', () => {
    const { store, outside } = setup();
    const g = store.group();
    expect(g.begin()).to.equal(true);
    let state = 'asked';
    let builds = 0;
    const build = () => ((builds += 1), rec('a', state));
    store.saveLater('a', build);
    state = 'agreed';
    store.saveLater('a', build);
    state = 'answered';
    store.saveLater('a', build);
    expect(builds).to.equal(0);
    expect(outside()).to.deep.equal([]); // nothing a crash could find yet
    g.commit();
    expect(builds).to.equal(1);
    expect(outside()).to.deep.equal([['a', { value: 'answered' }]]);
    store.close();
  });

  it('drops a deferred snapshot of an exchange removed in the same burst, and every one on rollback', () => {
    const { store, outside } = setup();
    const g = store.group();
    g.begin();
    store.saveLater('gone', () => rec('gone', 'x'));
    store.saveLater('kept', () => rec('kept', 'y'));
    store.remove('gone');
    g.commit();
    expect(outside()).to.deep.equal([['kept', { value: 'y' }]]);
    g.begin();
    store.saveLater('rolled', () => rec('rolled', 'z'));
    g.rollback();
    g.begin();
    g.commit();
    expect(outside()).to.deep.equal([['kept', { value: 'y' }]]);
    store.close();
  });

  it('writes at once when no group commit is open (timers, restore, agents without group commit)', () => {
    const { store, outside } = setup();
    store.saveLater('now', () => rec('now', 'w'));
    expect(outside()).to.deep.equal([['now', { value: 'w' }]]);
    store.close();
  });

  it("a view (the calendar host) defers into its owner's group, under its own scope", () => {
    const { store, outside } = setup();
    const view = new ExchangeStore({ share: store, scope: 'alice@cal.localhost' });
    const g = view.group();
    g.begin();
    view.saveLater('k', () => rec('k', 'v'));
    expect(outside()).to.deep.equal([]);
    g.commit();
    expect(outside()).to.deep.equal([['alice@cal.localhost\nk', { value: 'v' }]]);
    expect(view.exchanges().map((r) => r.snapshot)).to.deep.equal([{ value: 'v' }]);
    store.close();
  });
});
