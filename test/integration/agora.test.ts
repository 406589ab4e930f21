// Agora on real processes and a real ejabberd (issue "Signed envelopes, agent identities and
// negotiated requests"): the per-DID rate limit of a real specialist process, then the negotiated
// flow between the real Coordinator and three real specialists with different terms, a person
// asking through the real Presenter, and an offer with a tiny ttl that must not be accepted.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { expect } from 'chai';
import { waitFor } from 'xstate';
import { echoRequester, type RequesterOutput, runtimeAgent, type RuntimeAgent } from '../../shared/bench/index.js';
import { openDb } from '../../shared/store/index.js';
import { Person } from '../../shared/trace/index.js';
import { type AgentProcess, spawnAgent } from '../support/agent-process.js';
import { sharedInstance, type TestInstance } from '../support/ejabberd.js';
import { outputOf, untilRecorded } from '../support/wait.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const tag = randomUUID().slice(0, 6);

describe('Agora [rate limit] a real specialist refuses a burst from one DID with RATE_LIMITED and keeps serving', function () {
  this.timeout(60000);
  let inst: TestInstance;
  let specialist: AgentProcess;
  let coord: RuntimeAgent;
  const name = `specialist-rl${tag}`;

  before(async () => {
    inst = await sharedInstance();
    // No Coordinator process runs during this block: the test plays it (its real key).
    specialist = spawnAgent('agents/specialist/main.js', {
      ...inst.env, PARLEY_SPECIALIST_NAME: name, PARLEY_SPECIALIST_EXPERTS: 'arithmetic', PARLEY_RATE_LIMIT_PER_S: '1', PARLEY_RATE_LIMIT_BURST: '5',
    });
    await specialist.waitFor('online');
    coord = await runtimeAgent(inst.cfg, 'coordinator', { telemetry: 'memory', resource: 'agora-test' });
    await coord.agent.start();
  });

  after(async () => {
    await coord?.agent.stop().catch(() => undefined);
    await specialist?.stop();
  });

  const ask = async (question: string): Promise<RequesterOutput> => {
    const cid = `sess-${randomUUID()}`;
    const actor = coord.agent.router.start(`${cid}/ask`, echoRequester, {
      self: 'Coordinator', peer: name, conversationId: cid, question, agreeTimeoutMs: 5000, resultTimeoutMs: 10000,
    });
    await waitFor(actor, (s) => s.status !== 'active', { timeout: 15000 });
    return outputOf<RequesterOutput>(actor);
  };

  it('20 requests at once: 5 served (burst), the rest REFUSE RATE_LIMITED (Agora 429); a second later it serves again', async () => {
    const outs = await Promise.all(Array.from({ length: 20 }, (_, i) => ask(`what is ${i} + 1?`)));
    const served = outs.filter((o) => o.ok).length;
    const limited = outs.filter((o) => !o.ok && o.reason === 'REFUSE RATE_LIMITED').length;
    console.log(`      burst of 20: ${served} served, ${limited} REFUSE RATE_LIMITED`);
    expect(served + limited).to.equal(20);
    // 5 from the burst, plus one a second while the 20 arrive (1/s: a loaded machine that takes
    // 2 s to deliver them still serves at most 7; at 5/s it served 8 in CI).
    expect(served).to.be.within(5, 7);
    const refuse = outs.find((o) => !o.ok)?.replies[0];
    expect(refuse?.content.detail).to.match(/over 1\/s \(burst 5\) from did:key:z6Mk/);
    await sleep(1100); // not a guess: the bucket refills one token a second, so time passing is the condition
    const again = await ask('what is 2 + 2?');
    expect(again.ok && again.answer).to.equal('4');
    expect(specialist.child.exitCode).to.equal(null);
  });
});

