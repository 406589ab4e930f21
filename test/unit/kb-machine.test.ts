import { expect } from 'chai';
import { createActor, SimulatedClock } from 'xstate';
import { factsContent, fitFacts } from '../../agents/kb/fit.js';
import { type KbInput, type KbKind, kbMachine } from '../../agents/kb/machine.js';
import { type Envelope, makeEnvelope } from '../../shared/acl/index.js';
import { identify } from '../../shared/runtime/index.js';
import { type Fact, type FactStore, MemoryFactStore, type StoredFact } from '../../shared/store/index.js';
import { runToEnd } from '../support/exchange-run.js';

const fact = (n: number, extra: Partial<Fact> = {}): Fact => ({
  session_id: 'sess-kb-1', slot: 'answer', value: `answer ${n}`, confidence: 0.9,
  ts: new Date(Date.UTC(2025, 10, 7, 19, 0, n)).toISOString(), ...extra,
});

function input(performative: Envelope['performative'], content: object): KbInput {
  const request = makeEnvelope({ performative, sender: 'Coordinator', receiver: 'KB', conversation_id: 'sess-kb-1', content });
  return { request, from: identify('coordinator@localhost', 'localhost'), self: 'KB', kind: (content as { type: KbKind }).type };
}

/** Runs one request over any FactStore (a throwing one included), as main.ts does; `notes` collects the telemetry decisions. */
async function run(inp: KbInput, store: FactStore, notes: string[] = []): Promise<Envelope[]> {
  const r = await runToEnd(createActor(kbMachine(store), { input: inp, clock: new SimulatedClock() }));
  notes.push(...r.notes);
  return r.sent;
}

class ThrowingStore implements FactStore {
  add(): void {
    throw new Error('SQLITE_FULL: database or disk is full');
  }
  query(): StoredFact[] {
    throw new Error('SQLITE_CORRUPT: database disk image is malformed');
  }
  close(): void {}
}

describe('KB [STORE_FACT] machine', () => {
  it('stores the fact and answers INFORM STORED count 1 in_reply_to the STORE_FACT', async () => {
    const store = new MemoryFactStore();
    const inp = input('INFORM', { type: 'STORE_FACT', fact: fact(1, { subject: 'alice@localhost' }) });
    const notes: string[] = [];
    const sent = await run(inp, store, notes);
    expect(notes, 'a stored fact is not a telemetry decision').to.deep.equal([]);
    expect(sent).to.have.length(1);
    expect(sent[0]).to.deep.include({ performative: 'INFORM', sender: 'KB', receiver: 'Coordinator', in_reply_to: inp.request.reply_with, conversation_id: 'sess-kb-1' });
    expect(sent[0]?.content).to.deep.equal({ type: 'STORED', count: 1 });
    expect(store.query({ subject: 'alice@localhost' }).map((f) => f.value)).to.deep.equal(['answer 1']);
  });

  it('answers FAILURE KB_STORE_FAILED with the storage error as detail when the store throws', async () => {
    const inp = input('INFORM', { type: 'STORE_FACT', fact: fact(1) });
    const notes: string[] = [];
    const sent = await run(inp, new ThrowingStore(), notes);
    expect(notes).to.deep.equal(['store-failed']);
    expect(sent).to.have.length(1);
    expect(sent[0]).to.deep.include({ performative: 'FAILURE', in_reply_to: inp.request.reply_with });
    expect(sent[0]?.content).to.deep.equal({ reason: 'KB_STORE_FAILED', detail: 'could not store the fact: SQLITE_FULL: database or disk is full' });
  });
});

describe('KB [GET_FACTS] machine', () => {
  it('answers INFORM {facts} newest first for the filter, in_reply_to the query', async () => {
    const store = new MemoryFactStore();
    for (let i = 0; i < 5; i++) store.add(fact(i));
    store.add(fact(9, { session_id: 'sess-other' }));
    const inp = input('QUERY-REF', { type: 'GET_FACTS', filter: { session_id: 'sess-kb-1', slot: 'answer', limit: 3 } });
    const sent = await run(inp, store);
    expect(sent[0]).to.deep.include({ performative: 'INFORM', in_reply_to: inp.request.reply_with, protocol: 'fipa-query' });
    expect((sent[0]?.content as { facts: StoredFact[] }).facts.map((f) => f.value)).to.deep.equal(['answer 4', 'answer 3', 'answer 2']);
  });

  it('answers an empty list when nothing matches', async () => {
    const sent = await run(input('QUERY-REF', { type: 'GET_FACTS', filter: { text: 'nothing like this' } }), new MemoryFactStore());
    expect(sent[0]?.content).to.deep.equal({ facts: [] });
  });

  it('answers FAILURE INTERNAL_ERROR when the store cannot be read', async () => {
    const sent = await run(input('QUERY-REF', { type: 'GET_FACTS', filter: {} }), new ThrowingStore());
    expect(sent[0]?.performative).to.equal('FAILURE');
    expect(sent[0]?.content).to.deep.equal({ reason: 'INTERNAL_ERROR', detail: 'could not read facts: SQLITE_CORRUPT: database disk image is malformed' });
  });

  it('leaves out the oldest facts so the answer fits 64 kB', async () => {
    const store = new MemoryFactStore();
    for (let i = 0; i < 20; i++) store.add(fact(i, { value: `${i} ${'x'.repeat(30000)}` }));
    const sent = await run(input('QUERY-REF', { type: 'GET_FACTS', filter: {} }), store);
    const facts = (sent[0]?.content as { facts: StoredFact[] }).facts;
    expect(facts.map((f) => (f.value as string).split(' ')[0])).to.deep.equal(['19', '18']);
    expect(Buffer.byteLength(JSON.stringify(sent[0]?.content))).to.be.at.most(64 * 1024);
  });
});

describe('KB [fit] 64 kB answers', () => {
  it('keeps every fact when they fit and measures exactly at the limit', () => {
    const facts: StoredFact[] = [fact(1), fact(2)];
    const exact = Buffer.byteLength(JSON.stringify(factsContent(facts)));
    expect(fitFacts(facts, exact)).to.have.length(2);
    expect(fitFacts(facts, exact - 1)).to.have.length(1);
    expect(fitFacts([], 10)).to.deep.equal([]);
  });
});
