import { expect } from 'chai';
import { makeEnvelope } from '../../shared/acl/index.js';
import { jidOfName } from '../../shared/runtime/index.js';
import { expertMachine, usableCandidates } from '../../agents/coordinator/expert/machine.js';
import { DOMAIN, harness, T, USER, userMsg } from './coordinator-harness.js';

const A = 'specialist-a@localhost';
const B = 'specialist-b@localhost';

/** Starts the expert flow for `text` and answers the DF lookup with `candidates`. */
function started(candidates: string[], text = 'How far is the moon?') {
  const request = userMsg(text);
  const h = harness(expertMachine, request);
  const lookup = h.last();
  h.reply(lookup, 'INFORM', { candidates });
  return { ...h, request, lookup };
}

const askTo = (h: ReturnType<typeof started>, name: string) => {
  const ask = h.last();
  expect(ask).to.include({ performative: 'REQUEST', receiver: name });
  return ask;
};

describe('Coordinator [happy path] USER_MSG → DF → specialist → KB → PRESENTER_REPLY', () => {
  it('sends the exact envelope sequence with one conversation_id and correct correlation', () => {
    const h = started([A, B]);
    const ask = askTo(h, 'specialist-a');
    const agree = h.reply(ask, 'AGREE', { status: 'accepted' });
    const result = h.reply(ask, 'INFORM', { type: 'RESULT', result: { answer: 'About 384,400 km.', meta: {} } });
    const store = h.last();
    const stored = h.reply(store, 'INFORM', { type: 'STORED', count: 1 });
    const reply = h.last();

    expect(h.sent.map((e) => `${e.performative} ${(e.content.type as string | undefined) ?? Object.keys(e.content)[0]} → ${e.receiver}`)).to.deep.equal([
      'QUERY-REF need → Registry', 'REQUEST ASK_EXPERT → specialist-a', 'AGREE status → Presenter', 'INFORM STORE_FACT → KB', 'INFORM PRESENTER_REPLY → Presenter',
    ]);
    expect(h.lookup.content).to.deep.equal({ need: 'ASK_EXPERT', hint: 'How far is the moon?' });
    expect(ask.content).to.deep.equal({ type: 'ASK_EXPERT', args: { question: 'How far is the moon?' }, context_ref: { session_id: h.request.conversation_id } });
    expect(jidOfName(ask.receiver, DOMAIN), 'the ASK_EXPERT goes to the candidate JID').to.equal(A);
    // every in_reply_to equals the reply_with it answers
    expect(agree.in_reply_to).to.equal(ask.reply_with);
    expect(result.in_reply_to).to.equal(ask.reply_with);
    expect(stored.in_reply_to).to.equal(store.reply_with);
    expect(reply.in_reply_to).to.equal(h.request.reply_with);
    // The initiating envelopes carry no in_reply_to; the AGREE to the Presenter answers the USER_MSG.
    for (const e of [h.sent[0], h.sent[1], h.sent[3]]) expect(e).not.to.have.property('in_reply_to');
    expect(h.sent[2]).to.deep.include({ in_reply_to: h.request.reply_with, content: { status: 'accepted', by: 'specialist-a' } });
    const all = [h.request, ...h.sent, agree, result, stored];
    expect(new Set(all.map((e) => e.conversation_id))).to.deep.equal(new Set([h.request.conversation_id]));
    expect(new Set(all.map((e) => e.reply_with)).size, 'reply_with unique').to.equal(all.length);

    const fact = store.content.fact as Record<string, unknown>;
    expect(fact).to.include({ session_id: h.request.conversation_id, slot: 'answer', confidence: 0.9, subject: USER });
    expect(fact.value).to.deep.equal({ question: 'How far is the moon?', answer: 'About 384,400 km.', answered_by: 'specialist-a' });
    expect(fact.ts).to.match(/^\d{4}-\d\d-\d\dT.*Z$/);
    expect(reply).to.include({ performative: 'INFORM', sender: 'Coordinator', receiver: 'Presenter' });
    expect(reply.content).to.deep.equal({ type: 'PRESENTER_REPLY', text: 'About 384,400 km.', rich: { answered_by: 'specialist-a', kb: 'stored' } });
    expect(h.isDone()).to.equal(true);
  });

  it('takes the fact confidence from result.meta.confidence', () => {
    const h = started([A]);
    h.reply(askTo(h, 'specialist-a'), 'INFORM', { type: 'RESULT', result: { answer: '4', meta: { confidence: 0.42 } } });
    expect((h.last().content.fact as { confidence: number }).confidence).to.equal(0.42);
  });
});

