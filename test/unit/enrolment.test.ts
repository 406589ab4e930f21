import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { makeEnvelope } from '../../shared/acl/index.js';
import {
  EnrolmentAuthority, enrolmentsFile, signCredential, verifyCredential, createIdentity, Roster,
} from '../../shared/identity/index.js';
import { classify, identify } from '../../shared/runtime/index.js';
import { Assignments } from '../../agents/coordinator/assignments.js';
import { Directory } from '../../agents/registry/directory.js';
import { MemoryDirectoryStore } from '../../shared/store/index.js';
import { DOMAIN, inbound } from '../support/fake-transport.js';
import { withRoleBook } from '../support/signing.js';

const JID = 'specialist-remote@localhost';

describe('enrolment [credential] operator-signed binding of JID, DID, role, expiry', () => {
  const operator = createIdentity();
  const agent = createIdentity();
  const claims = { jid: `${JID}/res`, did: agent.did, role: 'specialist' as const, iat: 1_000, exp: 61_000 };

  it('verifies with the operator DID while valid, bare JID inside', () => {
    const c = signCredential(claims, operator);
    expect(c).to.include({ jid: JID, iss: operator.did, v: 1 });
    expect(verifyCredential(c, operator.did, 2_000)).to.deep.equal({ ok: true, credential: c });
  });

  it('refuses an altered credential, another issuer, an expired one, and garbage', () => {
    const c = signCredential(claims, operator);
    expect(verifyCredential({ ...c, role: 'calendar' }, operator.did, 2_000)).to.include({ ok: false, reason: 'BAD_SIGNATURE' });
    expect(verifyCredential({ ...c, exp: 9e15 }, operator.did, 2_000)).to.include({ ok: false, reason: 'BAD_SIGNATURE' });
    expect(verifyCredential(signCredential(claims, createIdentity()), operator.did, 2_000)).to.include({ ok: false, reason: 'WRONG_ISSUER' });
    // A forger who claims the operator's DID as issuer still cannot sign for it.
    const forged = { ...signCredential(claims, createIdentity()), iss: operator.did };
    expect(verifyCredential(forged, operator.did, 2_000)).to.include({ ok: false, reason: 'BAD_SIGNATURE' });
    expect(verifyCredential(c, operator.did, 61_000)).to.include({ ok: false, reason: 'EXPIRED' });
    expect(verifyCredential({ v: 1, jid: JID }, operator.did, 2_000)).to.include({ ok: false, reason: 'MALFORMED' });
    expect(verifyCredential(null, operator.did, 2_000)).to.include({ ok: false, reason: 'MALFORMED' });
  });
});

describe('enrolment [authority] tokens, revocation and the roster', () => {
  let home: string;
  let now: number;
  let authority: EnrolmentAuthority;
  beforeEach(() => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-enrol-'));
    now = 1_700_000_000_000;
    authority = new EnrolmentAuthority(home, () => now);
  });
  afterEach(() => fs.rmSync(home, { recursive: true, force: true }));

  it('keeps the record and the operator key owner-only, and tokens only as hashes', () => {
    const { secret } = authority.issueToken(JID, 'specialist');
    const text = fs.readFileSync(enrolmentsFile(home), 'utf8');
    expect(text).not.to.contain(secret);
    expect(fs.statSync(enrolmentsFile(home)).mode & 0o777).to.equal(0o600);
    expect(fs.statSync(path.join(home, 'secrets', 'keys', 'operator.json')).mode & 0o777).to.equal(0o600);
  });

  it('redeems a token once, for the redeeming JID, into a credential bound to the presented DID', () => {
    const did = createIdentity().did;
    const { secret } = authority.issueToken(JID, 'specialist');
    expect(authority.redeem(secret, 'specialist-other@localhost', did)).to.include({ ok: false, reason: 'WRONG_ACCOUNT' });
    const r = authority.redeem(secret, `${JID}/x`, did);
    expect(r.ok).to.equal(true);
    if (!r.ok) return;
    expect(verifyCredential(r.credential, authority.operatorDid() as string, now)).to.include({ ok: true });
    expect(r.credential).to.include({ jid: JID, did, role: 'specialist' });
    expect(authority.redeem(secret, JID, did)).to.include({ ok: false, reason: 'TOKEN_USED' });
    expect(authority.redeem('not-a-token', JID, did)).to.include({ ok: false, reason: 'UNKNOWN_TOKEN' });
  });

  it('refuses an expired token', () => {
    const { secret } = authority.issueToken(JID, 'specialist', 60_000);
    now += 60_000;
    expect(authority.redeem(secret, JID, createIdentity().did)).to.include({ ok: false, reason: 'TOKEN_EXPIRED' });
  });

  it('gives roles from the record: enrolled → role, revoked → none, and a restart does not undo a revocation', () => {
    const did = createIdentity().did;
    authority.enrol(JID, did, 'specialist');
    const roster = new Roster(enrolmentsFile(home), { reloadEveryMs: 0, now: () => now });
    expect(roster.stateOf(JID)).to.deep.include({ state: 'enrolled', role: 'specialist', did });
    expect(withRoleBook(roster, () => identify(`${JID}/r`, DOMAIN).role)).to.equal('specialist');
    expect(authority.revoke(JID)).to.equal(true);
    expect(roster.stateOf(JID).state).to.equal('revoked');
    expect(withRoleBook(roster, () => identify(JID, DOMAIN).role)).to.equal('person');
    expect(authority.ensureEnrolled(JID, did, 'specialist')).to.deep.equal({ revoked: true });
    expect(roster.roleOf(JID)).to.equal(undefined);
    authority.enrol(JID, did, 'specialist'); // the operator enrols it again
    expect(roster.roleOf(JID)).to.equal('specialist');
  });

  it('learns credentials only when the operator signed them, and the record\'s revocation wins', () => {
    const did = createIdentity().did;
    const { secret } = authority.issueToken(JID, 'specialist');
    const r = authority.redeem(secret, JID, did);
    if (!r.ok) throw new Error('redeem failed');
    // Another host: no record, only the operator's DID pinned.
    const remote = new Roster(undefined, { operatorDid: authority.operatorDid() as string, now: () => now });
    expect(remote.learn(signCredential({ jid: JID, did, role: 'specialist', iat: now, exp: now + 1000 }, createIdentity()))).to.equal(false);
    expect(remote.roleOf(JID)).to.equal(undefined);
    expect(remote.learn(r.credential)).to.equal(true);
    expect(remote.didOf(JID)).to.equal(did);
    const local = new Roster(enrolmentsFile(home), { operatorDid: authority.operatorDid() as string, reloadEveryMs: 0, now: () => now });
    authority.revoke(JID);
    local.learn(r.credential);
    expect(local.roleOf(JID)).to.equal(undefined);
  });
});