describe('Agora [negotiation] the real Coordinator negotiates with three real specialists', function () {
  this.timeout(90000);
  let inst: TestInstance;
  const procs: AgentProcess[] = [];
  let alice: Person;
  const n = (s: string) => `specialist-${s}${tag}`;

  async function start(script: string, env: Record<string, string>, ready = 'online'): Promise<AgentProcess> {
    const p = spawnAgent(script, { ...inst.env, ...env });
    procs.push(p);
    await p.waitFor(ready, 30000);
    return p;
  }
  const specialist = (name: string, terms: Record<string, string>) => start('agents/specialist/main.js', {
    PARLEY_SPECIALIST_NAME: name, PARLEY_SPECIALIST_EXPERTS: 'arithmetic', ...terms,
  }, 'registered');

  before(async function () {
    this.timeout(90000);
    inst = await sharedInstance();
    await start('agents/registry/main.js', {});
    await start('agents/kb/main.js', {});
    // A generous CFP deadline: on a loaded machine every offer must be in before the pick.
    await start('agents/coordinator/main.js', { PARLEY_NEGOTIATE: 'auto', PARLEY_CFP_TIMEOUT_MS: '15000' });
    await start('agents/presenter/main.js', {});
    // cheapest is a tie (2) between slow and fast; fast has the lower eta and must win.
    await Promise.all([
      specialist(`dear${tag}`, { PARLEY_SPECIALIST_COST: '5', PARLEY_SPECIALIST_ETA_MS: '10' }),
      specialist(`slow${tag}`, { PARLEY_SPECIALIST_COST: '2', PARLEY_SPECIALIST_ETA_MS: '500' }),
      specialist(`fast${tag}`, { PARLEY_SPECIALIST_COST: '2', PARLEY_SPECIALIST_ETA_MS: '50' }),
    ]);
    alice = await Person.connect(inst.cfg, `alice${tag}`);
  });

  after(async () => {
    await alice?.close().catch(() => undefined);
    for (const p of procs.reverse()) await p.stop();
  });

  /** The Coordinator's telemetry for one conversation: sends as "PERF→receiver reason", and notes. */
  async function coordinatorRows(cid: string) {
    await untilRecorded(inst.cfg.home, 'Coordinator', [cid]);
    const db = openDb(path.join(inst.cfg.home, 'telemetry', 'Coordinator.sqlite'), { readonly: true });
    try {
      const rows = db.prepare('SELECT direction, performative, receiver, decision, body FROM envelopes WHERE conversation_id = ? ORDER BY seq').all(cid) as
        Array<{ direction: string; performative: string | null; receiver: string | null; decision: string; body: string | null }>;
      const out = rows.filter((r) => r.direction === 'out').map((r) => {
        const c = (JSON.parse(r.body ?? '{}') as { content?: { reason?: string } }).content;
        return `${r.performative}→${r.receiver}${c?.reason ? ` ${c.reason}` : ''}`;
      });
      return { out, notes: rows.filter((r) => r.direction === 'note').map((r) => r.decision) };
    } finally {
      db.close();
    }
  }

  it('picks the lowest cost, ties by eta: ACCEPT to the fast one, REJECT NOT_SELECTED to the others, and the person gets the answer', async () => {
    const a = await alice.ask('what is 17 * 23?');
    expect(a.answer).to.contain('391');
    const { out, notes } = await coordinatorRows(a.thread);
    expect(out.filter((o) => o.startsWith('CFP→'))).to.have.members([`CFP→${n('dear')}`, `CFP→${n('slow')}`, `CFP→${n('fast')}`]);
    expect(out.filter((o) => o.startsWith('ACCEPT-PROPOSAL→'))).to.deep.equal([`ACCEPT-PROPOSAL→${n('fast')}`]);
    expect(out.filter((o) => o.startsWith('REJECT-PROPOSAL→'))).to.have.members([`REJECT-PROPOSAL→${n('dear')} NOT_SELECTED`, `REJECT-PROPOSAL→${n('slow')} NOT_SELECTED`]);
    expect(notes.filter((d) => d.startsWith('agora:'))).to.deep.equal(['agora:PENDING', 'agora:NEGOTIATING', 'agora:PROCESSING', 'agora:COMPLETED']);
    const warm: number[] = [];
    for (let i = 0; i < 5; i++) warm.push((await alice.ask(`what is ${i} * 3?`)).ms);
    warm.sort((x, y) => x - y);
    console.log(`      negotiated answer: first ${a.ms.toFixed(0)} ms, warm median ${warm[2]?.toFixed(0)} ms`);
  });

  it('an offer past its ttl is not accepted: the cheapest specialist with a 1 ms ttl is rejected OFFER_EXPIRED', async () => {
    await specialist(`brief${tag}`, { PARLEY_SPECIALIST_COST: '0', PARLEY_SPECIALIST_OFFER_TTL_MS: '1' });
    const a = await alice.ask('what is 6 * 7?');
    expect(a.answer).to.contain('42');
    const { out, notes } = await coordinatorRows(a.thread);
    expect(out).to.include(`CFP→${n('brief')}`);
    expect(out.filter((o) => o.startsWith('ACCEPT-PROPOSAL→'))).to.deep.equal([`ACCEPT-PROPOSAL→${n('fast')}`]);
    expect(out).to.include(`REJECT-PROPOSAL→${n('brief')} OFFER_EXPIRED`);
    expect(notes).to.include('offer-rejected:OFFER_EXPIRED');
  });
});
