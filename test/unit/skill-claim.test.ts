import { expect } from 'chai';
import { createActor } from 'xstate';
import { type Envelope, makeEnvelope, type ParleyError } from '../../shared/acl/index.js';
import { loadCatalogue } from '../../shared/skills/index.js';
import { SkillHost } from '../../shared/skills/hosting.js';
import { askExpertExchange, Slots } from '../../agents/specialist/exchange.js';
import { hostRunner } from '../../agents/specialist/skills.js';
import { askExpertMachine, type AskInput } from '../../agents/specialist/machine.js';
import { tempSkillDirs, writeSkill } from '../support/skills.js';

// Recognise and run in one worker dispatch (SkillPool.claim, issue 15): the run starts as soon as
// the skill claims the question, before anyone calls run(); everything else stays as it was.
const STAMP = `export const recognise = (q) => (q.startsWith('stamp') ? 1 : 0);
export async function run(input) {
  return { answer: 'stamped ' + input.question, meta: { started: Date.now(), env: Object.keys(process.env) } };
}
`;
const THROWS = `export function recognise(q) { if (q.startsWith('throwy')) throw new Error('the recogniser broke'); return 0; }
export const run = () => 'never';
`;
const HANGS = `export function recognise(q) { if (q.startsWith('hangy')) for (;;) {} return 0; }
export const run = () => 'never';
`;

const failure = (p: Promise<unknown>) => p.then(() => { throw new Error('expected a failure'); }, (e: ParleyError) => e);
const job = (key: string, args: Record<string, unknown>) => ({ key, args, session_id: 'sess-claim' });
const until = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('Skills [claim] recognise and run at once in one worker round trip', function () {
  this.timeout(40000);
  const dirs = tempSkillDirs();
  writeSkill(dirs.user, 'stamp', STAMP, { recognise: { module: true }, examples: [] });
  writeSkill(dirs.user, 'strict', STAMP.replace("'stamp'", "'strict'"), {
    recognise: { module: true }, examples: [],
    inputSchema: { type: 'object', required: ['question', 'n'], properties: { question: { type: 'string' }, n: { type: 'integer' } } },
  });
  writeSkill(dirs.user, 'caller', STAMP.replace("'stamp'", "'caller'"), { recognise: { module: true }, examples: [], uses: ['stamp'] });
  writeSkill(dirs.user, 'throwy', THROWS, { recognise: { module: true }, examples: [] });
  writeSkill(dirs.user, 'hangy', HANGS, { recognise: { module: true }, examples: [], limits: { timeoutMs: 800 } });
  writeSkill(dirs.user, 'slowrun', "export const recognise = (q) => (q.startsWith('slowrun') ? 1 : 0);\nexport const run = () => new Promise((r) => setTimeout(() => r('late'), 5000));\n", { recognise: { module: true }, examples: [] });
  const hosts = new Map<string, SkillHost>();
  const hostOf = (name: string) => hosts.get(name) as SkillHost;
  before(async () => {
    // Secrets in this process: none may reach a skill, claimed or not.
    process.env.PARLEY_LLM_KEY = 'sk-claim-secret';
    process.env.PARLEY_CLAIM_TEST_SECRET = 'hunter2';
    for (const name of ['stamp', 'strict', 'caller', 'throwy', 'hangy', 'slowrun']) {
      const host = new SkillHost({ select: (d) => d.name === name, maxWorkers: 2, recogniseMs: 600 });
      await host.apply(loadCatalogue(dirs));
      hosts.set(name, host);
    }
  });
  after(async () => {
    delete process.env.PARLEY_LLM_KEY;
    delete process.env.PARLEY_CLAIM_TEST_SECRET;
    for (const h of hosts.values()) await h.close();
  });

  it('a claimed question is already running when run() is called, and run() takes its result', async () => {
    const host = hostOf('stamp');
    expect(await host.recognise('stamp one', job('k1', { question: 'stamp one' }))).to.equal('stamp');
    const asked = Date.now() + 200;
    await until(250);
    const r = await host.run('stamp', { question: 'stamp one' }, 'sess-claim', undefined, 'k1');
    expect(r.answer).to.equal('stamped stamp one');
    expect(r.meta.started as number).to.be.below(asked); // started with the recognition
    expect(r.meta).to.include({ skill: 'stamp' });
  });

  it('without a job (CFP offers, warm-up) recognition only: the run starts when run() is called', async () => {
    const host = hostOf('stamp');
    expect(await host.recognise('stamp two')).to.equal('stamp');
    await until(250);
    const asked = Date.now();
    const r = await host.run('stamp', { question: 'stamp two' }, 'sess-claim', undefined, 'k-none');
    expect(r.meta.started as number).to.be.at.least(asked);
  });

  it('a claimed run sees no secret and no environment of the specialist', async () => {
    const host = hostOf('stamp');
    await host.recognise('stamp env', job('k-env', { question: 'stamp env' }));
    const r = await host.run('stamp', { question: 'stamp env' }, 'sess-claim', undefined, 'k-env');
    const env = r.meta.env as string[];
    expect(env.filter((k) => k.startsWith('PARLEY_'))).to.deep.equal([]);
  });

  it('args the inputSchema rejects: recognised (AGREE), then FAILURE INVALID_ARGS as before', async () => {
    const host = hostOf('strict');
    expect(await host.recognise('strict q', job('k-bad', { question: 'strict q' }))).to.equal('strict');
    const e = await failure(host.run('strict', { question: 'strict q' }, 'sess-claim', undefined, 'k-bad'));
    expect(e.code).to.equal('INVALID_ARGS');
    expect(e.detail).to.match(/must have required property 'n'/);
  });

  it('a skill that calls others (uses, a2a, llm) never starts before its AGREE', async () => {
    const host = hostOf('caller');
    expect(await host.recognise('caller q', job('k-caller', { question: 'caller q' }))).to.equal('caller');
    await until(250);
    const asked = Date.now();
    const r = await host.run('caller', { question: 'caller q' }, 'sess-claim', undefined, 'k-caller');
    expect(r.meta.started as number).to.be.at.least(asked);
  });

  it('a recogniser that throws is out of scope (null), and the skill keeps serving', async () => {
    const host = hostOf('throwy');
    expect(await host.recognise('throwy q', job('k-t1', { question: 'throwy q' }))).to.equal(null);
    expect(await host.recognise('throwy q', job('k-t2', { question: 'throwy q' }))).to.equal(null);
    expect(await host.recognise('something else', job('k-t3', { question: 'something else' }))).to.equal(null);
  });

  it('a recogniser that hangs is stopped at the recognition limit (null), and a fresh worker serves the next', async () => {
    const host = hostOf('hangy');
    const t0 = Date.now();
    expect(await host.recognise('hangy q', job('k-h1', { question: 'hangy q' }))).to.equal(null);
    expect(Date.now() - t0).to.be.below(5000);
    expect(await host.recognise('calm q', job('k-h2', { question: 'calm q' }))).to.equal(null);
  });

  it('a CANCEL of a claimed run stops it at once (the abort reaches its worker)', async () => {
    const host = hostOf('slowrun');
    expect(await host.recognise('slowrun q', job('k-c', { question: 'slowrun q' }))).to.equal('slowrun');
    const ac = new AbortController();
    const t0 = Date.now();
    const out = host.run('slowrun', { question: 'slowrun q' }, 'sess-claim', ac.signal, 'k-c');
    ac.abort();
    const e = await failure(out);
    expect(e.detail).to.equal('cancelled');
    expect(Date.now() - t0).to.be.below(2000); // the run alone takes 5 s
    expect(await host.recognise('slowrun again', job('k-c2', { question: 'slowrun again' }))).to.equal('slowrun');
  });
});

