// The runtime's signing layer (shared/runtime/signing.ts, shared/identity/trust.ts,
// agent-identity.ts, agents/registry/bindings.ts): sign on send, the signature stage's verdicts,
// whom an agent trusts, provisioning and rotation of keys, the DF's binding decisions.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { decideBinding } from '../../agents/registry/bindings.js';
import { type Envelope, makeEnvelope } from '../../shared/acl/index.js';
import { ensureAgentIdentity, PinnedKeyConflict, rotateAgentIdentity } from '../../shared/identity/agent-identity.js';
import {
  createIdentity, loadIdentity, pinnedDids, pinnedDidsFile, verifyEnvelope, TrustStore,
} from '../../shared/identity/index.js';
import { identify, Signing, signingEnabled } from '../../shared/runtime/index.js';
import { askExpert, JID } from '../support/bad-inputs.js';
import { DOMAIN, testAgent } from '../support/fake-transport.js';
import { signAs, testIdentity, testTrust } from '../support/signing.js';

const tmpHome = () => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-signing-'));
  fs.chmodSync(home, 0o755);
  return home;
};

describe('signing [send] every envelope leaves signed', () => {
  it('signs with the agent key and stamps the timestamp at send time (Agora §2)', () => {
    const { agent, transport } = testAgent('coordinator');
    const env = { ...askExpert(), timestamp: '2020-01-01T00:00:00.000Z' };
    const before = Date.now();
    agent.send(env);
    const [out] = transport.envelopes();
    expect(out?.sender_did).to.equal(testIdentity(JID.coordinator).did);
    expect(Date.parse(out?.timestamp ?? '')).to.be.at.least(before - 1);
    expect(verifyEnvelope(out, testIdentity(JID.coordinator).did)).to.deep.equal({ ok: true, did: out?.sender_did });
  });

  it('holds envelopes while the transport is down and signs them when it is back, in order', async () => {
    const { agent, transport } = testAgent('coordinator');
    await agent.start();
    transport.setStatus('connecting');
    const old = { ...askExpert(), timestamp: new Date(Date.now() - 120_000).toISOString() };
    agent.send(old);
    agent.send(askExpert({ question: 'second' }));
    expect(transport.sent).to.have.length(0);
    transport.setStatus('online');
    const sent = transport.envelopes();
    expect(sent.map((e) => e.reply_with)).to.deep.equal([old.reply_with, sent[1]?.reply_with]);
    expect(sent).to.have.length(2);
    for (const e of sent) expect(verifyEnvelope(e, testIdentity(JID.coordinator).did).ok, 'fresh after the outage').to.equal(true);
  });

  it('PARLEY_SIGNING=0 turns signing off; anything else leaves it on', () => {
    expect(signingEnabled({ PARLEY_SIGNING: '0' })).to.equal(false);
    expect(signingEnabled({})).to.equal(true);
    expect(signingEnabled({ PARLEY_SIGNING: '1' })).to.equal(true);
  });
});

describe('signing [stage] verdicts of the signature stage', () => {
  const coordinator = identify(JID.coordinator, DOMAIN);
  const specialist = identify(`specialist-new@${DOMAIN}`, DOMAIN);
  const stage = () => new Signing({ identity: testIdentity(JID.echo), trust: testTrust(DOMAIN), domain: DOMAIN });

  it('accepts an envelope signed with the key bound to the from-JID', () => {
    expect(stage().check(signAs(JID.coordinator, askExpert()), coordinator, 'ASK_EXPERT')).to.deep.include({ ok: true, firstUse: false });
  });

  it('rejects a replay quietly (recorded, never answered)', () => {
    const s = stage();
    const env = signAs(JID.coordinator, askExpert());
    s.check(env, coordinator, 'ASK_EXPERT');
    expect(s.check(env, coordinator, 'ASK_EXPERT')).to.deep.include({ ok: false, code: 'REPLAYED', quiet: true });
  });

  it('accepts a self-signed envelope from an unbound JID only for the first-use kinds (the DF: REGISTER)', () => {
    const trust = { didOf: () => undefined, learn: () => true };
    const s = new Signing({ identity: testIdentity(JID.echo), trust, domain: DOMAIN, firstUse: ['REGISTER'] });
    const own = createIdentity();
    const reg = { ...askExpert(), sender: 'specialist-new' } as Envelope;
    const signed = (e: Envelope) => signAsIdentity(e, own);
    expect(s.check(signed(reg), specialist, 'REGISTER')).to.deep.include({ ok: true, firstUse: true });
    expect(s.check(signed({ ...reg, reply_with: 'msg-2' }), specialist, 'HEARTBEAT')).to.deep.include({ ok: false, code: 'UNKNOWN_DID' });
    expect(s.check(reg, specialist, 'REGISTER')).to.deep.include({ ok: false, code: 'MISSING_SIGNATURE' });
  });

  it('learns candidates\' bindings from the Registry only, and only for registering roles', () => {
    const trust = testTrust(DOMAIN);
    const s = new Signing({ identity: testIdentity(JID.coordinator), trust, domain: DOMAIN });
    const did = createIdentity().did;
    const inform = (dids: Record<string, string>) => makeEnvelope({
      performative: 'INFORM', sender: 'Registry', receiver: 'Coordinator', conversation_id: 'sess-1', in_reply_to: 'msg-q', content: { candidates: Object.keys(dids), dids },
    });
    s.learnFrom(inform({ [`specialist-z@${DOMAIN}`]: did, [`kb@${DOMAIN}`]: did }), identify(`registry@${DOMAIN}`, DOMAIN));
    s.learnFrom(inform({ [`specialist-y@${DOMAIN}`]: did }), identify(JID.echo, DOMAIN));
    expect([...trust.learned.keys()]).to.deep.equal([`specialist-z@${DOMAIN}`]);
  });
});