describe('Coordinator [retry] RETRY_NEXT on REFUSE, timeouts and FAILURE', () => {
  it('REFUSE busy → asks the next candidate and notes why', () => {
    const h = started([A, B]);
    h.reply(askTo(h, 'specialist-a'), 'REFUSE', { reason: 'busy' });
    const askB = askTo(h, 'specialist-b');
    expect(askB.content.args).to.deep.equal({ question: 'How far is the moon?' });
    expect(h.notes).to.deep.include({ decision: 'retry-next', detail: { candidate: 'specialist-a', cause: 'refused busy' } });
    h.reply(askB, 'AGREE', { status: 'accepted' });
    h.reply(askB, 'INFORM', { type: 'RESULT', result: { answer: 'far' } });
    h.reply(h.last(), 'INFORM', { type: 'STORED', count: 1 });
    expect(h.last().content).to.deep.include({ text: 'far', rich: { answered_by: 'specialist-b', kb: 'stored' } });
  });

  it('AGREE timeout (3 s) → CANCEL to the silent specialist, then the next candidate', () => {
    const h = started([A, B]);
    const askA = askTo(h, 'specialist-a');
    h.clock.increment(T.agreeTimeoutMs - 1);
    expect(h.last()).to.equal(askA);
    h.clock.increment(1);
    const [cancel, askB] = h.sent.slice(-2);
    expect(cancel).to.include({ performative: 'CANCEL', receiver: 'specialist-a', in_reply_to: askA.reply_with, conversation_id: h.request.conversation_id });
    expect(cancel?.content.reason).to.match(/AGREE/);
    expect(askB).to.include({ performative: 'REQUEST', receiver: 'specialist-b' });
    expect(h.notes).to.deep.include({ decision: 'retry-next', detail: { candidate: 'specialist-a', cause: 'timeout AGREE' } });
  });

  it('RESULT timeout (30 s after AGREE) → CANCEL, then the next candidate', () => {
    const h = started([A, B]);
    const askA = askTo(h, 'specialist-a');
    h.clock.increment(T.agreeTimeoutMs - 10);
    h.reply(askA, 'AGREE', { status: 'accepted' });
    h.clock.increment(T.resultTimeoutMs - 1);
    // The Presenter is told who took the question (once), so the person can be told too.
    expect(h.last()).to.deep.include({ performative: 'AGREE', receiver: 'Presenter', in_reply_to: h.request.reply_with, content: { status: 'accepted', by: 'specialist-a' } });
    h.clock.increment(1);
    const [cancel, askB] = h.sent.slice(-2);
    expect(cancel).to.include({ performative: 'CANCEL', receiver: 'specialist-a', in_reply_to: askA.reply_with });
    expect(askB).to.include({ receiver: 'specialist-b' });
  });

  it('ignores a late reply from a candidate it has moved on from', () => {
    const h = started([A, B]);
    const askA = askTo(h, 'specialist-a');
    h.clock.increment(T.agreeTimeoutMs);
    const askB = h.last();
    h.reply(askA, 'INFORM', { type: 'RESULT', result: { answer: 'late' } });
    expect(h.last()).to.equal(askB);
    h.reply(askB, 'INFORM', { type: 'RESULT', result: { answer: 'on time' } });
    expect(h.last().content.fact).to.deep.include({ value: { question: 'How far is the moon?', answer: 'on time', answered_by: 'specialist-b' } });
  });
});

