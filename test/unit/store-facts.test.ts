import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import {
  DEFAULT_FACT_LIMIT, type Fact, type FactFilter, type FactStore, MemoryFactStore, SqliteFactStore,
} from '../../shared/store/index.js';

const fact = (n: number, extra: Partial<Fact> = {}): Fact => ({
  session_id: 'sess-1',
  slot: 'answer',
  value: `answer ${n}`,
  confidence: 0.9,
  ts: new Date(Date.UTC(2025, 10, 7, 19, 0, n)).toISOString(),
  ...extra,
});

const impls: Array<[string, () => FactStore]> = [
  ['memory', () => new MemoryFactStore()],
  ['sqlite :memory:', () => new SqliteFactStore(':memory:')],
];

for (const [label, make] of impls) {
  describe(`store [facts] ${label}`, () => {
    let store: FactStore;
    beforeEach(() => (store = make()));
    afterEach(() => store.close());

    it('returns stored facts newest first by ts, then by arrival', () => {
      store.add(fact(1));
      store.add(fact(3));
      store.add(fact(2));
      store.add(fact(3, { value: 'later arrival, same ts' }));
      expect(store.query({}).map((f) => f.value)).to.deep.equal(['later arrival, same ts', 'answer 3', 'answer 2', 'answer 1']);
    });

    it('orders by instant, not by string (…00Z is older than …00.500Z)', () => {
      store.add(fact(0, { ts: '2025-11-07T19:55:00.500Z', value: 'newer' }));
      store.add(fact(0, { ts: '2025-11-07T19:55:00Z', value: 'older' }));
      expect(store.query({}).map((f) => f.value)).to.deep.equal(['newer', 'older']);
    });

    it('filters by session_id, slot and subject together', () => {
      store.add(fact(1, { session_id: 'sess-a', slot: 'answer', subject: 'alice@localhost' }));
      store.add(fact(2, { session_id: 'sess-a', slot: 'question', subject: 'alice@localhost' }));
      store.add(fact(3, { session_id: 'sess-b', slot: 'answer', subject: 'bob@localhost' }));
      expect(store.query({ session_id: 'sess-a' })).to.have.length(2);
      expect(store.query({ session_id: 'sess-a', slot: 'answer' }).map((f) => f.value)).to.deep.equal(['answer 1']);
      expect(store.query({ subject: 'bob@localhost' }).map((f) => f.value)).to.deep.equal(['answer 3']);
      expect(store.query({ subject: 'carol@localhost' })).to.deep.equal([]);
    });

    it('matches text case-insensitively inside the JSON of the value, with % and _ literal', () => {
      store.add(fact(1, { value: 'The capital of France is PARIS' }));
      store.add(fact(2, { value: { city: 'Zürich', note: '100% sure' } }));
      store.add(fact(3, { value: 42 }));
      expect(store.query({ text: 'paris' }).map((f) => f.value)).to.deep.equal(['The capital of France is PARIS']);
      expect(store.query({ text: 'ZÜRICH' })).to.have.length(1);
      expect(store.query({ text: '"city"' })).to.have.length(1);
      expect(store.query({ text: '100%' })).to.have.length(1);
      expect(store.query({ text: '%' })).to.have.length(1);
      expect(store.query({ text: '_' })).to.have.length(0);
      expect(store.query({ text: '42' })).to.have.length(1);
    });

    it('limits to 20 by default and to filter.limit when given', () => {
      for (let i = 0; i < 30; i++) store.add(fact(i));
      expect(store.query({})).to.have.length(DEFAULT_FACT_LIMIT);
      expect(store.query({ limit: 3 }).map((f) => f.value)).to.deep.equal(['answer 29', 'answer 28', 'answer 27']);
    });

    it('returns the fact as stored: structured values, subject only when present', () => {
      store.add(fact(1, { value: { list: [1, 'two', { three: true }] }, subject: 'alice@localhost', confidence: 0.5 }));
      store.add(fact(0));
      const [withSubject, without] = store.query({});
      expect(withSubject).to.deep.equal({ session_id: 'sess-1', slot: 'answer', value: { list: [1, 'two', { three: true }] }, confidence: 0.5, ts: fact(1).ts, subject: 'alice@localhost' });
      expect(without).not.to.have.property('subject');
    });
  });
}

describe('store [facts] memory and SQLite agree', () => {
  it('answers the same filters identically', () => {
    const mem = new MemoryFactStore();
    const sql = new SqliteFactStore(':memory:');
    const values = ['Paris', 'paris hilton', { city: 'Berlin' }, 7, true, ['x', 'Paris']];
    for (let i = 0; i < 24; i++) {
      const f = fact(i % 7, { session_id: `sess-${i % 3}`, slot: i % 2 ? 'answer' : 'question', value: values[i % values.length] as Fact['value'], ...(i % 4 ? { subject: `p${i % 2}@localhost` } : {}) });
      mem.add(f);
      sql.add(f);
    }
    const filters: FactFilter[] = [{}, { text: 'paris' }, { session_id: 'sess-1' }, { slot: 'answer', limit: 5 }, { subject: 'p1@localhost', text: 'a' }, { text: 'TRUE' }];
    for (const filter of filters) expect(sql.query(filter), JSON.stringify(filter)).to.deep.equal(mem.query(filter));
    sql.close();
  });
});

describe('store [facts] sqlite file', () => {
  it('keeps facts across a reopen (KB restart)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-kb-'));
    const file = path.join(dir, 'data', 'kb.sqlite');
    try {
      const a = new SqliteFactStore(file);
      a.add(fact(1, { value: 'durable' }));
      a.close();
      const b = new SqliteFactStore(file);
      expect(b.query({ session_id: 'sess-1' }).map((f) => f.value)).to.deep.equal(['durable']);
      b.add(fact(2, { value: 'after restart' }));
      expect(b.query({}).map((f) => f.value)).to.deep.equal(['after restart', 'durable']);
      b.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
