import { expect } from 'chai';
import xml from '@xmpp/xml';
import { createActor, SimulatedClock } from 'xstate';
import { type Envelope, replyTo } from '../../shared/acl/index.js';
import { validateEnvelope } from '../../shared/contracts/index.js';
import type { ExchangeEmitted } from '../../shared/runtime/index.js';
import type { InboundMessage } from '../../shared/transport/index.js';
import { ChatDesk } from '../../agents/presenter/chat.js';
import { type ChatEmitted, type QuestionInput, questionMachine } from '../../agents/presenter/machine.js';
import { TEXT } from '../../agents/presenter/render.js';
import { ConversationIds } from '../../agents/presenter/conversation-ids.js';
import { allowList } from '../../agents/presenter/subscriptions.js';

function line(from: string, body: string, extra: Partial<InboundMessage> = {}): InboundMessage {
  const bareFrom = from.split('/')[0] as string;
  return { from, fromBare: bareFrom, to: 'presenter@localhost', toBare: 'presenter@localhost', type: 'chat', body,
    delayed: false, stanza: xml('message'), receivedAt: 0, ...extra };
}

/** A desk whose question actors run on a SimulatedClock, with the Coordinator played by the test. */
function desk(allow = ['localhost']) {
  const clock = new SimulatedClock();
  const said: ChatEmitted[] = [];
  const requests: Envelope[] = [];
  const actors = new Map<string, ReturnType<typeof createActor<typeof questionMachine>>>();
  let now = 0;
  const d = new ChatDesk({
    allow: allowList(allow), conversationIds: new ConversationIds(60000), timeoutMs: 5000, self: 'Presenter', now: () => now,
    say: (l) => said.push(l),
    ask: (input: QuestionInput, onChat) => {
      const actor = createActor(questionMachine, { input, clock });
      actor.on('send', (e: ExchangeEmitted) => { if (e.type === 'send') requests.push(e.envelope); });
      actor.on('chat', onChat);
      actor.start();
      actor.send({ type: 'START' });
      actors.set(input.request.reply_with, actor);
    },
  });
  const reply = (req: Envelope, text: string) => actors.get(req.reply_with)?.send({ type: 'inbound',
    envelope: replyTo(req, { performative: 'INFORM', content: { type: 'PRESENTER_REPLY', text } }) });
  return { d, said, requests, reply, clock, tick: (ms: number) => { now += ms; } };
}

describe('Presenter [chat] lines from people', () => {
  it('forwards a question as a valid USER_MSG carrying the person\'s bare JID', () => {
    const { d, requests } = desk();
    expect(d.handle(line('alice@localhost/gajim', '  what is 2+2?  '))).to.equal('asked');
    expect(validateEnvelope(requests[0])).to.include({ ok: true });
    expect(requests[0]?.content).to.include({ type: 'USER_MSG', text: 'what is 2+2?', user: 'alice@localhost' });
  });

  it('ignores empty and whitespace-only lines and groupchat', () => {
    const { d, said, requests } = desk();
    expect(d.handle(line('alice@localhost/gajim', ' \n\t '))).to.equal('ignored');
    expect(d.handle(line('alice@localhost/gajim', 'hi', { type: 'groupchat' }))).to.equal('ignored');
    expect(said).to.deep.equal([]);
    expect(requests).to.deep.equal([]);
  });

  it('answers a line over 16000 characters with "too long" and forwards nothing', () => {
    const { d, said, requests } = desk();
    expect(d.handle(line('alice@localhost/gajim', 'x'.repeat(16001)))).to.equal('too-long');
    expect(said[0]?.text).to.match(/too long \(16001 characters; the limit is 16000\)/);
    expect(requests).to.have.length(0);
    expect(d.handle(line('alice@localhost/gajim', 'x'.repeat(16000)))).to.equal('asked');
  });

  it('refuses a person outside the allow list politely and forwards nothing', () => {
    const { d, said, requests } = desk(['alice@localhost']);
    expect(d.handle(line('mallory@localhost/x', 'hello', { thread: 't9' }))).to.equal('refused');
    expect(said).to.deep.equal([{ type: 'chat', to: 'mallory@localhost/x', text: TEXT.notAllowed, chatState: 'active', thread: 't9' }]);
    expect(requests).to.have.length(0);
  });

  it('"new" starts a new conversation: the next question has another conversation_id', () => {
    const { d, said, requests } = desk();
    d.handle(line('alice@localhost/gajim', 'first'));
    expect(d.handle(line('alice@localhost/gajim', 'NEW'))).to.equal('renewed');
    expect(said.at(-1)?.text).to.equal(TEXT.newConversation);
    d.handle(line('alice@localhost/gajim', 'second'));
    expect(requests[1]?.conversation_id).to.match(/^sess-/).and.not.equal(requests[0]?.conversation_id);
    expect(said.at(-1)?.thread).to.equal(requests[1]?.conversation_id);
  });

  it('two questions in one conversation get two answers, in arrival order, composing until the last', () => {
    const { d, said, requests, reply } = desk();
    d.handle(line('alice@localhost/gajim', 'slow one'));
    d.handle(line('alice@localhost/gajim', 'fast one'));
    expect(requests[0]?.conversation_id).to.equal(requests[1]?.conversation_id);
    reply(requests[1] as Envelope, 'fast answer');
    reply(requests[0] as Envelope, 'slow answer');
    expect(said.map((s) => `${s.chatState}:${s.text ?? ''}`)).to.deep.equal([
      'composing:', 'composing:', 'active:fast answer', 'composing:', 'active:slow answer',
    ]);
  });

  it('never sends a person\'s answer to someone else', () => {
    const { d, said, requests, reply } = desk();
    d.handle(line('alice@localhost/gajim', 'alice asks'));
    d.handle(line('bob@localhost/dino', 'bob asks'));
    expect(requests[0]?.conversation_id).not.to.equal(requests[1]?.conversation_id);
    reply(requests[1] as Envelope, 'for bob');
    reply(requests[0] as Envelope, 'for alice');
    const answers = said.filter((s) => s.text);
    expect(answers).to.deep.include({ type: 'chat', to: 'bob@localhost/dino', thread: requests[1]?.conversation_id, chatState: 'active', text: 'for bob' });
    expect(answers.find((s) => s.text === 'for alice')?.to).to.equal('alice@localhost/gajim');
  });

  it('idle silence renews the conversation id for the next question', () => {
    const { d, requests, tick } = desk();
    d.handle(line('alice@localhost/gajim', 'one'));
    tick(60000);
    d.handle(line('alice@localhost/gajim', 'two'));
    expect(requests[1]?.conversation_id).not.to.equal(requests[0]?.conversation_id);
  });
});