describe('Coordinator [failures] seed contract §4 reasons to the Presenter', () => {
  const failure = (h: { last: () => ReturnType<typeof makeEnvelope> }, request: { reply_with: string }) => {
    const f = h.last();
    expect(f).to.include({ performative: 'FAILURE', receiver: 'Presenter', in_reply_to: request.reply_with });
    return f.content as { reason: string; detail: string };
  };

  it('NO_CANDIDATE when every candidate refused: the person reads who is busy, the codes go to the trace', () => {
    const h = started([A, B]);
    h.reply(askTo(h, 'specialist-a'), 'REFUSE', { reason: 'busy' });
    h.reply(askTo(h, 'specialist-b'), 'REFUSE', { reason: 'OUT_OF_SCOPE', detail: 'I only do maths' });
    const f = failure(h, h.request);
    expect(f.reason).to.equal('NO_CANDIDATE');
    expect(f.detail).to.equal('Every specialist that can answer this is busy right now (specialist-a). Please try again in a moment.');
    expect(f.detail).to.not.contain('OUT_OF_SCOPE');
    const note = h.notes.find((n) => n.decision === 'exhausted')?.detail as { attempts: Array<{ reason: string }> };
    expect(note.attempts.map((a) => a.reason)).to.deep.equal(['busy', 'OUT_OF_SCOPE']);
    expect(h.isDone()).to.equal(true);
  });

  it('NO_CANDIDATE when every candidate said OUT_OF_SCOPE: what to try, from their own examples, no codes', () => {
    const h = started([A, B]);
    h.reply(askTo(h, 'specialist-a'), 'REFUSE', { reason: 'OUT_OF_SCOPE', detail: 'no skill of specialist-a recognises the question; it answers arithmetic (e.g. "what is 17 * 23?")' });
    h.reply(askTo(h, 'specialist-b'), 'REFUSE', { reason: 'OUT_OF_SCOPE', detail: 'no skill of specialist-b recognises the question; it answers time (e.g. "what time is it in Tokyo?"), define (e.g. "define serendipity")' });
    const f = failure(h, h.request);
    expect(f).to.deep.equal({ reason: 'NO_CANDIDATE', detail: 'I can\'t help with that one. Try e.g. "what is 17 * 23?", "what time is it in Tokyo?" or "define serendipity". Say "help" to see everything I can do.' });
  });

  it('NO_CANDIDATE carries the one useful reason a specialist gave ("only 1..3999")', () => {
    const h = started([A, B]);
    h.reply(askTo(h, 'specialist-a'), 'REFUSE', { reason: 'OUT_OF_SCOPE', detail: 'no skill of specialist-a recognises the question' });
    h.reply(askTo(h, 'specialist-b'), 'NOT-UNDERSTOOD', { reason: 'SCHEMA_VIOLATION', detail: 'roman numerals: only 1..3999' });
    expect(failure(h, h.request)).to.deep.equal({ reason: 'NO_CANDIDATE', detail: 'roman numerals: only 1..3999' });
  });

  it('NO_CANDIDATE when the DF lists nobody', () => {
    const h = started([]);
    expect(h.sent).to.have.length(2);
    const f = failure(h, h.request);
    expect(f.reason).to.equal('NO_CANDIDATE');
    expect(f.detail).to.match(/No specialist is online right now/);
  });

  it('NO_CANDIDATE "directory unavailable" when the Registry does not answer', () => {
    const request = userMsg('hi there');
    const h = harness(expertMachine, request);
    h.clock.increment(T.registryTimeoutMs - 1);
    expect(h.sent).to.have.length(1);
    h.clock.increment(1);
    const f = failure(h, request);
    expect(f.reason).to.equal('NO_CANDIDATE');
    expect(f.detail).to.match(/^I could not reach the directory/);
    expect(h.notes.map((n) => n.decision)).to.include('directory-unavailable');
  });

  it('SPECIALIST_TIMEOUT when one timed out and the rest refused', () => {
    const h = started([A, B]);
    askTo(h, 'specialist-a');
    h.clock.increment(T.agreeTimeoutMs);
    h.reply(askTo(h, 'specialist-b'), 'REFUSE', { reason: 'busy' });
    const f = failure(h, h.request);
    expect(f.reason).to.equal('SPECIALIST_TIMEOUT');
    expect(f.detail).to.equal('specialist-a did not take the question within 3 s.');
  });

  it("the specialist's INVALID_ARGS when it failed and nobody else could answer", () => {
    const h = started([A]);
    const ask = askTo(h, 'specialist-a');
    h.reply(ask, 'AGREE', { status: 'accepted' });
    h.reply(ask, 'FAILURE', { reason: 'INVALID_ARGS', detail: 'question must be arithmetic' });
    const f = failure(h, h.request);
    expect(f.reason).to.equal('INVALID_ARGS');
    expect(f.detail).to.equal('question must be arithmetic');
  });

  it("the specialist's INTERNAL_ERROR after trying the next candidate", () => {
    const h = started([A, B]);
    h.reply(askTo(h, 'specialist-a'), 'FAILURE', { reason: 'INTERNAL_ERROR', detail: 'boom' });
    h.reply(askTo(h, 'specialist-b'), 'REFUSE', { reason: 'busy' });
    expect(failure(h, h.request).reason).to.equal('INTERNAL_ERROR');
  });
});

