import { expect } from 'chai';
import { rankCandidates, topicMatches, topicScore, words } from '../../agents/registry/ranking.js';
import type { DirectoryRecord } from '../../shared/store/directory.js';

const rec = (local: string, topics: string[] = [], last_used = 0, registered_at = 1000): DirectoryRecord => ({
  profile: { jid: `${local}@localhost`, name: local, version: '1', capabilities: ['ASK_EXPERT'], topics },
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
