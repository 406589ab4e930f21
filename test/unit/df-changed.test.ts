// Issue 15 "the DF answer cached by lease, invalidated by the DF": the Registry tells the
// Coordinator when its directory changed (agents/registry/changes.ts), coalesced into one INFORM
// DF_CHANGED; the Coordinator forgets its cached candidate lists (agents/coordinator/df-changed.ts).
// Only the Registry may send it: anyone else is refused by the role policy and changes nothing.
import { expect } from 'chai';
import { createActor } from 'xstate';
import { type Envelope, makeEnvelope } from '../../shared/acl/index.js';
import { validateEnvelope } from '../../shared/contracts/index.js';
import { CandidateCache } from '../../agents/coordinator/candidate-cache.js';
import { dfChangedMachine } from '../../agents/coordinator/df-changed.js';
import { DirectoryChanges } from '../../agents/registry/changes.js';
import { DOMAIN, inbound, testAgent } from '../support/fake-transport.js';

const A = `specialist-a@${DOMAIN}`;
const B = `specialist-b@${DOMAIN}`;

describe('DF_CHANGED [registry] the directory\'s changes, told to the Coordinator', () => {
  it('coalesces changes into one valid INFORM naming the agents; "any" when there are many or none named', () => {
    const sent: Envelope[] = [];
    const changes = new DirectoryChanges('Registry', (e) => sent.push(e), 60_000);
    changes.note([A]);
    changes.note([B, A]);
    expect(sent, 'held until the coalescing delay (or flush)').to.deep.equal([]);
    changes.flush();
    expect(sent).to.have.length(1);
    expect(sent[0]).to.deep.include({ performative: 'INFORM', sender: 'Registry', receiver: 'Coordinator' });
    expect(sent[0]!.content).to.deep.equal({ type: 'DF_CHANGED', jids: [A, B] });
    expect(validateEnvelope(sent[0]).ok, 'valid against contracts/df-changed.json').to.equal(true);
    changes.note(Array.from({ length: 101 }, (_, i) => `specialist-${i}@${DOMAIN}`));
    changes.flush();
    changes.note();
    changes.flush();
    changes.flush(); // nothing pending: nothing sent
    expect(sent.map((e) => e.content)).to.deep.equal([{ type: 'DF_CHANGED', jids: [A, B] }, { type: 'DF_CHANGED' }, { type: 'DF_CHANGED' }]);
    changes.stop();
  });

  it('sends on its own after the delay', async () => {
    const sent: Envelope[] = [];
    const changes = new DirectoryChanges('Registry', (e) => sent.push(e), 5);
    changes.note([A]);
    await new Promise<void>((resolve) => {
      const t = setInterval(() => {
        if (sent.length > 0) {
          clearInterval(t);
          resolve();
        }
      }, 1);
    });
    expect(sent.map((e) => e.content)).to.deep.equal([{ type: 'DF_CHANGED', jids: [A] }]);
  });
});

describe('DF_CHANGED [coordinator] forgets the cached candidates; only the Registry may say so', () => {
  const change = (sender: string) => makeEnvelope({ performative: 'INFORM', sender, receiver: 'Coordinator', conversation_id: 'df-1', content: { type: 'DF_CHANGED', jids: [A] } });

  it('the machine forgets and ends at once (an INFORM is not answered)', () => {
    let forgot = 0;
    const actor = createActor(dfChangedMachine.provide({ actions: { forgetCandidates: () => void (forgot += 1) } }), { input: { request: change('Registry') } });
    actor.start();
    expect(forgot).to.equal(1);
    expect(actor.getSnapshot().status).to.equal('done');
  });

  it('attack: a DF_CHANGED from any agent but the Registry is refused and leaves the cache alone', async () => {
    const cache = new CandidateCache(60_000);
    cache.put('what is 1 * 2?', [A]);
    const coord = testAgent('coordinator');
    coord.agent.router.on('DF_CHANGED', (request) => ({ machine: dfChangedMachine.provide({ actions: { forgetCandidates: () => cache.clear() } }), input: { request } }));
    await coord.agent.start();
    coord.transport.setStatus('online');
    for (const [jid, name] of [[`presenter@${DOMAIN}`, 'Presenter'], [`kb@${DOMAIN}`, 'KB'], [`sessions@${DOMAIN}`, 'Sessions']] as const) {
      coord.transport.deliver(inbound(jid, change(name)));
    }
    expect(Object.values(coord.agent.counters.rejected).reduce((a, b) => a + b, 0)).to.equal(3);
    expect(cache.get('what is 3 * 4?'), 'still cached').to.deep.equal([A]);
    coord.transport.deliver(inbound(`registry@${DOMAIN}`, change('Registry')));
    expect(cache.get('what is 3 * 4?'), 'the Registry\'s word clears it').to.equal(undefined);
    await coord.agent.stop();
  });
});
