import { expect } from 'chai';
import { makeEnvelope, newConversationId, replyTo, type Envelope } from '../../shared/acl/index.js';
import { validateEnvelope } from '../../shared/contracts/index.js';
import {
  canonical, createIdentity, createVerifier, nobleEd25519, nodeEd25519, ReplayWindow, signEnvelope,
  signingBytes, verifyEnvelope, type Ed25519Impl, type VerifyResult,
} from '../../shared/identity/index.js';
import { benchIdentity } from '../../shared/identity/bench.js';

const T0 = Date.parse('2025-11-07T19:55:00.000Z');
const IMPLS: Ed25519Impl[] = [nodeEd25519, nobleEd25519];

function request(at = T0): Envelope {
  return makeEnvelope({
    performative: 'REQUEST', sender: 'Coordinator', receiver: 'specialist-math', conversation_id: newConversationId(),
    timestamp: new Date(at).toISOString(),
    content: { type: 'ASK_EXPERT', args: { question: 'Ile to 2+2? ünïcødé €' }, context_ref: { session_id: 'sess-abc123' } },
  });
}

/** What the wire does: JSON text out, parsed object in. */
const wire = (env: Envelope): unknown => JSON.parse(JSON.stringify(env));
const failure = (r: VerifyResult) => (r.ok ? 'ok' : `${r.code} ${r.agora}`);

