// The Presenter as a real process against a real ejabberd: people are plain XMPP clients (as
// Gajim or Dino would be), the Coordinator is played in-process by the test on its own account.
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { xml } from '@xmpp/client';
import type { Element } from '@xmpp/xml';
import { expect } from 'chai';
import { emit, setup } from 'xstate';
import { type Envelope, replyTo } from '../../shared/acl/index.js';
import { contracts } from '../../shared/contracts/index.js';
import { silentLogger } from '../../shared/log/index.js';
import { Agent, type InboundEvent, signingFor, MemoryTelemetry } from '../../shared/runtime/index.js';
import { repoRoot } from '../../shared/runtime/repo-root.js';
import { clientTransport, type InboundMessage, type XmppTransport } from '../../shared/transport/index.js';
import { sharedInstance, type TestInstance } from '../support/ejabberd.js';
import { until } from '../support/wait.js';

const TIMEOUT_MS = 1500;

/** What the fake Coordinator saw: every USER_MSG and every CANCEL. */
const seen: { userMsgs: Envelope[]; cancels: Envelope[] } = { userMsgs: [], cancels: [] };

// Answers USER_MSG: "fail…" → FAILURE NO_CANDIDATE, "never…" → silence until CANCEL, else a reply
// naming the question and the person, so a mixed-up answer would show.
const coordinatorMachine = setup({
  types: {} as { input: { request: Envelope }; context: { request: Envelope }; events: InboundEvent },
  guards: {
    silent: ({ context }) => text(context.request).startsWith('never'),
    failing: ({ context }) => text(context.request).startsWith('fail'),
  },
}).createMachine({
  context: ({ input }) => ({ request: input.request }),
  initial: 'decide',
  states: {
    decide: { always: [{ guard: 'silent', target: 'silent' }, { guard: 'failing', target: 'failing' }, { target: 'answer' }] },
    answer: {
      entry: emit(({ context }) => ({ type: 'send' as const, envelope: replyTo(context.request, { performative: 'INFORM',
        content: { type: 'PRESENTER_REPLY', text: `answer to "${text(context.request)}" for ${user(context.request)}`, rich: { kb: 'stored' } } }) })),
      always: 'done',
    },
    failing: {
      entry: emit(({ context }) => ({ type: 'send' as const, envelope: replyTo(context.request, { performative: 'FAILURE',
        content: { reason: 'NO_CANDIDATE', detail: 'all candidates refused' } }) })),
      always: 'done',
    },
    silent: { on: { inbound: { target: 'done', actions: ({ event }) => { seen.cancels.push(event.envelope); } } } },
    done: { type: 'final' },
  },
});
const text = (e: Envelope) => String((e.content as { text?: unknown }).text);
const user = (e: Envelope) => String((e.content as { user?: unknown }).user);

/** A person on a plain XMPP client, recording everything it receives. */
class Person {
  readonly messages: InboundMessage[] = [];
  readonly presences: Element[] = [];
  constructor(readonly jid: string, readonly t: XmppTransport) {
    t.onMessage((m) => this.messages.push(m));
    t.onPresence((p) => this.presences.push(p));
  }
  say(body: string, thread?: string): void {
    this.t.send({ to: presenterJid, type: 'chat', body, ...(thread ? { thread } : {}), chatState: 'active' });
  }
  answers(): InboundMessage[] {
    return this.messages.filter((m) => m.body !== undefined && m.fromBare === presenterJid);
  }
  async nextAnswer(after: number): Promise<InboundMessage> {
    await until(() => this.answers().length > after, `answer ${after + 1} from the Presenter`, 5000, 5);
    return this.answers()[after] as InboundMessage;
  }
}

let presenterJid = '';

