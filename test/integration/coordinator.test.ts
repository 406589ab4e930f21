// The Coordinator as a real process against a real ejabberd. The other roles are played here by
// in-process Agents with tiny scripted machines (Registry, KB, two specialists, Presenter), so
// each test decides who refuses, who stays silent and whether the KB answers.
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { expect } from 'chai';
import { emit, enqueueActions, setup } from 'xstate';
import { type Envelope, makeEnvelope, newConversationId, replyTo } from '../../shared/acl/index.js';
import { silentLogger } from '../../shared/log/index.js';
import {
  Agent, type ExchangeEmitted, type InboundEvent, signingFor, MemoryTelemetry,
} from '../../shared/runtime/index.js';
import { repoRoot } from '../../shared/runtime/repo-root.js';
import { openDb } from '../../shared/store/index.js';
import { clientTransport } from '../../shared/transport/index.js';
import { enrolTestAgent } from '../support/signing.js';
import { sharedInstance, type TestInstance } from '../support/ejabberd.js';
import { until, untilRecorded } from '../support/wait.js';

type Behaviour = 'answer' | 'refuse' | 'silent';
const world = { candidates: [] as string[], a: 'answer' as Behaviour, b: 'answer' as Behaviour, kb: 'store' as 'store' | 'silent' };
const USER = 'alice@localhost';

/** A peer's exchange: sends its scripted replies and ends (later CANCELs arrive as "late"). */
const scripted = setup({ types: {} as { input: { replies: Envelope[] }; context: { replies: Envelope[] }; events: InboundEvent; emitted: ExchangeEmitted } })
  .createMachine({
    context: ({ input }) => ({ replies: input.replies }),
    entry: enqueueActions(({ context, enqueue }) => {
      for (const envelope of context.replies) enqueue.emit({ type: 'send', envelope });
    }),
    initial: 'done',
    states: { done: { type: 'final' } },
  });

/** The Presenter's side of one USER_MSG: send it, resolve with whatever answers it. */
const asker = setup({
  types: {} as { input: { request: Envelope; done: (e: Envelope) => void }; context: { request: Envelope; done: (e: Envelope) => void }; events: InboundEvent; emitted: ExchangeEmitted },
}).createMachine({
  context: ({ input }) => input,
  entry: emit(({ context }) => ({ type: 'send' as const, envelope: context.request })),
  // The AGREE that names the specialist working on it is not the answer.
  on: { inbound: { guard: ({ event }) => event.envelope.performative !== 'AGREE', target: '.answered', actions: ({ context, event }) => context.done(event.envelope) } },
  initial: 'waiting',
  states: { waiting: { after: { 20000: 'answered' } }, answered: { type: 'final' } },
});

interface Peer { agent: Agent; telemetry: MemoryTelemetry }

