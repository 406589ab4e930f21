import { expect } from 'chai';
import type { AgentProfile } from '../../shared/contracts/index.js';
import { identify } from '../../shared/runtime/index.js';
import { userMsgFactory } from '../../agents/coordinator/factory.js';
import { helpMachine } from '../../agents/coordinator/help.js';
import { classifyIntent } from '../../agents/coordinator/intent.js';
import { expertMachine } from '../../agents/coordinator/expert/machine.js';
import { recallMachine } from '../../agents/coordinator/recall.js';
import { DOMAIN, harness, T, USER, userMsg } from './coordinator-harness.js';

const MATH: AgentProfile = {
  jid: 'specialist-math@localhost', name: 'specialist-math', version: '1.0.0', capabilities: ['ASK_EXPERT'],
  description: 'Arithmetic and unit conversions', examples: ['what is 2+2?', 'convert 3 km to miles'],
};
const TS = '2025-11-07T19:55:00.000Z';

describe('Coordinator [intent] classifies the text', () => {
  it('recognises help in its usual forms', () => {
    for (const t of ['help', ' Help! ', '?', 'what can you do?', 'What can I ask you', '/help']) expect(classifyIntent(t), t).to.deep.equal({ kind: 'help' });
  });

  it('recognises recall questions and extracts the topic', () => {
    expect(classifyIntent('What did you tell me about the moon?')).to.deep.equal({ kind: 'recall', topic: 'the moon' });
    expect(classifyIntent('what did you say about Paris')).to.deep.equal({ kind: 'recall', topic: 'Paris' });
    expect(classifyIntent('Remind me about "tax rates".')).to.deep.equal({ kind: 'recall', topic: 'tax rates' });
  });

  it('treats everything else as a question for an expert', () => {
    for (const t of ['How far is the moon?', 'help me convert 3 km', 'what did you tell me', 'helpful tips?']) {
      expect(classifyIntent(t).kind, t).to.equal('ask');
    }
  });

  it('the USER_MSG factory opens the machine for the intent', () => {
    const f = userMsgFactory({ self: 'Coordinator', domain: DOMAIN, timeouts: T });
    const from = identify('presenter@localhost', DOMAIN);
    expect(f(userMsg('help'), from).machine).to.equal(helpMachine);
    const recall = f(userMsg('remind me about Paris'), from);
    expect(recall.machine).to.equal(recallMachine);
    expect(recall.input).to.include({ topic: 'Paris', self: 'Coordinator', domain: DOMAIN });
    expect(f(userMsg('2+2?'), from).machine).to.equal(expertMachine);
  });
});

describe('Coordinator [help] lists live capabilities from the DF', () => {
  it('QUERY-REF DESCRIBE → PRESENTER_REPLY with names, descriptions, examples and built-ins', () => {
    const request = userMsg('help');
    const h = harness(helpMachine, request);
    const q = h.last();
    expect(q).to.include({ performative: 'QUERY-REF', receiver: 'Registry', conversation_id: request.conversation_id });
    expect(q.content).to.deep.equal({ type: 'DESCRIBE' });
    h.reply(q, 'INFORM', { type: 'DIRECTORY', agents: [{ profile: MATH, registered_at: TS, last_seen: TS }] });
    const reply = h.last();
    expect(reply).to.include({ performative: 'INFORM', in_reply_to: request.reply_with });
    const text = reply.content.text as string;
    expect(text).to.include('specialist-math — Arithmetic and unit conversions');
    expect(text).to.include('"what is 2+2?", "convert 3 km to miles"');
    for (const c of ['help', 'new', 'what did you tell me about X?']) expect(text).to.include(`• ${c} — `);
    expect(reply.content.rich).to.deep.include({ kind: 'help', directory: 'ok', commands: ['help', 'new', 'what did you tell me about X?', 'my time zone is Europe/Berlin', 'session start <title>'] });
    expect(h.isDone()).to.equal(true);
  });

  it('still lists the built-in commands when the Registry is silent', () => {
    const h = harness(helpMachine, userMsg('help'));
    h.clock.increment(T.registryTimeoutMs);
    const reply = h.last();
    expect(reply.content.type).to.equal('PRESENTER_REPLY');
    expect(reply.content.text).to.match(/could not reach the directory[\s\S]*• help — /);
    expect(reply.content.rich).to.deep.include({ directory: 'unavailable' });
  });
});