describe('Presenter [e2e] people chat through a real ejabberd', function () {
  this.timeout(30000);
  let inst: TestInstance;
  let presenter: ChildProcess;
  let coordinator: Agent;
  const people: Record<string, Person> = {};

  async function person(name: string): Promise<Person> {
    const { jid, password } = await inst.account(name);
    const t = clientTransport({ jid, password, host: inst.cfg.host, port: inst.cfg.c2sPort, logger: silentLogger(), resource: 'gajim', priority: 0 });
    await t.start();
    return (people[name] = new Person(jid, t));
  }

  before(async () => {
    inst = await sharedInstance();
    contracts(); // the in-process Coordinator compiles its validators before the clock starts
    presenterJid = `presenter@${inst.cfg.domain}`;
    const c = await inst.account('coordinator');
    coordinator = new Agent({ jid: c.jid, domain: inst.cfg.domain, logger: silentLogger(), telemetry: new MemoryTelemetry(), signing: signingFor(inst.cfg, 'coordinator'),
      transport: clientTransport({ ...c, host: inst.cfg.host, port: inst.cfg.c2sPort, logger: silentLogger() }) });
    coordinator.router.on('USER_MSG', (request) => {
      seen.userMsgs.push(request);
      return { machine: coordinatorMachine, input: { request } };
    });
    await coordinator.start();
    const alice = await inst.account('alice');
    const bob = await inst.account('bob');
    presenter = spawn(process.execPath, [path.join(repoRoot(), 'dist/agents/presenter/main.js')], {
      env: { ...process.env, ...inst.env, PARLEY_PRESENTER_ALLOW: `${alice.jid},${bob.jid}`, PARLEY_PRESENTER_TIMEOUT_MS: String(TIMEOUT_MS) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const lines = readline.createInterface({ input: presenter.stdout as NodeJS.ReadableStream });
    await new Promise<void>((resolve, reject) => {
      lines.on('line', (l) => { if (l.includes('"msg":"online"')) resolve(); });
      presenter.once('exit', (code) => reject(new Error(`presenter exited ${code}`)));
    });
    await Promise.all([person('alice'), person('bob'), person('mallory')]);
  });

  after(async () => {
    presenter?.kill('SIGTERM');
    for (const p of Object.values(people)) await p.t.stop();
    await coordinator?.stop();
  });

  it('approves an allowed person\'s subscription, subscribes back and shows itself online (RFC 6121 §3)', async () => {
    const alice = people.alice as Person;
    await alice.t.sendRaw(xml('presence', { to: presenterJid, type: 'subscribe' }));
    const from = (p: Element, type?: string) => String(p.attrs.from).startsWith(presenterJid) && p.attrs.type === type;
    await until(() => alice.presences.some((p) => from(p, 'subscribed')) && alice.presences.some((p) => from(p, 'subscribe')), 'subscribed and subscribe from the Presenter', 5000, 5);
    await alice.t.sendRaw(xml('presence', { to: presenterJid, type: 'subscribed' }));
    await until(() => alice.presences.some((p) => from(p, undefined)), "the Presenter's available presence", 5000, 5);
  });

  it('refuses a person outside PARLEY_PRESENTER_ALLOW: unsubscribed, a polite text, nothing forwarded', async () => {
    const mallory = people.mallory as Person;
    await mallory.t.sendRaw(xml('presence', { to: presenterJid, type: 'subscribe' }));
    await until(() => mallory.presences.some((p) => p.attrs.type === 'unsubscribed'), 'unsubscribed for mallory', 5000, 5);
    mallory.say('what is 2+2?');
    const refusal = await mallory.nextAnswer(0);
    expect(refusal.body).to.equal('Sorry, this assistant is not available to your account.');
    expect(seen.userMsgs.map(user)).not.to.include(mallory.jid);
  });

  it('answers a question in the person\'s own thread, composing first, as USER_MSG to the Coordinator', async () => {
    const alice = people.alice as Person;
    const t0 = performance.now();
    alice.say('what is 2+2?', 'alice-thread-1');
    const answer = await alice.nextAnswer(0);
    const ms = performance.now() - t0;
    expect(answer).to.include({ body: `answer to "what is 2+2?" for ${alice.jid}`, thread: 'alice-thread-1', chatState: 'active', type: 'chat' });
    const states = alice.messages.filter((m) => m.thread === 'alice-thread-1').map((m) => m.chatState);
    expect(states).to.deep.equal(['composing', 'active']);
    const req = seen.userMsgs.find((e) => text(e) === 'what is 2+2?' && user(e) === alice.jid) as Envelope;
    expect(req).to.include({ conversation_id: 'alice-thread-1', sender: 'Presenter', receiver: 'Coordinator' });
    expect(req.content).to.deep.include({ attachments: [] });
    console.log(`      first question → answer through Presenter + Coordinator: ${ms.toFixed(1)} ms`);
  });

  it('a line sent again with its id is answered once; a different line under a reused id is answered too', async () => {
    const bob = people.bob as Person;
    const asked = (q: string) => seen.userMsgs.filter((e) => text(e) === q && user(e) === bob.jid).length;
    const line = (id: string, body: string) => bob.t.send({ to: presenterJid, type: 'chat', id, thread: 'bob-ids', body, chatState: 'active' });
    const n = bob.answers().length;
    line('m1', 'what is 3+3?');
    line('m1', 'what is 3+3?'); // a XEP-0198 resend: the same stanza
    line('m1', 'and 4+4?'); // a client that counts its ids per connection
    await until(() => bob.answers().length >= n + 2, 'two answers for bob', 5000, 5);
    expect(bob.answers().slice(n).map((m) => m.body)).to.have.members([`answer to "what is 3+3?" for ${bob.jid}`, `answer to "and 4+4?" for ${bob.jid}`]);
    expect([asked('what is 3+3?'), asked('and 4+4?')]).to.deep.equal([1, 1]);
    // Nothing more comes for the copy: a line after it is the next answer.
    line('m2', 'what is 5+5?');
    expect((await bob.nextAnswer(n + 2)).body).to.equal(`answer to "what is 5+5?" for ${bob.jid}`);
    expect(asked('what is 3+3?')).to.equal(1);
  });

  it('answers sequential questions quickly (chat → USER_MSG → PRESENTER_REPLY → chat)', async () => {
    const alice = people.alice as Person;
    const times: number[] = [];
    for (let i = 0; i < 20; i += 1) {
      const n = alice.answers().length;
      const t0 = performance.now();
      alice.say(`seq ${i}`, 'alice-seq');
      expect((await alice.nextAnswer(n)).body).to.equal(`answer to "seq ${i}" for ${alice.jid}`);
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    const p50 = times[10] as number;
    console.log(`      20 sequential questions: p50 ${p50.toFixed(1)} ms, max ${(times[19] as number).toFixed(1)} ms`);
    expect(p50).to.be.below(100);
  });

  it('keeps two people asking at once apart: each reads only their own answer', async () => {
    const alice = people.alice as Person;
    const bob = people.bob as Person;
    const [a0, b0] = [alice.answers().length, bob.answers().length];
    for (let i = 0; i < 5; i += 1) {
      alice.say(`alice question ${i}`);
      bob.say(`bob question ${i}`);
    }
    await until(() => alice.answers().length === a0 + 5 && bob.answers().length === b0 + 5, 'five answers each', 5000, 5);
    for (const [p, who] of [[alice, 'alice'], [bob, 'bob']] as const) {
      const got = p.answers().slice(-5);
      expect(got.map((m) => m.body).sort()).to.deep.equal([0, 1, 2, 3, 4].map((i) => `answer to "${who} question ${i}" for ${p.jid}`));
      expect(new Set(got.map((m) => m.thread)).size).to.equal(1); // one conversation per person
    }
    expect(alice.answers().at(-1)?.thread).not.to.equal(bob.answers().at(-1)?.thread);
  });

  it('turns FAILURE NO_CANDIDATE into the sentence the Coordinator wrote for the person (its detail)', async () => {
    const bob = people.bob as Person;
    const n = bob.answers().length;
    bob.say('fail please');
    expect((await bob.nextAnswer(n)).body).to.equal('all candidates refused');
  });

  it('apologises after PARLEY_PRESENTER_TIMEOUT_MS and sends the Coordinator a CANCEL', async () => {
    const alice = people.alice as Person;
    const n = alice.answers().length;
    const t0 = Date.now();
    alice.say('never mind me', 'alice-thread-2');
    const answer = await alice.nextAnswer(n);
    expect(answer).to.include({ body: 'Sorry, no answer arrived in time.', thread: 'alice-thread-2' });
    expect(Date.now() - t0).to.be.within(TIMEOUT_MS - 50, TIMEOUT_MS + 2000);
    await until(() => seen.cancels.length === 1, 'one CANCEL at the Coordinator', 5000, 5);
    const req = seen.userMsgs.find((e) => text(e) === 'never mind me') as Envelope;
    expect(seen.cancels[0]).to.include({ performative: 'CANCEL', in_reply_to: req.reply_with, conversation_id: 'alice-thread-2' });
  });

  it('forwards "help" like any text and answers "new" itself with a new conversation', async () => {
    const bob = people.bob as Person;
    const n = bob.answers().length;
    bob.say('help');
    await bob.nextAnswer(n);
    const before = seen.userMsgs.find((e) => text(e) === 'help' && user(e) === bob.jid) as Envelope;
    bob.say('new');
    expect((await bob.nextAnswer(n + 1)).body).to.equal('Started a new conversation.');
    bob.say('after new');
    await bob.nextAnswer(n + 2);
    const after = seen.userMsgs.find((e) => text(e) === 'after new') as Envelope;
    expect(after.conversation_id).to.match(/^sess-/).and.not.equal(before.conversation_id);
    expect(bob.answers().at(-1)?.thread).to.equal(after.conversation_id);
  });
});