describe('Specialist [claim] the FIPA contract holds with the run started at recognition', function () {
  this.timeout(40000);
  const dirs = tempSkillDirs();
  writeSkill(dirs.user, 'stamp', STAMP, { recognise: { module: true }, examples: [] });
  writeSkill(dirs.user, 'throwy', THROWS, { recognise: { module: true }, examples: [] });
  writeSkill(dirs.user, 'hangy', HANGS, { recognise: { module: true }, examples: [] });
  const hosts: SkillHost[] = [];
  after(async () => {
    for (const h of hosts) await h.close();
  });

  async function exchange(skill: string, question: string, agreeAfterMs?: number): Promise<Envelope[]> {
    const host = new SkillHost({ select: (d) => d.name === skill, maxWorkers: 2, recogniseMs: 600 });
    hosts.push(host);
    await host.apply(loadCatalogue(dirs));
    const factory = askExpertExchange({ skills: hostRunner(host), slots: new Slots(2), computeMs: 10000, ...(agreeAfterMs === undefined ? {} : { agreeAfterMs }) });
    const request = makeEnvelope({
      performative: 'REQUEST', sender: 'Coordinator', receiver: 'specialist-x', conversation_id: 'sess-c',
      content: { type: 'ASK_EXPERT', args: { question }, context_ref: { session_id: 'sess-c' } },
    });
    const { machine, input } = factory(request, { jid: 'coordinator@localhost', name: 'Coordinator', role: 'coordinator' });
    const actor = createActor(machine as typeof askExpertMachine, { input: input as AskInput });
    const sent: Envelope[] = [];
    actor.on('send', (e) => sent.push(e.envelope));
    const done = new Promise<void>((resolve) => actor.subscribe({ complete: () => resolve() }));
    actor.start();
    await done;
    return sent;
  }

  it('INFORM RESULT alone when the run is done before the AGREE was due; AGREE then INFORM when agreeing at once', async () => {
    const sent = await exchange('stamp', 'stamp please', 250);
    expect(sent.map((e) => e.performative)).to.deep.equal(['INFORM']);
    expect((sent[0]?.content as { result: { answer: string } }).result.answer).to.equal('stamped stamp please');
    const agreed = await exchange('stamp', 'stamp please', 0);
    expect(agreed.map((e) => e.performative)).to.deep.equal(['AGREE', 'INFORM']);
    expect((agreed[1]?.content as { result: { answer: string } }).result.answer).to.equal('stamped stamp please');
  });

  it('a recogniser that throws or hangs: REFUSE OUT_OF_SCOPE', async () => {
    for (const [skill, q] of [['throwy', 'throwy please'], ['hangy', 'hangy please']] as const) {
      const sent = await exchange(skill, q);
      expect(sent.map((e) => e.performative), skill).to.deep.equal(['REFUSE']);
      expect(sent[0]?.content).to.include({ reason: 'OUT_OF_SCOPE' });
    }
  });
});