describe('pipeline [assigned] a specialist delegates only inside its own conversations', () => {
  const delegate = (cid: string) => makeEnvelope({
    performative: 'REQUEST', sender: 'specialist-echo', receiver: 'Coordinator', conversation_id: cid, content: { type: 'DELEGATE_TASK', task: 'x' },
  });
  const ctx = (assigned?: (jid: string, cid: string) => boolean) => ({
    domain: DOMAIN, self: identify(`coordinator@${DOMAIN}`, DOMAIN), readsChat: false, ...(assigned ? { assigned } : {}),
  });

  it('refuses FORBIDDEN_SENDER outside an assigned conversation, and without any check (fail closed)', () => {
    let now = 0;
    const assignments = new Assignments(1000, 10, () => now);
    const ask = makeEnvelope({ performative: 'REQUEST', sender: 'Coordinator', receiver: 'specialist-echo', conversation_id: 'c1', content: { type: 'ASK_EXPERT', args: {} } });
    assignments.observe(ask, `specialist-echo@${DOMAIN}`);
    const ok = classify(inbound(`specialist-echo@${DOMAIN}`, delegate('c1')), ctx((j, c) => assignments.allows(j, c)));
    expect(ok.action).to.equal('deliver');
    const other = classify(inbound(`specialist-echo@${DOMAIN}`, delegate('c2')), ctx((j, c) => assignments.allows(j, c)));
    expect(other).to.deep.include({ action: 'reject', code: 'FORBIDDEN_SENDER' });
    expect(classify(inbound(`specialist-echo@${DOMAIN}`, delegate('c1')), ctx())).to.deep.include({ action: 'reject', code: 'FORBIDDEN_SENDER' });
    now = 1000; // the assignment lapsed
    expect(assignments.allows(`specialist-echo@${DOMAIN}`, 'c1')).to.equal(false);
  });

  it('refuses an un-enrolled account named specialist-* as a person, with the reason', () => {
    const r = withRoleBook(undefined, () => classify(inbound(`specialist-echo@${DOMAIN}`, delegate('c1')), ctx(() => true)));
    expect(r).to.deep.include({ action: 'reject', code: 'FORBIDDEN_SENDER' });
    if (r.action === 'reject') expect(r.detail).to.contain('not an enrolled agent');
  });
});

describe('Registry [directory] lists only agents whose enrolment holds now', () => {
  it('leaves a revoked agent out of candidates and DESCRIBE at once, and the sweep removes it', () => {
    const admitted = new Set(['specialist-a@localhost', 'specialist-b@localhost']);
    const dir = new Directory(new MemoryDirectoryStore(), 60_000, (jid) => admitted.has(jid));
    for (const local of ['specialist-a', 'specialist-b']) {
      dir.register({ jid: `${local}@localhost`, name: local, version: '1.0.0', capabilities: ['ASK_EXPERT'] }, 1000);
    }
    expect(dir.candidates('ASK_EXPERT', undefined, 2000).sort()).to.deep.equal(['specialist-a@localhost', 'specialist-b@localhost']);
    admitted.delete('specialist-b@localhost'); // revoked
    expect(dir.candidates('ASK_EXPERT', undefined, 2001)).to.deep.equal(['specialist-a@localhost']);
    expect(dir.describe(undefined, 2001).map((e) => e.profile.jid)).to.deep.equal(['specialist-a@localhost']);
    expect(dir.sweep(2002)).to.deep.equal({ expired: [], unenrolled: ['specialist-b@localhost'] });
  });
});