describe('identity [sign] Agora §2 signatures on FIPA envelopes', () => {
  const alice = createIdentity();
  const mallory = createIdentity();
  const at = { now: () => T0 + 1_000 };

  it('sets sender_did and an 86-character base64url signature and still validates against contracts/envelope.json', () => {
    const env = request();
    const signed = signEnvelope(env, alice);
    expect(signed.sender_did).to.equal(alice.did);
    expect(signed.signature).to.match(/^[A-Za-z0-9_-]{86}$/);
    expect(env).not.to.have.property('signature'); // input untouched
    expect(validateEnvelope(signed)).to.include({ ok: true });
  });

  it('signs the JCS form with signature "" (Agora §2 step 2)', () => {
    const signed = signEnvelope(request(), alice);
    const expected = canonical({ ...signed, signature: '' });
    expect(signingBytes(signed).toString('utf8')).to.equal(expected);
    expect(expected).to.match(/^\{"content":/); // keys sorted
    const sig = Buffer.from(signed.signature as string, 'base64url');
    expect(nodeEd25519.verify(sig, Buffer.from(expected), alice.publicKey)).to.equal(true);
  });

  for (const signer of IMPLS) {
    for (const verifier of IMPLS) {
      it(`signed with ${signer.name}, verifies with ${verifier.name} after a JSON round trip (request and reply)`, () => {
        const req = signEnvelope(request(), alice, signer);
        const reply = signEnvelope(replyTo(req, { performative: 'AGREE', content: { status: 'accepted' }, timestamp: req.timestamp }), alice, signer);
        for (const env of [req, reply]) expect(verifyEnvelope(wire(env), { ...at, impl: verifier })).to.deep.equal({ ok: true, did: alice.did });
      });
    }
  }

  it('Ed25519 is deterministic: both implementations produce the same signature for the same envelope', () => {
    const env = request();
    expect(signEnvelope(env, alice, nobleEd25519).signature).to.equal(signEnvelope(env, alice, nodeEd25519).signature);
  });

  for (const impl of IMPLS) {
    it(`${impl.name} rejects a tampered body, a swapped key, another DID and a re-addressed envelope with BAD_SIGNATURE`, () => {
      const signed = signEnvelope(request(), alice);
      const tampered = wire(signed) as Envelope;
      (tampered.content.args as { question: string }).question = 'Ile to 2+3?';
      const forged = { ...signEnvelope(request(), mallory), sender_did: alice.did };
      const otherDid = { ...signed, sender_did: mallory.did };
      const readdressed = { ...signed, receiver: 'specialist-evil' };
      const extraField = { ...signed, in_reply_to: 'msg-x' };
      for (const env of [tampered, forged, otherDid, readdressed, extraField]) {
        expect(failure(verifyEnvelope(env, { ...at, impl }))).to.equal('BAD_SIGNATURE 401');
      }
    });
  }

  it('rejects a valid signature from a DID other than the pinned one with DID_MISMATCH', () => {
    const signed = signEnvelope(request(), mallory);
    expect(failure(verifyEnvelope(signed, { ...at, expectedDid: alice.did }))).to.equal('DID_MISMATCH 401');
    expect(verifyEnvelope(signed, { ...at, expectedDid: mallory.did }).ok).to.equal(true);
  });

  it('rejects > 60 s old with STALE and > 5 s ahead with FUTURE, both bounds configurable', () => {
    const signed = signEnvelope(request(), alice);
    expect(verifyEnvelope(signed, { now: () => T0 + 60_000 }).ok).to.equal(true);
    expect(failure(verifyEnvelope(signed, { now: () => T0 + 60_001 }))).to.equal('STALE 401');
    expect(verifyEnvelope(signed, { now: () => T0 - 5_000 }).ok).to.equal(true);
    expect(failure(verifyEnvelope(signed, { now: () => T0 - 5_001 }))).to.equal('FUTURE 401');
    expect(verifyEnvelope(signed, { now: () => T0 - 60_000, maxFutureMs: 60_000 }).ok).to.equal(true);
    expect(failure(verifyEnvelope(signed, { now: () => T0 + 10_000, maxAgeMs: 5_000 }))).to.equal('STALE 401');
  });

  it('accepts an envelope once and rejects a copy inside the 60 s window with REPLAY', () => {
    let now = T0;
    const verify = createVerifier({ now: () => now });
    const signed = signEnvelope(request(), alice);
    expect(verify(wire(signed)).ok).to.equal(true);
    now += 30_000;
    expect(failure(verify(wire(signed), alice.did))).to.equal('REPLAY 401');
    // Same reply_with from another DID is a different message, not a replay.
    expect(verify(signEnvelope({ ...signed, timestamp: new Date(now).toISOString() }, mallory)).ok).to.equal(true);
    now += 31_000;
    expect(failure(verify(wire(signed)))).to.equal('STALE 401'); // forgotten by the window, refused by the clock
  });

  it('does not record forged envelopes in the replay window', () => {
    const replay = new ReplayWindow({ now: at.now });
    const signed = signEnvelope(request(), alice);
    const forged = { ...signed, content: { ...signed.content, type: 'ASK_EXPERT', args: { question: 'x' } } };
    expect(failure(verifyEnvelope(forged, { ...at, replay }))).to.equal('BAD_SIGNATURE 401');
    expect(replay.size).to.equal(0);
    expect(verifyEnvelope(signed, { ...at, replay }).ok).to.equal(true);
  });

  it('answers unsigned, malformed and unknown-DID envelopes with their codes instead of throwing', () => {
    const signed = signEnvelope(request(), alice);
    const { signature: _s, sender_did: _d, ...unsigned } = signed;
    const cases: [unknown, string][] = [
      [unsigned, 'MISSING_SIGNATURE 401'],
      [{ ...signed, signature: '' }, 'MISSING_SIGNATURE 401'],
      [null, 'MALFORMED 400'],
      [[signed], 'MALFORMED 400'],
      [{ ...signed, signature: 42 }, 'MALFORMED 400'],
      [{ ...signed, signature: `${signed.signature}==` }, 'MALFORMED 400'],
      [{ ...signed, signature: (signed.signature as string).slice(0, 85) + 'B' }, 'MALFORMED 400'], // non-canonical base64url
      [{ ...signed, timestamp: 'yesterday' }, 'MALFORMED 400'],
      [{ ...signed, timestamp: '2025-11-07T19:55:00+01:00' }, 'MALFORMED 400'],
      [{ ...signed, reply_with: undefined }, 'MALFORMED 400'],
      [{ ...signed, sender_did: 'did:web:example.com' }, 'UNKNOWN_DID 401'],
      [{ ...signed, sender_did: alice.did.replace('z6Mk', 'z6LS') }, 'UNKNOWN_DID 401'],
    ];
    for (const [env, expected] of cases) expect(failure(verifyEnvelope(env, at)), JSON.stringify(env)?.slice(0, 80)).to.equal(expected);
  });

  it('accepts the expected DID as a plain string argument', () => {
    const signed = signEnvelope(request(Date.now()), alice);
    expect(verifyEnvelope(signed, alice.did).ok).to.equal(true);
    expect(failure(verifyEnvelope(signed, mallory.did))).to.equal('DID_MISMATCH 401');
  });
});

describe('identity [bench] micro benchmark', () => {
  it('measures positive sign and verify rates for both implementations on a real envelope', () => {
    const r = benchIdentity({ durationMs: 20 });
    for (const rates of [r.node, r.noble]) {
      expect(rates.signsPerSec).to.be.above(0);
      expect(rates.verifiesPerSec).to.be.above(0);
    }
    expect(r.envelopeVerifiesPerSec).to.be.above(0);
    expect(r.messageBytes).to.be.above(300);
  });
});
