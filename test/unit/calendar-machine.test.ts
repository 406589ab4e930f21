// Calendar [machine]: one OACoP exchange answers exactly once — the handler's outcome, FAILURE
// INTERNAL_ERROR when it throws, FAILURE TIMEOUT when it hangs, nothing for REJECT-PROPOSAL.
import { expect } from 'chai';
import { createActor, fromPromise, SimulatedClock } from 'xstate';
import { calendarExchangeMachine, type HandleInput, type Outcome } from '../../shared/oacop/index.js';
import { type Envelope, makeEnvelope } from '../../shared/acl/index.js';
import { validateEnvelope } from '../../shared/contracts/index.js';
import { identify } from '../../shared/runtime/index.js';

const request = makeEnvelope({
  performative: 'CFP', sender: 'Coordinator', receiver: 'calendar-bob', conversation_id: 'sess-1', ontology: 'OACoP',
  content: { type: 'ProposeCollaboration', threadId: 'urn:uuid:m1', revision: 1, object: { type: 'Event' } },
});

function run(handle: (input: HandleInput) => Promise<Outcome | null>) {
  const clock = new SimulatedClock();
  const sent: Envelope[] = [];
  const actor = createActor(calendarExchangeMachine.provide({ actors: { handle: fromPromise(({ input }) => handle(input)) } }), {
    clock,
    input: { request, from: identify('coordinator@localhost', 'localhost'), self: 'calendar-bob', kind: 'ProposeCollaboration', handleMs: 5000 },
  });
  const notes: string[] = [];
  actor.on('send', (e) => sent.push(e.envelope));
  actor.on('note', (e) => notes.push(e.decision));
  actor.start();
  return { actor, clock, sent, notes };
}
// Not a sleep: the fake handlers resolve in microtasks, which all run before setImmediate.
const settle = () => new Promise((r) => setImmediate(r));

describe('Calendar [machine] one answer per OACoP exchange', () => {
  it('sends the handler\'s outcome in_reply_to the request, keeping the OACoP ontology, and ends', async () => {
    const { actor, sent } = run(async () => ({ performative: 'REFUSE', content: { type: 'ProposalResponse', threadId: 'urn:uuid:m1', respondingToRevision: 1, status: 'DECLINED', availableSlots: [] } }));
    await settle();
    expect(sent).to.have.length(1);
    expect(sent[0]).to.deep.include({ performative: 'REFUSE', in_reply_to: request.reply_with, ontology: 'OACoP', protocol: 'fipa-contract-net' });
    expect(validateEnvelope(sent[0]).ok).to.equal(true);
    expect(actor.getSnapshot().status).to.equal('done');
  });

  it('answers FAILURE INTERNAL_ERROR when the handler throws', async () => {
    const { sent } = run(async () => {
      throw new Error('disk full');
    });
    await settle();
    expect(sent.map((e) => [e.performative, (e.content as { reason: string }).reason])).to.deep.equal([['FAILURE', 'INTERNAL_ERROR']]);
  });

  it('answers FAILURE TIMEOUT when the handler hangs past handleMs, and nothing else later', async () => {
    const { clock, sent, actor } = run(() => new Promise(() => undefined));
    clock.increment(4999);
    expect(sent).to.have.length(0);
    clock.increment(1);
    expect(sent.map((e) => (e.content as { reason: string }).reason)).to.deep.equal(['TIMEOUT']);
    expect(actor.getSnapshot().status).to.equal('done');
  });

  it('sends nothing when no answer is due (REJECT-PROPOSAL)', async () => {
    const { sent, actor } = run(async () => null);
    await settle();
    expect(sent).to.deep.equal([]);
    expect(actor.getSnapshot().status).to.equal('done');
  });

  it('records the outcome\'s note, else the kind; a REJECT-PROPOSAL records that no answer was due', async () => {
    const content = { type: 'ProposalResponse', threadId: 'urn:uuid:m1', respondingToRevision: 1, status: 'DECLINED', availableSlots: [] };
    const noted = run(async () => ({ performative: 'REFUSE', content, note: { decision: 'propose: DECLINED' } }));
    const bare = run(async () => ({ performative: 'REFUSE', content }));
    const none = run(async () => null);
    await settle();
    expect([noted.notes, bare.notes, none.notes]).to.deep.equal([['propose: DECLINED'], ['ProposeCollaboration'], ['ProposeCollaboration: no answer due']]);
  });
});
