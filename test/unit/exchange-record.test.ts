// The exchange record keeps each envelope once (shared/store/exchange-record.ts): the request and
// the recently sent envelopes that are values of the snapshot's context are written as the name
// of that value, and read back as the same envelopes; rows written before read as they did.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { makeEnvelope, replyTo } from '../../shared/acl/index.js';
import type { PersistedExchange } from '../../shared/runtime/index.js';
import { ExchangeStore, packRecord, unpackRecord } from '../../shared/store/index.js';

const request = makeEnvelope({ performative: 'REQUEST', sender: 'Presenter', receiver: 'Coordinator', conversation_id: 'c1', content: { type: 'USER_MSG', text: 'what is 2 + 3?', attachments: [] } });
const ask = makeEnvelope({ performative: 'REQUEST', sender: 'Coordinator', receiver: 'specialist-math', conversation_id: 'c1', content: { type: 'ASK_EXPERT', args: { question: 'what is 2 + 3?' } } });
const reply = replyTo(request, { performative: 'INFORM', content: { type: 'PRESENTER_REPLY', text: '5' } });

/** A Coordinator-like record: the request and the ASK_EXPERT are also values of the context. */
function record(): PersistedExchange {
  return {
    key: 'c1/r', machineId: 'coordinator-expert', conversationId: 'c1', outbound: [ask.reply_with, reply.reply_with],
    snapshot: { status: 'active', value: 'ahead', context: { request, ask, question: 'what is 2 + 3?', index: 0, result: { answer: '5' } }, children: {} },
    timers: [], recent: [{ at: 1, envelope: ask }, { at: 2, envelope: reply }], request, kind: 'USER_MSG',
  };
}

describe('Exchange store [record] each envelope written once', () => {
  it('writes the request and a sent envelope the context holds as names, and reads back an equal record', () => {
    const rec = record();
    const text = packRecord(rec);
    expect(text.split('"ASK_EXPERT"').length - 1, 'the ASK_EXPERT once').to.equal(1);
    expect(text.split('"USER_MSG"').length - 1, 'the request once (kind is the other USER_MSG)').to.equal(2);
    expect(text.length).to.be.lessThan(JSON.stringify(rec).length - JSON.stringify(request).length - JSON.stringify(ask).length + 100);
    const back = unpackRecord(text);
    expect(back).to.deep.equal(JSON.parse(JSON.stringify(rec)));
    expect(back.request, 'the request is the context\'s own').to.equal((back.snapshot as { context: { request: unknown } }).context.request);
  });

  it('an envelope only equal to a context value (another object) is written out in full', () => {
    const rec = record();
    rec.recent = [{ at: 1, envelope: { ...ask } }];
    rec.request = { ...request };
    const text = packRecord(rec);
    expect(text.split('"ASK_EXPERT"').length - 1).to.equal(2);
    expect(unpackRecord(text)).to.deep.equal(JSON.parse(JSON.stringify(rec)));
  });

  it('a row written before (no names) reads as it always did; a name the context lacks is dropped', () => {
    const rec = record();
    expect(unpackRecord(JSON.stringify(rec))).to.deep.equal(JSON.parse(JSON.stringify(rec)));
    const damaged = JSON.parse(packRecord(rec)) as { snapshot: { context: Record<string, unknown> } };
    delete damaged.snapshot.context.ask;
    delete damaged.snapshot.context.request;
    const back = unpackRecord(JSON.stringify(damaged));
    expect(back.request).to.equal(undefined);
    expect(back.recent.map((r) => r.envelope.reply_with)).to.deep.equal([reply.reply_with]);
  });

  it('a record without a context (a promise or callback machine) is plain JSON', () => {
    const rec = { ...record(), snapshot: { status: 'active', output: undefined } };
    expect(packRecord(rec)).to.equal(JSON.stringify(rec));
  });

  it('the store saves packed records and restores them equal', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-xrecord-'));
    const store = new ExchangeStore(path.join(dir, 'x.sqlite'));
    try {
      store.save('c1/r', record());
      const [back] = store.exchanges();
      expect(back).to.deep.equal(JSON.parse(JSON.stringify(record())));
    } finally {
      store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
