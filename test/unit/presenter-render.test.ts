import { expect } from 'chai';
import { makeEnvelope, codesFor } from '../../shared/acl/index.js';
import { charCount, renderAnswer, renderFailure, renderRejection, renderReply, TEXT } from '../../agents/presenter/render.js';

describe('Presenter [render] answers in words', () => {
  it('shows the PRESENTER_REPLY text as is when the KB stored it', () => {
    expect(renderReply({ type: 'PRESENTER_REPLY', text: '4', rich: { kb: 'stored' } })).to.equal('4');
    expect(renderReply({ type: 'PRESENTER_REPLY', text: '4' })).to.equal('4');
  });

  it('notes "not saved to memory" for KB_UNAVAILABLE and KB_STORE_FAILED', () => {
    expect(renderReply({ type: 'PRESENTER_REPLY', text: '4', rich: { kb: 'KB_UNAVAILABLE' } })).to.equal(`4\n${TEXT.kbNote}`);
    expect(renderReply({ type: 'PRESENTER_REPLY', text: '4', rich: { kb: 'KB_STORE_FAILED' } })).to.equal(`4\n${TEXT.kbStoreFailedNote}`);
  });

  const expected: Record<string, RegExp> = {
    NO_CANDIDATE: /^Sorry, none of the specialists can answer that right now\.$/,
    SPECIALIST_TIMEOUT: /^Sorry, no answer arrived in time\. Please try again in a moment\.$/,
    INVALID_ARGS: /could not work with that question.*rephrase/,
    INTERNAL_ERROR: /something went wrong on our side/,
    KB_UNAVAILABLE: /knowledge base is unavailable/,
    KB_STORE_FAILED: /knowledge base could not store/,
  };
  for (const [reason, re] of Object.entries(expected)) {
    it(`turns FAILURE ${reason} into its own sentence`, () => {
      const text = renderFailure({ reason });
      expect(text).to.match(re);
    });
  }

  it('has a sentence (not the generic fallback) for every FAILURE code in the catalogue', () => {
    for (const code of codesFor('FAILURE')) expect(renderFailure({ reason: code })).not.to.match(/request failed/);
    expect(renderFailure({ reason: 'SOMETHING_NEW' })).to.equal('Sorry, the request failed.');
  });

  it('one sentence carries the Coordinator\'s detail, never the code (issue 16)', () => {
    expect(renderFailure({ reason: 'NO_CANDIDATE', detail: 'I can\'t help with that one. Say "help" to see everything I can do.' }))
      .to.equal('I can\'t help with that one. Say "help" to see everything I can do.');
    expect(renderFailure({ reason: 'INVALID_ARGS', detail: 'roman numerals: only 1..3999' })).to.equal('Sorry, I could not answer that: roman numerals: only 1..3999');
    expect(renderFailure({ reason: 'SPECIALIST_TIMEOUT', detail: 'math-1 took the question but did not answer within 30 s.' }))
      .to.equal('Sorry, no answer arrived in time (math-1 took the question but did not answer within 30 s). Please try again in a moment.');
    for (const code of codesFor('FAILURE')) expect(renderFailure({ reason: code, detail: 'x' })).to.not.contain(code);
  });

  it('clips a long detail so the person is not flooded', () => {
    const text = renderFailure({ reason: 'INTERNAL_ERROR', detail: 'x'.repeat(5000) });
    expect(text.length).to.be.below(400);
    expect(text).to.match(/…\)$/);
  });

  it('apologises for NOT-UNDERSTOOD and REFUSE from the Coordinator in words (the code stays in the trace)', () => {
    expect(renderRejection('NOT-UNDERSTOOD', { reason: 'SCHEMA_VIOLATION', detail: 'bad text' }))
      .to.equal('Sorry, I could not understand that request: bad text');
    expect(renderRejection('REFUSE', { reason: 'busy' })).to.equal('Sorry, I cannot do that request.');
  });

  it('knows which envelopes are answers', () => {
    const env = (performative: 'INFORM' | 'AGREE' | 'FAILURE', content: object) =>
      makeEnvelope({ performative, sender: 'Coordinator', receiver: 'Presenter', conversation_id: 's', content });
    expect(renderAnswer(env('INFORM', { type: 'PRESENTER_REPLY', text: 'hi' }))).to.equal('hi');
    expect(renderAnswer(env('FAILURE', { reason: 'TIMEOUT' }))).to.equal('Sorry, the work took too long.');
    expect(renderAnswer(env('AGREE', { status: 'accepted' }))).to.equal(undefined);
    expect(renderAnswer(env('INFORM', { type: 'DIRECTORY', agents: [] }))).to.equal(undefined);
  });

  it('counts characters in code points like the contract does', () => {
    expect(charCount('a😀b')).to.equal(3);
  });
});