describe('Coordinator [KB] the person always gets the answer', () => {
  const answered = () => {
    const h = started([A]);
    h.reply(askTo(h, 'specialist-a'), 'INFORM', { type: 'RESULT', result: { answer: '42' } });
    return h;
  };

  it('KB_STORE_FAILED → PRESENTER_REPLY with the answer, noting it was not stored', () => {
    const h = answered();
    h.reply(h.last(), 'FAILURE', { reason: 'KB_STORE_FAILED', detail: 'disk full' });
    const reply = h.last();
    expect(reply).to.include({ performative: 'INFORM', in_reply_to: h.request.reply_with });
    expect(reply.content.rich).to.deep.equal({ answered_by: 'specialist-a', kb: 'KB_STORE_FAILED' });
    expect(reply.content.text).to.equal('42');
  });

  it('KB_UNAVAILABLE → PRESENTER_REPLY with the answer after kbTimeoutMs', () => {
    const h = answered();
    const store = h.last();
    h.clock.increment(T.kbTimeoutMs - 1);
    expect(h.last()).to.equal(store);
    h.clock.increment(1);
    const reply = h.last();
    expect(reply.content.rich).to.deep.equal({ answered_by: 'specialist-a', kb: 'KB_UNAVAILABLE' });
    expect(reply.content.text).to.equal('42');
    expect(h.isDone()).to.equal(true);
  });
});

describe('Coordinator [cancel] the Presenter withdraws the question', () => {
  it('sends CANCEL to the working specialist and finishes without a reply', () => {
    const h = started([A, B]);
    const ask = askTo(h, 'specialist-a');
    h.reply(ask, 'AGREE', { status: 'accepted' });
    h.inbound(makeEnvelope({
      performative: 'CANCEL', sender: 'Presenter', receiver: 'Coordinator', conversation_id: h.request.conversation_id,
      in_reply_to: h.request.reply_with, content: { reason: 'person left' },
    }));
    expect(h.last()).to.include({ performative: 'CANCEL', receiver: 'specialist-a', in_reply_to: ask.reply_with });
    expect(h.isDone()).to.equal(true);
    const count = h.sent.length;
    h.clock.increment(T.resultTimeoutMs * 2);
    expect(h.sent).to.have.length(count);
  });
});

describe('Coordinator [candidates] what the DF list may contain', () => {
  it('keeps specialists, calendars and rooms once each, drops singletons, people and foreign JIDs', () => {
    const got = usableCandidates([A, 'specialist-a@localhost/res', 'presenter@localhost', 'bob@localhost', 'x@evil.example', 'calendar-bob@localhost', 7], DOMAIN);
    expect(got).to.deep.equal([{ jid: A, name: 'specialist-a' }, { jid: 'calendar-bob@localhost', name: 'calendar-bob' }]);
  });
});
