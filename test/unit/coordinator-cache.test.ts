import { expect } from 'chai';
import type { Envelope } from '../../shared/acl/index.js';
import { CandidateCache } from '../../agents/coordinator/candidate-cache.js';
import { userMsgFactory } from '../../agents/coordinator/factory.js';
import { identify } from '../../shared/runtime/index.js';
import { DOMAIN, harness, T, userMsg } from './coordinator-harness.js';

const A = 'specialist-a@localhost';
const B = 'specialist-b@localhost';

describe('Coordinator [candidate cache] short-lived memory of the DF answer', () => {
  it('serves questions that differ only in their numbers, until the TTL runs out', () => {
    let now = 1000;
    const cache = new CandidateCache(250, () => now);
    cache.put('what is 17 * 23?', [A, B]);
    expect(cache.get('What is 6 * 7?')).to.deep.equal([A, B]);
    expect(cache.get('what time is it in Tokyo?')).to.equal(undefined);
    now += 250;
    expect(cache.get('what is 6 * 7?')).to.equal(undefined);
  });

  it('refreshes ahead: in the last third of the TTL one question asks the DF, the others keep the list', () => {
    let now = 1000;
    const cache = new CandidateCache(300, () => now);
    cache.put('what is 1 * 2?', [A]);
    now += 199;
    expect(cache.get('what is 3 * 4?')).to.deep.equal([A]);
    now += 1; // two thirds of the TTL
    expect(cache.get('what is 5 * 6?'), 'this one asks the DF').to.equal(undefined);
    expect(cache.get('what is 7 * 8?'), 'the others still use the list').to.deep.equal([A]);
    expect(cache.get('what is 9 * 9?')).to.deep.equal([A]);
    cache.put('what is 5 * 6?', [A, B]); // the refresher's answer renews the entry
    now += 199;
    expect(cache.get('what is 2 * 2?')).to.deep.equal([A, B]);
    now += 1;
    expect(cache.get('what is 2 * 3?'), 'the next refresh').to.equal(undefined);
    now += 100; // past the TTL: the list serves on while its refresh is on the way…
    expect(cache.get('what is 2 * 4?')).to.deep.equal([A, B]);
    now += cache.maxStaleMs; // …but not for longer than maxStaleMs (the refresher never answered)
    expect(cache.get('what is 2 * 5?')).to.equal(undefined);
    cache.put('what is 2 * 6?', [A]);
    now += 2000; // long idle: the first question after the TTL refreshes, the others are served meanwhile
    expect(cache.get('what is 2 * 7?')).to.equal(undefined);
    expect(cache.get('what is 2 * 8?')).to.deep.equal([A]);
  });

  it('starts the refresh earlier when the DF answers slowly, so a busy Coordinator never lets the list run out', () => {
    let now = 1000;
    const cache = new CandidateCache(300, () => now);
    cache.put('what is 1 * 2?', [A]);
    now += 200;
    expect(cache.get('what is 1 * 2?'), 'the refresh').to.equal(undefined);
    now += 150; // the DF took 150 ms (past the old entry's TTL)
    expect(cache.get('what is 1 * 3?'), 'served while the refresh is on the way').to.deep.equal([A]);
    cache.put('what is 1 * 2?', [A, B]);
    // The next refresh starts 1.5 × 150 = 225 ms before the end, not 100.
    now += 74;
    expect(cache.get('what is 3 * 4?')).to.deep.equal([A, B]);
    now += 1;
    expect(cache.get('what is 3 * 4?'), 'refreshing already').to.equal(undefined);
    expect(cache.get('what is 5 * 6?')).to.deep.equal([A, B]);
  });

  it('rotates the head agents the DF ranks alike (`lead`) one place per use, as the DF takes turns', () => {
    const C = 'specialist-c@localhost';
    const D = 'specialist-d@localhost';
    const cache = new CandidateCache(60_000);
    cache.put('what is 1 * 2?', [A, B, C, D], 3); // the asker took A, the DF's head
    expect([1, 2, 3].map(() => cache.get('what is 3 * 4?'))).to.deep.equal([[B, C, A, D], [C, A, B, D], [A, B, C, D]]);
    cache.put('what is 1 * 2?', [A, B], 'x'); // no lead: the list as the DF ranked it
    expect(cache.get('what is 3 * 4?')).to.deep.equal([A, B]);
  });

  it('never keeps an empty or malformed list, and is off with a TTL of 0', () => {
    const cache = new CandidateCache(1000);
    cache.put('q 1', []);
    cache.put('q 2', [A, 7]);
    expect(cache.get('q 1')).to.equal(undefined);
    expect(cache.get('q 2')).to.equal(undefined);
    const off = new CandidateCache(0);
    off.put('q', [A]);
    expect(off.get('q')).to.equal(undefined);
  });

  /** Runs one question through the factory's machine, as the router would. */
  function ask(cache: CandidateCache, text: string) {
    const factory = userMsgFactory({ self: 'Coordinator', domain: DOMAIN, timeouts: T, cache });
    const request = userMsg(text);
    const { machine, input } = factory(request, identify('presenter@localhost', DOMAIN));
    return harness(machine, request, input as object);
  }

  it('a cached list skips the QUERY-REF: the first question asks the DF, the next one goes straight to the specialist', () => {
    const cache = new CandidateCache(60000);
    const first = ask(cache, 'what is 17 * 23?');
    expect(first.last()).to.include({ performative: 'QUERY-REF', receiver: 'Registry' });
    first.reply(first.last(), 'INFORM', { candidates: [A, B] });
    expect(first.last()).to.include({ performative: 'REQUEST', receiver: 'specialist-a' });

    const second = ask(cache, 'what is 6 * 7?');
    expect(second.sent.map((e) => `${e.performative} ${e.receiver}`)).to.deep.equal(['REQUEST specialist-a']);
    expect(second.notes.find((n) => n.decision === 'candidates')?.detail).to.deep.equal({ candidates: ['specialist-a', 'specialist-b'], cached: true });
  });

  it('a REFUSE forgets the entry, so the next question asks the DF again', () => {
    const cache = new CandidateCache(60000);
    cache.put('what is 1 * 2?', [A, B]);
    const h = ask(cache, 'what is 3 * 4?');
    const askA = h.last() as Envelope;
    h.reply(askA, 'REFUSE', { reason: 'busy' });
    expect(h.last()).to.include({ performative: 'REQUEST', receiver: 'specialist-b' });
    expect(cache.get('what is 5 * 6?')).to.equal(undefined);
    expect(ask(cache, 'what is 5 * 6?').last()).to.include({ performative: 'QUERY-REF', receiver: 'Registry' });
  });
});
