import { expect } from 'chai';
import { createActor, SimulatedClock } from 'xstate';
import { type Envelope, replyTo } from '../../shared/acl/index.js';
import { validateEnvelope } from '../../shared/contracts/index.js';
import type { ExchangeEmitted } from '../../shared/runtime/index.js';
import { type ChatEmitted, questionKey, questionMachine, userMsg } from '../../agents/presenter/machine.js';
import { TEXT } from '../../agents/presenter/render.js';

const ALICE = 'alice@localhost/gajim';

function run(timeoutMs = 5000) {
  const clock = new SimulatedClock();
  const request = userMsg({ text: 'what is 2+2?', user: 'alice@localhost', conversationId: 'sess-1' });
  const actor = createActor(questionMachine, { input: { request, replyTo: ALICE, thread: 'sess-1', timeoutMs }, clock });
  const sent: Envelope[] = [];
  const chat: ChatEmitted[] = [];
  const notes: string[] = [];
  actor.on('send', (e: ExchangeEmitted) => { if (e.type === 'send') sent.push(e.envelope); });
  actor.on('note', (e: ExchangeEmitted) => { if (e.type === 'note') notes.push(e.decision); });
  actor.on('chat', (e: ChatEmitted) => chat.push(e));
  actor.start();
  actor.send({ type: 'START' });
  const answer = (env: Envelope) => actor.send({ type: 'inbound', envelope: env });
  return { actor, clock, request, sent, chat, notes, answer };
}

describe('Presenter [question] one actor per question', () => {
  it('sends a USER_MSG that validates against the contract, keyed by conversation_id/reply_with', () => {
    const { sent, request } = run();
    expect(sent).to.have.length(1);
    const env = sent[0] as Envelope;
    expect(validateEnvelope(env)).to.include({ ok: true });
    expect(env).to.include({ performative: 'REQUEST', sender: 'Presenter', receiver: 'Coordinator', conversation_id: 'sess-1' });
    expect(env.content).to.deep.equal({ type: 'USER_MSG', text: 'what is 2+2?', attachments: [], user: 'alice@localhost' });
    expect(questionKey(request)).to.equal(`sess-1/${request.reply_with}`);
  });

  it('shows composing while the Coordinator works, then the reply text with active', () => {
    const { actor, chat, request, answer } = run();
    expect(chat).to.deep.equal([{ type: 'chat', to: ALICE, thread: 'sess-1', chatState: 'composing' }]);
    answer(replyTo(request, { performative: 'INFORM', content: { type: 'PRESENTER_REPLY', text: '4', rich: { kb: 'stored' } } }));
    expect(chat[1]).to.deep.equal({ type: 'chat', to: ALICE, thread: 'sess-1', chatState: 'active', text: '4' });
    expect(actor.getSnapshot().status).to.equal('done');
  });

  it('adds a note when the answer could not be stored in the KB', () => {
    const { chat, request, answer } = run();
    answer(replyTo(request, { performative: 'INFORM', content: { type: 'PRESENTER_REPLY', text: '4', rich: { kb: 'KB_UNAVAILABLE' } } }));
    expect(chat[1]?.text).to.equal(`4\n${TEXT.kbNote}`);
  });

  it('turns a FAILURE NO_CANDIDATE into its detail, the sentence the Coordinator wrote for the person', () => {
    const { chat, request, answer, notes } = run();
    answer(replyTo(request, { performative: 'FAILURE', content: { reason: 'NO_CANDIDATE', detail: 'all 2 candidates refused' } }));
    expect(chat[1]?.text).to.equal('all 2 candidates refused');
    expect(notes).to.include('answered: FAILURE');
  });

  it('keeps waiting through an AGREE and answers the INFORM that follows', () => {
    const { actor, chat, request, answer, notes } = run();
    answer(replyTo(request, { performative: 'AGREE', content: { status: 'accepted' } }));
    expect(actor.getSnapshot().value).to.equal('waiting');
    expect(notes).to.include('ignored: not an answer');
    answer(replyTo(request, { performative: 'INFORM', content: { type: 'PRESENTER_REPLY', text: 'done' } }));
    expect(chat.map((c) => c.text)).to.deep.equal([undefined, 'done']);
  });

  it('apologises and sends a valid CANCEL to the Coordinator when no answer arrives in time', () => {
    const { actor, clock, chat, sent, request } = run(5000);
    clock.increment(4999);
    expect(actor.getSnapshot().value).to.equal('waiting');
    clock.increment(1);
    expect(chat[1]).to.include({ text: TEXT.timeout, chatState: 'active', to: ALICE, thread: 'sess-1' });
    const cancel = sent[1] as Envelope;
    expect(cancel).to.include({ performative: 'CANCEL', receiver: 'Coordinator', conversation_id: 'sess-1', in_reply_to: request.reply_with });
    expect(validateEnvelope(cancel)).to.include({ ok: true });
    expect(actor.getSnapshot().status).to.equal('done');
  });

  it('sends nothing before START (so listeners can attach first)', () => {
    const request = userMsg({ text: 'hi', user: 'alice@localhost', conversationId: 'sess-2' });
    const actor = createActor(questionMachine, { input: { request, replyTo: ALICE, thread: 'sess-2', timeoutMs: 10 }, clock: new SimulatedClock() });
    const seen: unknown[] = [];
    actor.on('*', (e) => seen.push(e));
    actor.start();
    expect(seen).to.deep.equal([]);
  });
});
