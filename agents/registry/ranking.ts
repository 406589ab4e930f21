// How the DF orders candidates for QUERY-REF {need, hint} (seed contract §2.2; the list still
// holds every live agent offering the capability, only the order changes):
//   1. topic score, highest first: the number of the agent's `topics` that match the hint. A
//      topic matches when each of its words occurs among the hint's words; a hint word counts
//      as an occurrence when it equals the topic word or, for topic words of 4+ letters, starts
//      with it ("meeting" matches "meetings"). Words are runs of Unicode letters and digits,
//      compared lower-case. No hint (or no topics) scores 0 for everyone.
//   2. least recently used first: the DF remembers when it last put an agent at the head of a
//      list, so equal agents take turns across queries (round-robin) and load spreads.
//   3. earlier registration, then JID: a stable, deterministic tie-break.
import type { DirectoryRecord } from '../../shared/store/directory.js';

const WORD = /[\p{L}\p{N}]+/gu;

export function words(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}

function wordOccurs(topicWord: string, hintWords: readonly string[]): boolean {
  return hintWords.some((h) => h === topicWord || (topicWord.length >= 4 && h.startsWith(topicWord)));
}

export function topicMatches(topic: string, hintWords: readonly string[]): boolean {
  const tw = words(topic);
  return tw.length > 0 && tw.every((w) => wordOccurs(w, hintWords));
}

export function topicScore(topics: readonly string[] | undefined, hint: string | undefined): number {
  if (!topics?.length || !hint) return 0;
  const hw = words(hint);
  return topics.filter((t) => topicMatches(t, hw)).length;
}

/** Orders records (already filtered to live agents offering the capability) best first. */
export function rankCandidates<R extends DirectoryRecord>(records: readonly R[], hint?: string): R[] {
  const scored = records.map((r) => ({ r, score: topicScore(r.profile.topics, hint) }));
  scored.sort((a, b) =>
    b.score - a.score
    || a.r.last_used - b.r.last_used
    || a.r.registered_at - b.r.registered_at
    || (a.r.profile.jid < b.r.profile.jid ? -1 : a.r.profile.jid > b.r.profile.jid ? 1 : 0));
  return scored.map((s) => s.r);
}
