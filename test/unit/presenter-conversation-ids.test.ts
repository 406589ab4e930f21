import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { ConversationIds } from '../../agents/presenter/conversation-ids.js';
import { allowList, isAllowed, onPresenceStanza } from '../../agents/presenter/subscriptions.js';
import { SqliteThreadOwners } from '../../agents/presenter/thread-owners.js';

function book(idleMs = 1000) {
  let n = 0;
  return new ConversationIds(idleMs, () => `sess-${++n}`);
}

describe('Presenter [session] conversation_id per person', () => {
  it('reuses the client\'s own <thread> as conversation_id and as the reply thread (XEP-0201)', () => {
    const s = book();
    expect(s.resolve('alice@localhost', 'gajim-thread-1', 0)).to.deep.equal({ conversationId: 'gajim-thread-1', thread: 'gajim-thread-1', fresh: true });
    expect(s.resolve('alice@localhost', 'gajim-thread-1', 10)).to.include({ conversationId: 'gajim-thread-1', fresh: false });
  });

  it('gives each person without a thread their own sess- id, kept while they keep talking', () => {
    const s = book();
    const a = s.resolve('alice@localhost', undefined, 0);
    const b = s.resolve('bob@localhost', undefined, 0);
    expect(a.conversationId).to.equal('sess-1');
    expect(b.conversationId).to.equal('sess-2');
    expect(a.thread).to.equal(a.conversationId);
    expect(s.resolve('alice@localhost', undefined, 999).conversationId).to.equal('sess-1');
    expect(s.resolve('alice@localhost', undefined, 1998).conversationId).to.equal('sess-1');
  });

  it('renews a person\'s conversation after idleMs of silence', () => {
    const s = book(1000);
    s.resolve('alice@localhost', undefined, 0);
    const later = s.resolve('alice@localhost', undefined, 1000);
    expect(later).to.deep.equal({ conversationId: 'sess-2', thread: 'sess-2', fresh: true });
  });

  it('"new" starts a new conversation, threadless or inside a client thread', () => {
    const s = book();
    s.resolve('alice@localhost', undefined, 0);
    expect(s.renew('alice@localhost', undefined, 1).conversationId).to.equal('sess-2');
    expect(s.resolve('alice@localhost', undefined, 2).conversationId).to.equal('sess-2');
    s.resolve('alice@localhost', 't1', 3);
    const renewed = s.renew('alice@localhost', 't1', 4);
    expect(renewed).to.deep.equal({ conversationId: 'sess-3', thread: 't1', fresh: true });
    expect(s.resolve('alice@localhost', 't1', 5)).to.include({ conversationId: 'sess-3', thread: 't1' });
  });

  it('never lets one person\'s thread join another person\'s conversation', () => {
    const s = book();
    const a = s.resolve('alice@localhost', undefined, 0);
    const stolen = s.resolve('bob@localhost', a.conversationId, 1);
    expect(stolen.conversationId).not.to.equal(a.conversationId);
    expect(stolen.thread).to.equal(a.conversationId);
    s.resolve('alice@localhost', 'shared-name', 2);
    expect(s.resolve('bob@localhost', 'shared-name', 3).conversationId).to.match(/^sess-/);
    // Alice's client echoing back our id keeps her conversation.
    expect(s.resolve('alice@localhost', a.conversationId, 4).conversationId).to.equal(a.conversationId);
  });

  it('replaces a client thread the contract cannot carry (whitespace, > 200 chars)', () => {
    const s = book();
    expect(s.resolve('alice@localhost', 'has space', 0).conversationId).to.equal('sess-1');
    expect(s.resolve('alice@localhost', 'x'.repeat(201), 0).conversationId).to.equal('sess-2');
  });
});

describe('Presenter [allow] who may subscribe and chat', () => {
  const list = allowList(['localhost', 'Carol@Example.org', ' ']);

  it('allows whole domains and single bare JIDs, case-insensitively', () => {
    expect(isAllowed(list, 'alice@localhost/gajim')).to.equal(true);
    expect(isAllowed(list, 'carol@example.org/phone')).to.equal(true);
    expect(isAllowed(list, 'dave@example.org')).to.equal(false);
    expect(isAllowed(list, 'eve@evil.localhost')).to.equal(false);
    expect(isAllowed(list, 'localhost')).to.equal(false);
  });

  it('approves an allowed subscribe and subscribes back (RFC 6121 §3.1)', () => {
    expect(onPresenceStanza(list, 'subscribe', 'alice@localhost/gajim')).to.deep.equal([
      { to: 'alice@localhost', type: 'subscribed' },
      { to: 'alice@localhost', type: 'subscribe' },
    ]);
  });

  it('denies anyone else with unsubscribed and ignores ordinary presence', () => {
    expect(onPresenceStanza(list, 'subscribe', 'dave@example.org')).to.deep.equal([{ to: 'dave@example.org', type: 'unsubscribed' }]);
    expect(onPresenceStanza(list, undefined, 'alice@localhost/gajim')).to.deep.equal([]);
    expect(onPresenceStanza(list, 'subscribed', 'alice@localhost')).to.deep.equal([]);
  });
});

describe('Presenter [sessions] thread ownership survives a restart (no squatting)', () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'parley-threads-')), 'presenter-threads.sqlite');
  const A = 'alice@localhost';
  const B = 'mallory@localhost';

  it('a thread a person used, and an id the Presenter minted for her, stay hers after a restart', () => {
    const before = new SqliteThreadOwners(file);
    const first = new ConversationIds(60000, undefined, undefined, before);
    expect(first.resolve(A, 'alice-thread-1', 0).conversationId).to.equal('alice-thread-1');
    const minted = first.resolve(A, undefined, 0).conversationId;
    before.close();

    // The Presenter restarts (a new process: new maps, the same database); Mallory sends first.
    const after = new SqliteThreadOwners(file);
    const second = new ConversationIds(60000, undefined, undefined, after);
    const squat = second.resolve(B, 'alice-thread-1', 1);
    expect(squat.conversationId).to.not.equal('alice-thread-1');
    expect(squat.thread).to.equal('alice-thread-1'); // her client keeps its thread; her conversation is her own
    expect(second.resolve(B, minted, 1).conversationId).to.not.equal(minted);
    expect(second.resolve(A, 'alice-thread-1', 2).conversationId).to.equal('alice-thread-1');
    expect(second.resolve(A, minted, 2).conversationId).to.equal(minted);
    after.close();
  });
});
