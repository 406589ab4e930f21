// A finished exchange leaves its live record and its tombstone (the sends resent after a crash)
// in one transaction (shared/store/exchanges.ts remove). Found with durability-sessions.test under
// load: a kill -9 between the two writes left neither; the answer still in the socket buffer was
// never resent, and the Coordinator waited 24 s for a session step that had been applied.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Envelope } from '../../shared/acl/index.js';
import type { PersistedExchange } from '../../shared/runtime/index.js';
import { ExchangeStore } from '../../shared/store/index.js';

describe('Exchange store [finish] the live record and its tombstone go together', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-xfinish-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const record = (key: string): PersistedExchange => ({ key, machineId: 'm', conversationId: 'c', outbound: [], snapshot: {}, timers: [], recent: [] });
  const answer = { performative: 'INFORM', reply_with: 'msg-answer', in_reply_to: 'msg-request' } as unknown as Envelope;

  it('a failure between the delete and the tombstone (the process dying there) keeps the live record', () => {
    const store = new ExchangeStore(path.join(dir, 'x.sqlite'));
    try {
      store.save('c/msg-request', record('c/msg-request'));
      // The attack: the tombstone's write fails, as if the process died right after the delete.
      const stmts = (store as unknown as { stmts: { finish: { run: () => never } } }).stmts;
      const finish = stmts.finish;
      stmts.finish = { run: () => { throw new Error('killed here'); } };
      expect(() => store.remove('c/msg-request', [answer])).to.throw('killed here');
      expect(store.exchanges().map((r) => r.key), 'still live: a restart restores it and answers').to.deep.equal(['c/msg-request']);
      stmts.finish = finish;
      store.remove('c/msg-request', [answer]);
      expect(store.exchanges()).to.deep.equal([]);
      expect(store.recentlyFinished().map((f) => f.sends), 'the answer is resent after a crash').to.deep.equal([[answer]]);
    } finally {
      store.close();
    }
  });
});