function signAsIdentity(env: Envelope, id: ReturnType<typeof createIdentity>): Envelope {
  return new Signing({ identity: id, trust: testTrust(DOMAIN), domain: DOMAIN }).sign(env);
}

describe('signing [trust] pinned file and learned bindings', () => {
  let home: string;
  beforeEach(() => { home = tmpHome(); });
  afterEach(() => fs.rmSync(home, { recursive: true, force: true }));

  it('re-reads the pinned file for an unknown JID, at most once per interval', () => {
    let now = 1_000;
    const trust = new TrustStore(pinnedDidsFile(home), { reloadEveryMs: 250, now: () => now });
    const did = createIdentity().did;
    expect(trust.didOf('specialist-a@localhost')).to.equal(undefined);
    pinnedDids(home).pin('specialist-a@localhost', did);
    now += 100;
    expect(trust.didOf('specialist-a@localhost'), 'rate-limited').to.equal(undefined);
    now += 200;
    expect(trust.didOf('specialist-a@localhost/agent-1')).to.deep.equal({ did, source: 'pinned' });
  });

  it('lets the pinned file win over a learned binding; learns only valid did:keys', () => {
    const pinned = createIdentity().did;
    pinnedDids(home).pin('specialist-a@localhost', pinned);
    const trust = new TrustStore(pinnedDidsFile(home));
    expect(trust.learn('specialist-a@localhost', createIdentity().did)).to.equal(false);
    expect(trust.learn('specialist-b@localhost', 'did:web:example.com')).to.equal(false);
    const learned = createIdentity().did;
    expect(trust.learn('Specialist-B@localhost', learned)).to.equal(true);
    expect(trust.didOf('specialist-a@localhost')?.did).to.equal(pinned);
    expect(trust.didOf('specialist-b@localhost')).to.deep.equal({ did: learned, source: 'learned' });
  });

  it('learns the same binding again without a new check, and still checks any other DID for that JID', () => {
    const trust = new TrustStore(pinnedDidsFile(home));
    const learned = createIdentity().did;
    expect(trust.learn('specialist-b@localhost', learned)).to.equal(true);
    expect(trust.learn('specialist-b@localhost', learned)).to.equal(true);
    // Not the cached DID: checked in full, refused, and the learned binding stays.
    expect(trust.learn('specialist-b@localhost', `${learned.slice(0, -1)}0`)).to.equal(false);
    expect(trust.learn('specialist-b@localhost', 'did:web:example.com')).to.equal(false);
    expect(trust.didOf('specialist-b@localhost')).to.deep.equal({ did: learned, source: 'learned' });
    // A pin made after learning still wins, and the same DID is not learned over it.
    const pinned = createIdentity().did;
    pinnedDids(home).pin('specialist-b@localhost', pinned);
    const fresh = new TrustStore(pinnedDidsFile(home));
    expect(fresh.learn('specialist-b@localhost', learned)).to.equal(false);
    expect(fresh.didOf('specialist-b@localhost')?.did).to.equal(pinned);
  });

  it('attack: an enrolment naming a core agent\'s JID never replaces its pinned key, and the roster is not asked for it', () => {
    const coordinator = createIdentity().did;
    const specialist = createIdentity().did;
    pinnedDids(home).pin('coordinator@localhost', coordinator);
    pinnedDids(home).pin('specialist-a@localhost', specialist);
    const enrolledAs = createIdentity().did;
    const asked: string[] = [];
    const trust = new TrustStore(pinnedDidsFile(home), { enrolled: (jid) => (asked.push(jid), enrolledAs) });
    expect(trust.didOf('Coordinator@localhost/parley')).to.deep.equal({ did: coordinator, source: 'pinned' });
    expect(asked, 'no roster lookup for a pinned core agent').to.deep.equal([]);
    // A specialist's pin is only provisioning's: the operator's enrolment still decides.
    expect(trust.didOf('specialist-a@localhost')).to.deep.equal({ did: enrolledAs, source: 'enrolled' });
    expect(asked).to.deep.equal(['specialist-a@localhost']);
  });
});

