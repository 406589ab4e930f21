import { expect } from 'chai';
import { exampleScore, rankCandidates, shape, topicMatches, topicScore, words } from '../../agents/registry/ranking.js';
import type { DirectoryRecord } from '../../shared/store/index.js';

const rec = (local: string, topics: string[] = [], last_used = 0, registered_at = 1000, examples?: string[]): DirectoryRecord => ({
  profile: { jid: `${local}@localhost`, name: local, version: '1', capabilities: ['ASK_EXPERT'], topics, ...(examples ? { examples } : {}) },
  registered_at,
  last_seen: registered_at,
  last_used,
});
const jids = (rs: DirectoryRecord[]) => rs.map((r) => r.profile.jid.split('@')[0]);

describe('Registry [ranking] topic matching', () => {
  it('splits text into lower-case Unicode words', () => {
    expect(words('What is 2+2? Größe, ÉTÉ!')).to.deep.equal(['what', 'is', '2', '2', 'größe', 'été']);
  });

  it('matches whole words, plural-like extensions of 4+ letter words, and multi-word topics only when all words occur', () => {
    const hint = words('Book two meetings about linear algebra');
    expect(topicMatches('meeting', hint)).to.equal(true);
    expect(topicMatches('Linear Algebra', hint)).to.equal(true);
    expect(topicMatches('algebra homework', hint)).to.equal(false);
    expect(topicMatches('two', hint)).to.equal(true);
    expect(topicMatches('bo', hint)).to.equal(false); // short words must match exactly ("book" ≠ "bo")
    expect(topicMatches('!!!', hint)).to.equal(false);
  });

  it('scores the number of matching topics; no hint or no topics scores 0', () => {
    expect(topicScore(['math', 'algebra', 'cooking'], 'an algebra and math question')).to.equal(2);
    expect(topicScore(['math'], undefined)).to.equal(0);
    expect(topicScore(undefined, 'math')).to.equal(0);
  });
});

describe('Registry [ranking] candidate order', () => {
  it('puts agents whose topics match the hint first, more matches before fewer', () => {
    const ranked = rankCandidates([rec('general'), rec('cook', ['cooking']), rec('math', ['math', 'algebra']), rec('alg', ['algebra'])], 'a math question about algebra');
    expect(jids(ranked)).to.deep.equal(['math', 'alg', 'cook', 'general']);
  });

  it('among equal scores, puts the least recently used first, then earlier registration, then jid', () => {
    expect(jids(rankCandidates([rec('a', [], 50), rec('b', [], 10), rec('c', [], 30)]))).to.deep.equal(['b', 'c', 'a']);
    expect(jids(rankCandidates([rec('b', [], 0, 2000), rec('a', [], 0, 3000), rec('c', [], 0, 1000)]))).to.deep.equal(['c', 'b', 'a']);
    expect(jids(rankCandidates([rec('b'), rec('a'), rec('c')]))).to.deep.equal(['a', 'b', 'c']);
  });

  it('lets a topic match beat recency: a busy expert still comes before an idle generalist', () => {
    expect(jids(rankCandidates([rec('idle', [], 0), rec('expert', ['math'], 999)], 'math'))).to.deep.equal(['expert', 'idle']);
  });
});

// The examples and topics the real experts publish (agents/specialist/experts).
const MATH = { topics: ['math', 'arithmetic', 'calculate', 'percent', 'sqrt', 'convert', 'units', 'km', 'miles'], examples: ['what is 17 * 23?', 'what is 2.5 km in miles?', 'sqrt(2)', '15% of 80', '5 kg to lb'] };
const TIME = { topics: ['time', 'date', 'timezone', 'clock', 'day of the week', 'weekday'], examples: ['what time is it in Tokyo?', 'how many days until 2027-01-01?', 'what day of the week is 2026-12-25?', 'what is the date in 10 days?'] };

describe('Registry [ranking] similarity to published examples', () => {
  it('reduces a question to its shape: content words, numbers, dates and operators', () => {
    expect([...shape("What's 391 * 7.5?")]).to.deep.equal(['#n', '*']);
    expect([...shape('how many days until 2027-01-01?')]).to.deep.equal(['many', 'days', 'until', '#date']);
    expect([...shape('what time is it in Tokyo?')]).to.deep.equal(['time', 'tokyo']);
  });

  it('scores 1 for a question shaped like an example, 0 without examples or hint', () => {
    expect(exampleScore(MATH.examples, 'what is 905 * 12?')).to.equal(1);
    expect(exampleScore(TIME.examples, 'what is 905 * 12?')).to.be.below(0.5);
    expect(exampleScore(undefined, 'what is 905 * 12?')).to.equal(0);
    expect(exampleScore(MATH.examples, undefined)).to.equal(0);
  });

  it('puts the arithmetic specialist first for a product even when it was used last (the time one used to be tried first and REFUSE)', () => {
    const math = rec('specialist-math', MATH.topics, 999, 1000, MATH.examples);
    const time = rec('specialist-time', TIME.topics, 0, 1000, TIME.examples);
    for (const q of ['what is 17 * 23?', 'what is 100 - 1?', 'what is 6 * 7?', '15% of 80', 'what is 5 plus 3?']) {
      expect(jids(rankCandidates([time, math], q)), q).to.deep.equal(['specialist-math', 'specialist-time']);
    }
  });

  it('still puts the time specialist first for time and date questions', () => {
    const math = rec('specialist-math', MATH.topics, 0, 1000, MATH.examples);
    const time = rec('specialist-time', TIME.topics, 999, 1000, TIME.examples);
    for (const q of ['what time is it in Tokyo?', 'how many days until 2030-05-01?', 'what day of the week is 2027-03-04?']) {
      expect(jids(rankCandidates([math, time], q)), q).to.deep.equal(['specialist-time', 'specialist-math']);
    }
  });

  it('keeps round-robin between specialists publishing the same examples', () => {
    const a = rec('math-a', MATH.topics, 20, 1000, MATH.examples);
    const b = rec('math-b', MATH.topics, 10, 1000, MATH.examples);
    expect(jids(rankCandidates([a, b], 'what is 3 * 4?'))).to.deep.equal(['math-b', 'math-a']);
  });
});
