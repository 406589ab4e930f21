// REQUEST REGISTER_MANY (agents/registry/register-many.ts) with the Registry's real entry check
// (contract, Signing.check against the enrolled DID, replay) and an enrolment stand-in: every
// attack refuses the whole batch and registers nothing.
import { expect } from 'chai';
import { type Envelope, makeEnvelope } from '../../shared/acl/index.js';
import { validateEnvelope, type AgentProfile } from '../../shared/contracts/index.js';
import { type Identity, signEnvelope } from '../../shared/identity/index.js';
import { entryChecker, registerMany, type RegisterManyOps } from '../../agents/registry/register-many.js';
import { identify, type RoleBook, useRoleBook, Signing, type Note } from '../../shared/runtime/index.js';
import { testIdentity } from '../support/signing.js';

const DOMAIN = 'localhost';
const A1 = 'host-0001@agents.localhost';
const A2 = 'host-0002@agents.localhost';
const STRANGER = 'host-0003@agents.localhost'; // served by the host's component, never enrolled
const CAL = 'cal-0001@calendars.localhost'; // enrolled, but a calendar of another component
const enrolled = new Map<string, { role: 'specialist' | 'calendar' }>([[A1, { role: 'specialist' }], [A2, { role: 'specialist' }], [CAL, { role: 'calendar' }]]);
const book: RoleBook = { roleOf: (jid) => enrolled.get(jid)?.role };
const didOf = (jid: string) => (enrolled.has(jid) ? testIdentity(jid).did : undefined);

const profileOf = (jid: string): AgentProfile => ({ jid, name: jid, version: '1.0.0', capabilities: ['ASK_EXPERT'], did: testIdentity(jid).did });

/** jid's REGISTER, signed by `key` (its own unless a test forges it). */
function entry(jid: string, o: { key?: Identity; profile?: AgentProfile; receiver?: string } = {}): Envelope {
  const env = makeEnvelope({ performative: 'REQUEST', sender: jid, receiver: o.receiver ?? 'Registry', conversation_id: `reg-${jid}-1`, content: { type: 'REGISTER', profile: o.profile ?? profileOf(jid) } });
  return signEnvelope(env, o.key ?? testIdentity(jid));
}

function unsigned(e: Envelope): Envelope {
  const { signature: _s, sender_did: _d, ...rest } = e as Envelope & { signature?: string; sender_did?: string };
  return { ...rest, content: { type: 'REGISTER', profile: { ...profileOf(e.sender), did: undefined } } } as unknown as Envelope;
}

function setupRegistry() {
  const signing = new Signing({
    identity: testIdentity('registry@localhost'), domain: DOMAIN,
    trust: { didOf: (jid) => { const did = didOf(jid); return did ? { did, source: 'enrolled' as const } : undefined; }, learn: () => false },
  });
  const registered: string[] = [];
  const ops: RegisterManyOps = {
    checkEntry: entryChecker({ self: 'Registry', domain: DOMAIN, signing }),
    // As main.ts: the operator's enrolment decides (bindings.ts decideBinding).
    bind: ({ jid, did }) => {
      const bound = didOf(jid);
      return bound === undefined ? { ok: false, jid, reason: 'not enrolled' } as never : bound === did ? { ok: true, jid, did, source: 'enrolled' } as never : { ok: false, jid, bound } as never;
    },
    register: ({ profile }) => {
      registered.push(profile.jid);
      return { jid: profile.jid, lease_ms: 15000 };
    },
  };
  return { ops, registered };
}

async function batch(ops: RegisterManyOps, fromJid: string, entries: Envelope[]) {
  const request = makeEnvelope({ performative: 'REQUEST', sender: fromJid, receiver: 'Registry', conversation_id: 'regmany-1', content: { type: 'REGISTER_MANY', entries } as never });
  expect(validateEnvelope(request), 'the batch itself is well-formed').to.include({ ok: true });
  const steps: Note[] = [];
  return registerMany(ops, { request, from: identify(fromJid, DOMAIN), kind: 'REGISTER_MANY', now: Date.now() }, steps);
}

describe('Registry [REGISTER_MANY]', () => {
  let previous: RoleBook | undefined;
  before(() => {
    previous = useRoleBook(book);
  });
  after(() => {
    useRoleBook(previous);
  });

  it('registers every entry, each bound to its own DID, and answers each REGISTER by its reply_with', async () => {
    const { ops, registered } = setupRegistry();
    const e1 = entry(A1);
    const e2 = entry(A2);
    const a = await batch(ops, A1, [e1, e2]);
    expect(a.performative).to.equal('INFORM');
    expect(a.content).to.deep.equal({ type: 'REGISTERED_MANY', registered: [{ in_reply_to: e1.reply_with, jid: A1, lease_ms: 15000 }, { in_reply_to: e2.reply_with, jid: A2, lease_ms: 15000 }] });
    expect(registered).to.deep.equal([A1, A2]);
  });

  const attacks: Array<[string, () => Envelope[], string]> = [
    ['an agent of another component (an enrolled calendar, signed by its own key)', () => [entry(A1), entry(CAL)], 'SENDER_MISMATCH'],
    ['an agent of its domain nobody enrolled (signed by its own key)', () => [entry(A1), entry(STRANGER)], 'UNKNOWN_DID'],
    ['an entry signed by another agent of the host (forged: A1 signs for A2)', () => [entry(A1), entry(A2, { key: testIdentity(A1), profile: { ...profileOf(A2), did: testIdentity(A1).did } })], 'DID_MISMATCH'],
    ['an entry altered after its agent signed it', () => [entry(A1), { ...entry(A2), content: { type: 'REGISTER', profile: { ...profileOf(A2), capabilities: ['CFP'] } } } as Envelope], 'BAD_SIGNATURE'],
    ["an agent's signed REGISTER naming another agent's profile", () => [entry(A1), entry(A2, { profile: { ...profileOf(A1) } })], 'SENDER_MISMATCH'],
    ['a REGISTER meant for another DF', () => [entry(A1), entry(A2, { receiver: 'Coordinator' })], 'UNEXPECTED_MESSAGE'],
    ['an unsigned entry', () => [entry(A1), unsigned(entry(A2))], 'MISSING_SIGNATURE'],
  ];
  for (const [what, entries, code] of attacks) {
    it(`refuses a batch with ${what}, and registers none of it`, async () => {
      const { ops, registered } = setupRegistry();
      const a = await batch(ops, A1, entries());
      expect(a.performative, JSON.stringify(a.content)).to.be.oneOf(['REFUSE', 'NOT-UNDERSTOOD', 'FAILURE']);
      if (code) expect((a.content as { reason?: string }).reason).to.equal(code);
      expect((a.content as { detail?: string }).detail).to.match(/^entry 1: .*nothing registered/);
      expect(registered).to.deep.equal([]);
    });
  }

  it('refuses an entry the Registry already accepted (replayed in a later batch)', async () => {
    const { ops, registered } = setupRegistry();
    const e1 = entry(A1);
    expect((await batch(ops, A1, [e1])).performative).to.equal('INFORM');
    const again = await batch(ops, A1, [entry(A2), e1]);
    expect(again.performative).to.equal('REFUSE');
    expect((again.content as { reason?: string }).reason).to.equal('REPLAYED');
    expect(registered).to.deep.equal([A1]);
  });

  it('refuses the same agent twice in one batch', async () => {
    const { ops, registered } = setupRegistry();
    const a = await batch(ops, A1, [entry(A1), entry(A1)]);
    expect(a.performative).to.not.equal('INFORM');
    expect(registered).to.deep.equal([]);
  });
});