describe('signing [provisioning] keys and rotation', () => {
  let home: string;
  beforeEach(() => { home = tmpHome(); });
  afterEach(() => fs.rmSync(home, { recursive: true, force: true }));

  it('creates a 0600 key and pins its DID for the JID, idempotently', () => {
    const a = ensureAgentIdentity(home, 'registry', 'registry@localhost');
    expect(a.did).to.match(/^did:key:z6Mk/);
    expect(fs.statSync(path.join(home, 'secrets', 'keys', 'registry.json')).mode & 0o777).to.equal(0o600);
    expect(fs.statSync(pinnedDidsFile(home)).mode & 0o777).to.equal(0o600);
    expect(ensureAgentIdentity(home, 'registry', 'registry@localhost').did).to.equal(a.did);
    expect(pinnedDids(home).get('registry@localhost')).to.equal(a.did);
  });

  it('refuses to start with a new key for a pinned JID until the operator rotates it', () => {
    const old = ensureAgentIdentity(home, 'specialist-m', 'specialist-m@localhost');
    fs.rmSync(path.join(home, 'secrets', 'keys', 'specialist-m.json'));
    expect(() => ensureAgentIdentity(home, 'specialist-m', 'specialist-m@localhost')).to.throw(PinnedKeyConflict, /keys -- rotate specialist-m/);
    const { previous, identity } = rotateAgentIdentity(home, 'specialist-m', 'specialist-m@localhost');
    expect(previous).to.not.equal(undefined);
    expect(identity.did).to.not.equal(old.did);
    expect(pinnedDids(home).get('specialist-m@localhost')).to.equal(identity.did);
    expect(loadIdentity(home, 'specialist-m')?.did).to.equal(identity.did);
    expect(ensureAgentIdentity(home, 'specialist-m', 'specialist-m@localhost').did).to.equal(identity.did);
  });

  it('keeps every binding when several processes pin themselves at once (lock file)', async () => {
    const script = `import { ensureAgentIdentity } from ${JSON.stringify(new URL('../../shared/identity/agent-identity.js', import.meta.url).href)};
      const [home, i] = process.argv.slice(1); for (let k = 0; k < 5; k++) ensureAgentIdentity(home, 'specialist-' + i + '-' + k, 'specialist-' + i + '-' + k + '@localhost');`;
    const runs = Array.from({ length: 6 }, (_, i) => new Promise<number | null>((resolve) => {
      execFile(process.execPath, ['--input-type=module', '-e', script, home, String(i)], (err) => resolve(err ? 1 : 0));
    }));
    expect(await Promise.all(runs)).to.deep.equal([0, 0, 0, 0, 0, 0]);
    expect(Object.keys(pinnedDids(home).all())).to.have.length(30);
    expect(fs.existsSync(`${pinnedDidsFile(home)}.lock`)).to.equal(false);
  });
});

describe('Registry [bindings] JID → DID, never on first use', () => {
  const [A, B] = [createIdentity().did, createIdentity().did];

  it('accepts only the enrolled DID, else the pinned one; a JID with neither is not enrolled', () => {
    expect(decideBinding('s@x/r', A, A, undefined)).to.deep.equal({ ok: true, jid: 's@x', did: A, source: 'enrolled' });
    expect(decideBinding('s@x', B, A, undefined)).to.deep.equal({ ok: false, jid: 's@x', bound: A });
    expect(decideBinding('s@x', B, A, B)).to.deep.equal({ ok: false, jid: 's@x', bound: A }); // the enrolment decides
    expect(decideBinding('coordinator@x', A, undefined, A)).to.deep.include({ ok: true, source: 'pinned' });
    expect(decideBinding('s@x', A, undefined, undefined)).to.deep.equal({ ok: false, jid: 's@x' });
  });
});