describe('Coordinator [integration] real ejabberd, coordinator process, scripted peers', function () {
  this.timeout(60000);
  let inst: TestInstance;
  let child: ChildProcess;
  const peers: Record<string, Peer> = {};
  const log: string[] = [];

  async function peer(account: string): Promise<Peer> {
    const { jid, password } = await inst.account(account);
    enrolTestAgent(inst.cfg, account); // the scripted specialists are enrolled, as provisioning would
    const telemetry = new MemoryTelemetry();
    const transport = clientTransport({ jid, password, host: inst.cfg.host, port: inst.cfg.c2sPort, logger: silentLogger(), resource: 'coordinator-test' });
    const agent = new Agent({ jid, domain: inst.cfg.domain, transport, logger: silentLogger(), telemetry, signing: signingFor(inst.cfg, account) });
    peers[account] = { agent, telemetry };
    return { agent, telemetry };
  }

  const specialist = (name: string, get: () => Behaviour) => (request: Envelope) => {
    const b = get();
    const replies = b === 'refuse' ? [replyTo(request, { performative: 'REFUSE', content: { reason: 'busy' } })]
      : b === 'silent' ? []
      : [replyTo(request, { performative: 'AGREE', content: { status: 'accepted' } }),
        replyTo(request, { performative: 'INFORM', content: { type: 'RESULT', result: { answer: `${name} says 42`, meta: { confidence: 0.8 } } } })];
    return { machine: scripted, input: { replies } };
  };

  before(async () => {
    inst = await sharedInstance();
    const registry = await peer('registry');
    registry.agent.router.on('NEED', (r) => ({ machine: scripted, input: { replies: [replyTo(r, { performative: 'INFORM', content: { candidates: world.candidates } })] } }));
    const kb = await peer('kb');
    kb.agent.router.on('STORE_FACT', (r) => ({
      machine: scripted, input: { replies: world.kb === 'silent' ? [] : [replyTo(r, { performative: 'INFORM', content: { type: 'STORED', count: 1 } })] },
    }));
    (await peer('specialist-a')).agent.router.on('ASK_EXPERT', specialist('specialist-a', () => world.a));
    (await peer('specialist-b')).agent.router.on('ASK_EXPERT', specialist('specialist-b', () => world.b));
    await peer('presenter');
    await Promise.all(Object.values(peers).map((p) => p.agent.start()));
    world.candidates = [peers['specialist-a']?.agent.self.jid as string, peers['specialist-b']?.agent.self.jid as string];

    child = spawn(process.execPath, [path.join(repoRoot(), 'dist/agents/coordinator/main.js')], {
      env: {
        // The direct flow (seed contract §3) is what these scripted peers speak; the negotiated
        // flow with ≥ 2 candidates is tested in agora.test.ts.
        ...process.env, ...inst.env, PARLEY_LOG_LEVEL: 'info', PARLEY_NEGOTIATE: 'never',
        PARLEY_AGREE_TIMEOUT_MS: '500', PARLEY_RESULT_TIMEOUT_MS: '2000', PARLEY_REGISTRY_TIMEOUT_MS: '1000', PARLEY_KB_TIMEOUT_MS: '500',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`coordinator not online:\n${log.join('')}`)), 15000);
      const onData = (b: Buffer) => {
        log.push(b.toString());
        if (/"msg":"online"/.test(b.toString())) { clearTimeout(timer); resolve(); }
      };
      child.stdout?.on('data', onData);
      child.stderr?.on('data', onData);
      child.once('exit', (code) => reject(new Error(`coordinator exited ${code}:\n${log.join('')}`)));
    });
  });

  after(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    for (const p of Object.values(peers)) await p.agent.stop().catch(() => undefined);
  });

  beforeEach(() => {
    Object.assign(world, { a: 'answer', b: 'answer', kb: 'store' });
    world.candidates = [peers['specialist-a']?.agent.self.jid as string, peers['specialist-b']?.agent.self.jid as string];
  });

  /** Envelopes `account` received in conversation `cid`, as "PERFORMATIVE type/key". */
  const received = (account: string, cid: string) => (peers[account]?.telemetry.records ?? [])
    .filter((r) => r.direction === 'in' && r.env?.conversation_id === cid).map((r) => r.env as Envelope);

  /** The Coordinator's note of what the KB did with an answer that went ahead of STORED, if recorded. */
  const kbAfterAnswer = (cid: string): string | undefined => {
    const db = openDb(path.join(inst.cfg.home, 'telemetry', 'Coordinator.sqlite'), { readonly: true });
    try {
      const row = db.prepare("SELECT body FROM envelopes WHERE conversation_id = ? AND direction = 'note' AND decision = 'kb-after-answer'").get(cid) as { body: string } | undefined;
      return row ? (JSON.parse(row.body) as { kb?: string }).kb : undefined;
    } finally {
      db.close();
    }
  };

  async function ask(text: string): Promise<{ request: Envelope; answer: Envelope; ms: number }> {
    const presenter = peers.presenter?.agent as Agent;
    const request = makeEnvelope({
      performative: 'REQUEST', sender: 'Presenter', receiver: 'Coordinator', conversation_id: newConversationId(),
      content: { type: 'USER_MSG', text, attachments: [], user: USER },
    });
    const t0 = performance.now();
    const answer = await new Promise<Envelope>((done) => presenter.router.start(`${request.conversation_id}/ask`, asker, { request, done }));
    return { request, answer, ms: performance.now() - t0 };
  }

  it('answers end to end: DF → specialist-a → KB STORED → PRESENTER_REPLY in one conversation', async () => {
    const { request, answer, ms } = await ask('What is six times seven?');
    const cid = request.conversation_id;
    expect(answer).to.include({ performative: 'INFORM', sender: 'Coordinator', conversation_id: cid, in_reply_to: request.reply_with });
    expect(answer.content).to.deep.equal({ type: 'PRESENTER_REPLY', text: 'specialist-a says 42', rich: { answered_by: 'specialist-a', kb: 'stored' } });
    const [need] = received('registry', cid);
    expect(need?.content).to.deep.equal({ need: 'ASK_EXPERT', hint: 'What is six times seven?' });
    const [askA] = received('specialist-a', cid);
    expect(askA?.content).to.deep.equal({ type: 'ASK_EXPERT', args: { question: 'What is six times seven?' }, context_ref: { session_id: cid } });
    expect(received('specialist-b', cid)).to.have.length(0);
    const [store] = received('kb', cid);
    expect(store?.content.fact).to.deep.include({ session_id: cid, slot: 'answer', confidence: 0.8, subject: USER });
    // Warm path: 5 more questions one after another (4 hops and back through ejabberd each).
    // The KB has stored the first fact, so these answers go ahead of STORED (kb-health.ts).
    const warm: number[] = [];
    for (let i = 0; i < 5; i++) {
      const w = await ask(`What is ${i} times seven?`);
      warm.push(w.ms);
      expect(w.answer.content.rich).to.deep.equal({ answered_by: 'specialist-a', kb: 'pending' });
      // Its STORE_FACT still reaches the KB (the answer did not wait for it).
      await until(() => received('kb', w.request.conversation_id).some((e) => e.content.type === 'STORE_FACT'), 'the STORE_FACT at the KB', 5000);
    }
    warm.sort((x, y) => x - y);
    console.log(`      USER_MSG → PRESENTER_REPLY: first ${ms.toFixed(1)} ms, warm median ${warm[2]?.toFixed(1)} ms`);
  });

  it('REFUSE → asks the next candidate, and notes the retry in its telemetry', async () => {
    world.a = 'refuse';
    const { request, answer } = await ask('Who wrote Hamlet?');
    expect(answer.content.rich).to.have.property('answered_by', 'specialist-b');
    expect(received('specialist-a', request.conversation_id).map((e) => e.performative)).to.deep.equal(['REQUEST']);
    await untilRecorded(inst.cfg.home, 'Coordinator', [request.conversation_id]);
    const db = openDb(path.join(inst.cfg.home, 'telemetry', 'Coordinator.sqlite'), { readonly: true });
    try {
      const notes = db.prepare("SELECT decision, body FROM envelopes WHERE conversation_id = ? AND direction = 'note'").all(request.conversation_id) as Array<{ decision: string; body: string }>;
      expect(notes.find((n) => n.decision === 'retry-next')?.body).to.equal(JSON.stringify({ candidate: 'specialist-a', cause: 'refused busy' }));
    } finally {
      db.close();
    }
  });

  it('AGREE timeout → CANCEL to the silent specialist, then the next candidate answers', async () => {
    world.a = 'silent';
    const { request, answer, ms } = await ask('How tall is Everest?');
    expect(answer.content.rich).to.have.property('answered_by', 'specialist-b');
    expect(ms).to.be.at.least(450);
    const [askA, cancel] = received('specialist-a', request.conversation_id);
    expect(cancel).to.include({ performative: 'CANCEL', in_reply_to: askA?.reply_with });
    console.log(`      AGREE timeout (500 ms) then answer: ${ms.toFixed(0)} ms`);
  });

  it('NO_CANDIDATE when every candidate refuses, and when the DF lists nobody', async () => {
    Object.assign(world, { a: 'refuse', b: 'refuse' });
    const refused = await ask('Anyone?');
    expect(refused.answer).to.include({ performative: 'FAILURE', in_reply_to: refused.request.reply_with });
    expect(refused.answer.content.reason).to.equal('NO_CANDIDATE');
    expect(refused.answer.content.detail).to.match(/busy right now \(specialist-a, specialist-b\)/);
    world.candidates = [];
    const empty = await ask('Anyone at all?');
    expect(empty.answer.content).to.include({ reason: 'NO_CANDIDATE' });
  });

  it('KB silent → the person still gets the answer, marked KB_UNAVAILABLE once the KB is known to be silent', async () => {
    // While the KB kept the last fact, an answer goes ahead of STORED (rich.kb "pending"): the
    // first answer after the KB fell silent does. Its STORE_FACT then times out (500 ms), and
    // from then on answers wait for the KB again, so the person is told it did not keep them.
    world.kb = 'silent';
    const first = await ask('Who wrote Hamlet?');
    const firstKb = (first.answer.content.rich as { kb?: string }).kb;
    if (firstKb === 'pending') {
      // Went ahead (the KB had stored the previous tests' facts): its STORE_FACT times out and is noted.
      await until(() => kbAfterAnswer(first.request.conversation_id) === 'KB_UNAVAILABLE', 'the late KB outcome noted', 5000);
    } else {
      expect(firstKb, 'run alone, the KB\'s health is unknown: the first answer waits').to.equal('KB_UNAVAILABLE');
    }
    const { answer, ms } = await ask('Capital of France?');
    expect(answer.content.rich).to.deep.equal({ answered_by: 'specialist-a', kb: 'KB_UNAVAILABLE' });
    expect(answer.content.text).to.equal('specialist-a says 42');
    expect(ms).to.be.at.least(450);
    // The KB is back: the next answer waits for its STORED once, then answers go ahead again.
    world.kb = 'store';
    expect((await ask('Capital of Spain?')).answer.content.rich).to.deep.equal({ answered_by: 'specialist-a', kb: 'stored' });
    expect((await ask('Capital of Italy?')).answer.content.rich).to.deep.equal({ answered_by: 'specialist-a', kb: 'pending' });
  });
});