describe('Coordinator [recall] "what did you tell me about X?"', () => {
  const recall = (topic: string, user?: string) => {
    const request = userMsg(`what did you tell me about ${topic}?`, user);
    const h = harness(recallMachine, request, { topic });
    return { ...h, request, query: h.last() };
  };

  it('asks the KB for the person\'s facts about X and summarises them newest first', () => {
    const h = recall('the moon');
    expect(h.query).to.include({ performative: 'QUERY-REF', receiver: 'KB' });
    expect(h.query.content).to.deep.equal({ type: 'GET_FACTS', filter: { subject: USER, text: 'the moon', limit: 5 } });
    h.reply(h.query, 'INFORM', {
      facts: [
        { slot: 'answer', value: { question: 'How far is the moon?', answer: 'About 384,400 km.', answered_by: 'specialist-astro' }, confidence: 0.9, ts: TS },
        { slot: 'answer', value: { question: 'Is the moon a planet?', answer: 'No, a satellite.', answered_by: 'specialist-astro' }, confidence: 0.9, ts: '2025-11-08T08:00:00.000Z' },
      ],
    });
    const reply = h.last();
    expect(reply).to.include({ performative: 'INFORM', in_reply_to: h.request.reply_with });
    expect(reply.content.text).to.equal([
      'Here is what I told you about the moon:',
      '• 2025-11-08 08:00 UTC: you asked "Is the moon a planet?" and I answered "No, a satellite." (specialist-astro)',
      '• 2025-11-07 19:55 UTC: you asked "How far is the moon?" and I answered "About 384,400 km." (specialist-astro)',
    ].join('\n'));
    expect(reply.content.rich).to.deep.equal({ kind: 'recall', topic: 'the moon', count: 2 });
  });

  it('"what did I ask you before?": the latest answers on anything (no text filter)', () => {
    for (const q of ['what did I ask you before?', 'What have I asked so far', 'history', 'show my chat history', 'what did we talk about?']) {
      expect(classifyIntent(q), q).to.deep.equal({ kind: 'recall', topic: '' });
    }
    expect(classifyIntent('what did I ask bob to do?').kind).to.not.equal('recall');
    const h = recall('');
    expect(h.query.content).to.deep.equal({ type: 'GET_FACTS', filter: { subject: USER, limit: 5 } });
    h.reply(h.query, 'INFORM', { facts: [{ slot: 'answer', value: { question: 'what is 2+2?', answer: '4', answered_by: 'specialist-math' }, confidence: 1, ts: TS }] });
    expect(h.last().content.text).to.equal('Here is what I told you last:\n• 2025-11-07 19:55 UTC: you asked "what is 2+2?" and I answered "4" (specialist-math)');
    const none = recall('');
    none.reply(none.query, 'INFORM', { facts: [] });
    expect(none.last().content.text).to.equal('You have not asked me anything yet.');
  });

  it('says it has told nothing about X when the KB has no match', () => {
    const h = recall('Paris');
    h.reply(h.query, 'INFORM', { facts: [] });
    expect(h.last().content.text).to.equal('I have not told you anything about Paris.');
  });

  it('scopes to the conversation when the USER_MSG names no person', () => {
    const h = recall('Paris', '');
    expect(h.query.content.filter).to.deep.equal({ session_id: h.request.conversation_id, text: 'Paris', limit: 5 });
  });

  it('FAILURE KB_UNAVAILABLE when the KB does not answer', () => {
    const h = recall('Paris');
    h.clock.increment(T.kbTimeoutMs - 1);
    expect(h.sent).to.have.length(1);
    h.clock.increment(1);
    const f = h.last();
    expect(f).to.include({ performative: 'FAILURE', receiver: 'Presenter', in_reply_to: h.request.reply_with });
    expect(f.content).to.deep.equal({ reason: 'KB_UNAVAILABLE', detail: 'I cannot look up what I told you about Paris: the knowledge base did not respond.' });
    expect(h.isDone()).to.equal(true);
  });
});
