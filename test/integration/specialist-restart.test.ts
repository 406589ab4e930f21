// A specialist killed with work in hand (issue 12): kill -9 between AGREE and RESULT, and between
// PROPOSE and ACCEPT, then a new process of the same account. The restarted specialist finishes
// what its predecessor took on (exchanges restored from $PARLEY_HOME/data/<name>-exchanges.sqlite),
// answering exactly once; without its snapshots (PARLEY_DURABLE=0) an ACCEPT for a lost offer gets
// the retryable FAILURE WORK_LOST, never NOT-UNDERSTOOD. The Coordinator is an envelope peer here,
// so nothing but the specialist answers; the Coordinator's side is in coordinator-retryable.test.ts.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { expect } from 'chai';
import type { Envelope } from '../../shared/acl/index.js';
import { type AgentProcess, killAgents, spawnAgent } from '../support/agent-process.js';
import { sharedInstance, type TestInstance } from '../support/ejabberd.js';
import { EnvelopePeer } from '../support/peer.js';
import { writeSkill } from '../support/skills.js';
import { until } from '../support/wait.js';

// Slow enough that the kill, right after AGREE, lands while it runs.
const SLOW = `export async function run(input) {
  await new Promise((r) => setTimeout(r, 2500));
  return { answer: 'done: ' + input.question, meta: {} };
}\n`;

describe('Specialist [crash] kill -9 with accepted work and open offers, then a restart', function () {
  this.timeout(60000);
  let inst: TestInstance;
  let peer: EnvelopePeer;
  let specialist: AgentProcess | undefined;

  const start = async (name: string, extra: Record<string, string> = {}) => {
    specialist = spawnAgent('agents/specialist/main.js', {
      ...inst.env, PARLEY_SPECIALIST_NAME: name, PARLEY_SPECIALIST_ROLE: 'general', PARLEY_SKILLS_WATCH: '0',
      // Long enough to outlive the restart: this test is about the offer surviving, not its ttl.
      PARLEY_SPECIALIST_OFFER_TTL_MS: '30000', ...extra,
    });
    await specialist.waitFor('online', 30000);
    return specialist;
  };
  const kill9 = async () => {
    const s = specialist as AgentProcess;
    const gone = new Promise((r) => s.child.once('exit', r));
    s.child.kill('SIGKILL');
    await gone;
  };
  const restored = (s: AgentProcess) => s.lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'restored exchanges');
  /** Every reply to `env` has arrived once the reply to a later probe has (one sender, in order). */
  const settled = async (env: Envelope) => {
    await peer.ask('REQUEST', { type: 'ASK_EXPERT', args: { question: 'what is 1 + 1?' }, context_ref: { session_id: 'sess-probe' } }, undefined, 15000);
    return peer.repliesTo(env);
  };
  const distinct = (envs: Envelope[]) => [...new Map(envs.map((e) => [e.reply_with, e])).values()];

  before(async () => {
    inst = await sharedInstance();
    writeSkill(path.join(inst.cfg.home, 'skills'), 'slow', SLOW, { examples: [] });
  });
  afterEach(async () => {
    await peer?.stop();
    await specialist?.stop();
  });
  after(() => killAgents());

  const connect = async (name: string) => {
    peer = await EnvelopePeer.connect(inst, 'coordinator', name, 'Coordinator');
  };

  it('between AGREE and RESULT: the restarted specialist runs the skill again and answers once', async () => {
    const name = `specialist-rs${randomUUID().slice(0, 6)}`;
    await start(name);
    await connect(name);
    const ask = peer.send('REQUEST', { type: 'ASK_EXPERT', args: { question: 'slow one' }, context_ref: { session_id: 'sess-slow' } });
    expect((await peer.reply(ask, 'ASK_EXPERT', 15000)).performative).to.equal('AGREE');
    await kill9();
    const second = await start(name);
    expect(restored(second), 'the exchange came back').to.deep.include({ restored: 1, failed: 0 });
    await until(() => peer.repliesTo(ask).some((e) => e.performative !== 'AGREE'), 'the RESULT', 20000);
    const replies = distinct(await settled(ask)).filter((e) => e.performative !== 'AGREE');
    expect(replies.map((e) => e.performative), 'one answer, no FAILURE').to.deep.equal(['INFORM']);
    const result = (replies[0] as Envelope).content as { type: string; result: { answer: string } };
    expect(result.type).to.equal('RESULT');
    expect(result.result.answer).to.equal('done: slow one');
  });

  it('between PROPOSE and ACCEPT: the restored offer is honoured and answered once', async () => {
    const name = `specialist-rs${randomUUID().slice(0, 6)}`;
    await start(name);
    await connect(name);
    const cfp = peer.send('CFP', { type: 'AGORA_REQUEST', resource: 'parley:ask-expert:v1', params: { question: 'slow two' }, timeout: 30000 });
    const propose = await peer.reply(cfp, 'CFP', 15000);
    expect(propose.performative).to.equal('PROPOSE');
    await kill9();
    const second = await start(name);
    expect(restored(second)).to.deep.include({ restored: 1, failed: 0 });
    const accept = peer.answer(propose, 'ACCEPT-PROPOSAL', { type: 'AGORA_ACCEPT', offer_id: propose.content.offer_id });
    const result = await peer.reply(accept, 'ACCEPT', 15000);
    expect(result.performative).to.equal('INFORM');
    expect(result.content).to.deep.include({ type: 'AGORA_RESULT', status: 'success' });
    expect((result.content as { data: { answer: string } }).data.answer).to.equal('done: slow two');
    expect(distinct(await settled(accept))).to.have.length(1);
  });

  it('attack: without its snapshots (PARLEY_DURABLE=0) an ACCEPT for the lost offer gets FAILURE WORK_LOST, never NOT-UNDERSTOOD', async () => {
    const name = `specialist-rs${randomUUID().slice(0, 6)}`;
    await start(name, { PARLEY_DURABLE: '0' });
    await connect(name);
    const cfp = peer.send('CFP', { type: 'AGORA_REQUEST', resource: 'parley:ask-expert:v1', params: { question: 'slow three' }, timeout: 30000 });
    const propose = await peer.reply(cfp, 'CFP', 15000);
    await kill9();
    const second = await start(name, { PARLEY_DURABLE: '0' });
    expect(restored(second)).to.equal(undefined);
    const accept = peer.answer(propose, 'ACCEPT-PROPOSAL', { type: 'AGORA_ACCEPT', offer_id: propose.content.offer_id });
    const failure = await peer.reply(accept, 'ACCEPT', 15000);
    expect(failure.performative).to.equal('FAILURE');
    expect(failure.content).to.deep.include({ type: 'AGORA_ERROR', reason: 'WORK_LOST', code: 503 });
  });
});
