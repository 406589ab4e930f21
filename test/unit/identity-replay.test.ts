import { createHash } from 'node:crypto';
import v8 from 'node:v8';
import vm from 'node:vm';
import { expect } from 'chai';
import { makeEnvelope } from '../../shared/acl/index.js';
import { ReplayWindow, createIdentity, createVerifier, signEnvelope } from '../../shared/identity/index.js';

const T0 = 1_762_545_300_000;

describe('identity [replay] ReplayWindow', () => {
  it('reports a key seen before as a replay until its message expires (timestamp + maxAge)', () => {
    let now = T0;
    const w = new ReplayWindow({ maxAgeMs: 60_000, now: () => now });
    expect(w.admit('a', T0)).to.equal('fresh');
    expect(w.admit('a', T0)).to.equal('replay');
    expect(w.check('a', T0 + 5_000)).to.equal('replay'); // same id, other timestamp: still the same id
    now = T0 + 60_000;
    expect(w.check('a', T0)).to.equal('replay'); // age exactly 60 s is still acceptable, so still remembered
    now = T0 + 61_000;
    expect(w.check('a', T0)).to.equal('fresh'); // the timestamp check refuses it as STALE from here on
    expect(w.size).to.equal(0);
  });

  it('keeps a message dated in the future until its own expiry', () => {
    let now = T0;
    const w = new ReplayWindow({ maxAgeMs: 60_000, now: () => now });
    w.record('future', T0 + 5_000);
    now = T0 + 64_000;
    expect(w.check('future', T0 + 5_000)).to.equal('replay');
    now = T0 + 66_000;
    expect(w.check('future', T0 + 5_000)).to.equal('fresh');
    expect(w.size).to.equal(0);
  });

  it('never holds more than maxEntries ids and refuses, rather than forgets, what it evicted', () => {
    const now = T0;
    const w = new ReplayWindow({ maxAgeMs: 60_000, maxEntries: 100, bucketMs: 1_000, now: () => now });
    // 300 messages spread over the last 30 s: far more than the window may hold.
    for (let i = 0; i < 300; i++) w.record(`m${i}`, T0 - 30_000 + i * 100);
    expect(w.size).to.be.at.most(100);
    expect(w.check('m299', T0 - 30_000 + 299 * 100)).to.equal('replay'); // newest kept
    // The oldest ids are gone, but a copy of one is refused as beyond the horizon, not let through.
    expect(w.check('m0', T0 - 30_000)).to.equal('beyond-horizon');
    expect(w.check('brand-new', T0)).to.equal('fresh');
  });

  it('a verifier under overload answers copies of evicted messages with STALE, never accepts them', () => {
    const alice = createIdentity();
    const now = T0;
    const verify = createVerifier({ now: () => now, replay: new ReplayWindow({ maxEntries: 10, now: () => now }) });
    const envs = Array.from({ length: 30 }, (_, i) => signEnvelope(makeEnvelope({
      performative: 'INFORM', sender: 'specialist-a', receiver: 'Registry', conversation_id: 'reg-a-1',
      content: { type: 'HEARTBEAT', jid: 'specialist-a@localhost' }, timestamp: new Date(T0 - 30_000 + i * 1_000).toISOString(),
    }), alice));
    for (const env of envs) expect(verify(env).ok).to.equal(true);
    const results = envs.map((env) => verify(env));
    expect(results.every((r) => !r.ok)).to.equal(true);
    expect(new Set(results.map((r) => (r.ok ? 'ok' : r.code)))).to.deep.equal(new Set(['STALE', 'REPLAY']));
    expect(verify.replay.size).to.be.at.most(10);
  });

  it('rejects a replay window shorter than the STALE limit', () => {
    expect(() => createVerifier({ replay: new ReplayWindow({ maxAgeMs: 10_000 }) })).to.throw(RangeError);
  });

  it('stores fixed-size ids whatever the length of reply_with, distinct per sender', () => {
    const did = createIdentity().did;
    expect(ReplayWindow.keyOf(did, 'x'.repeat(200))).to.have.length(22);
    expect(ReplayWindow.keyOf(did, 'msg-1')).not.to.equal(ReplayWindow.keyOf(createIdentity().did, 'msg-1'));
  });

  it('derives the ids a ledger written before stop 33 holds (SHA-256 of did, newline, reply_with; 16 bytes base64url)', () => {
    const did = createIdentity().did;
    for (const replyWith of ['msg-1', `msg-${crypto.randomUUID()}`, 'zażółć ✓ 😀', 'x'.repeat(300)]) {
      const before = createHash('sha256').update(did).update('\n').update(replyWith).digest().toString('base64url', 0, 16);
      expect(ReplayWindow.keyOf(did, replyWith)).to.equal(before);
    }
  });

  it('holds its default bound of 200,000 ids in under 32 MB of heap', function () {
    this.timeout(30_000); // 200k SHA-256 + UUIDs: ≈ 1 s, more on a loaded machine
    // A real GC before each reading, so garbage from hashing does not count (works without --expose-gc).
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    gc();
    const before = process.memoryUsage().heapUsed;
    const w = new ReplayWindow({ now: () => T0 });
    const did = createIdentity().did;
    for (let i = 0; i < w.maxEntries + 500; i++) w.record(ReplayWindow.keyOf(did, `msg-${crypto.randomUUID()}`), T0 - (i % 60_000));
    gc();
    const mb = (process.memoryUsage().heapUsed - before) / 1e6;
    expect(w.size).to.be.at.most(w.maxEntries).and.above(w.maxEntries - 10_000);
    expect(mb).to.be.below(32);
  });
});
