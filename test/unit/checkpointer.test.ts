// WAL checkpoints off the event loop (shared/store/checkpointer.ts, issue 15): the worker keeps
// the WAL bounded for the files it adopts, and whenever it cannot (dead, refused, over its cap)
// the file's own connection checkpoints again, so the WAL never grows without bound.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { Checkpointer, checkpointer, MAX_ADOPTED_FILES, openDb, type Db } from '../../shared/store/index.js';
import { until } from '../support/wait.js';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'parley-ckpt-'));
const size = (f: string) => (fs.existsSync(f) ? fs.statSync(f).size : 0);
const autocheckpoint = (db: Db) => db.pragma('wal_autocheckpoint', { simple: true }) as number;

function fill(db: Db, commits: number, from = 0): void {
  db.exec('CREATE TABLE IF NOT EXISTS t (k INTEGER PRIMARY KEY, v TEXT)');
  const put = db.prepare('INSERT OR REPLACE INTO t VALUES (?, ?)');
  for (let i = from; i < from + commits; i++) db.transaction(() => { for (let j = 0; j < 10; j++) put.run(i * 10 + j, 'x'.repeat(1000)); })();
}

describe('Store [checkpointer] WAL checkpoints off the event loop', () => {
  it('moves committed pages into the database file while the owner commits with auto-checkpoint off', async () => {
    const file = path.join(tmp(), 'hot.sqlite');
    const db = openDb(file, { offThreadCheckpoints: true });
    expect(checkpointer.adopts(path.resolve(file))).to.equal(true);
    expect(autocheckpoint(db)).to.equal(0);
    fill(db, 40); // ≈ 400 kB, all of it in the WAL until someone checkpoints
    await until(() => size(file) > 300_000, 'the worker to copy the WAL into the database file', 10_000);
    expect(db.prepare('SELECT count(*) AS n FROM t').get()).to.deep.equal({ n: 400 });
    db.close();
    expect(checkpointer.adopts(path.resolve(file))).to.equal(false);
    // The worker's connection is the last one: closing it checkpoints and removes the WAL.
    await until(() => !fs.existsSync(`${file}-wal`), 'the WAL to be removed after both connections closed', 10_000);
    const again = openDb(file, { readonly: true });
    expect(again.prepare('SELECT count(*) AS n FROM t').get()).to.deep.equal({ n: 400 });
    again.close();
  });

  it('gives every file its auto-checkpoint back when the worker dies, and the WAL stays bounded', async () => {
    const own = new Checkpointer();
    const file = path.join(tmp(), 'a.sqlite');
    const db = openDb(file);
    expect(own.adopt(path.resolve(file), db)).to.equal(true);
    expect(autocheckpoint(db)).to.equal(0);
    await own.crashForTest();
    await until(() => autocheckpoint(db) === 1000, 'the auto-checkpoint to come back', 5000);
    expect(own.adopts(path.resolve(file))).to.equal(false);
    fill(db, 600); // ≈ 6 MB: past 1,000 pages, so the owner's own COMMIT checkpoints
    expect(size(file)).to.be.greaterThan(4_000_000);
    expect(size(`${file}-wal`)).to.be.lessThan(8_000_000);
    // Nothing is adopted any more by this (dead) checkpointer.
    const other = openDb(path.join(path.dirname(file), 'b.sqlite'));
    expect(own.adopt(path.resolve(path.dirname(file), 'b.sqlite'), other)).to.equal(false);
    expect(autocheckpoint(other)).to.equal(1000);
    db.close();
    other.close();
  });

  it('refuses files past its cap, and gives back a file its worker cannot open', async () => {
    const own = new Checkpointer();
    const dir = tmp();
    const dbs: Db[] = [];
    for (let i = 0; i <= MAX_ADOPTED_FILES; i++) dbs.push(openDb(path.join(dir, `f${i}.sqlite`)));
    const taken = dbs.map((db, i) => own.adopt(path.join(dir, `f${i}.sqlite`), db));
    expect(taken.filter(Boolean)).to.have.length(MAX_ADOPTED_FILES);
    expect(taken[MAX_ADOPTED_FILES]).to.equal(false);
    expect(autocheckpoint(dbs[MAX_ADOPTED_FILES] as Db)).to.equal(1000);
    // A file removed under its owner: the worker cannot open it and says so.
    const gone = path.join(dir, 'gone.sqlite');
    const g = openDb(gone);
    g.exec('CREATE TABLE t (k)');
    for (const s of ['', '-wal', '-shm']) fs.rmSync(gone + s, { force: true });
    for (const [i, db] of dbs.entries()) { own.release(path.join(dir, `f${i}.sqlite`), db); db.close(); }
    expect(own.adopt(gone, g)).to.equal(true);
    await until(() => autocheckpoint(g) === 1000, 'the refused file to checkpoint itself again', 5000);
    expect(own.adopts(gone)).to.equal(false);
    g.close();
    await own.crashForTest();
  });

  it('never keeps a process alive: a CLI that opened a hot file exits by itself', async () => {
    const store = new URL('../../shared/store/index.js', import.meta.url).href;
    const file = path.join(tmp(), 'cli.sqlite');
    const script = `import(${JSON.stringify(store)}).then((m) => { const db = m.openDb(${JSON.stringify(file)}, { offThreadCheckpoints: true }); db.exec('CREATE TABLE t (a)'); console.log(m.checkpointer.adopts(${JSON.stringify(file)})); })`;
    const r = await promisify(execFile)(process.execPath, ['-e', script], { timeout: 20_000 });
    expect(r.stdout.trim()).to.equal('true');
  });
});
