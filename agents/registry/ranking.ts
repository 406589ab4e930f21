// How the DF orders candidates for QUERY-REF {need, hint} (seed contract §2.2; the list still
// holds every live agent offering the capability, only the order changes):
//   1. score, highest first: the topic score plus the example score.
//      Topic score: the number of the agent's `topics` that match the hint. A topic matches when
//      each of its words occurs among the hint's words; a hint word counts as an occurrence when
//      it equals the topic word or, for topic words of 4+ letters, starts with it ("meeting"
//      matches "meetings"). Words are runs of Unicode letters and digits, compared lower-case.
//      Example score (0..1): how much the hint looks like the closest of the agent's published
//      `examples`, as the Jaccard similarity of their shapes (shape(): content words, numbers as
//      #n, dates as #date, operator symbols), so "what is 391 * 7?" is close to the example
//      "what is 17 * 23?" and far from "what time is it in Tokyo?". No hint scores 0 for everyone.
//   2. least recently used first: the DF remembers when it last put an agent at the head of a
//      list, so equal agents take turns across queries (round-robin) and load spreads. A list cut
//      at max_results among agents that all rank alike gives each of them its turn (directory.ts
//      rank), and its answer says how many rank alike at the head (`lead`): the Coordinator
//      reuses an answer for a while and rotates those itself (candidate-cache.ts).
//   3. earlier registration, then JID: a stable, deterministic tie-break.
import type { DirectoryRecord } from '../../shared/store/index.js';

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

/** Words that say nothing about the subject ("what is …", "how many …"). */
const STOPWORDS: ReadonlySet<string> = new Set([
  'a', 'an', 'the', 'is', 'are', 'was', 'were', 'be', 'will', 'it', 'its', 'what', 'whats', 's', 'how', 'much', 'please',
  'can', 'could', 'you', 'me', 'i', 'tell', 'of', 'in', 'on', 'at', 'to', 'for', 'and', 'or', 'by', 'do', 'does',
]);
const SHAPE = /\d{4}-\d{1,2}-\d{1,2}|\d+(?:[.,]\d+)*|[\p{L}]+|[-+*/^%×÷=<>!√]/gu;

/** The features a question is compared by (see the header): a set of tokens. */
export function shape(text: string): Set<string> {
  const out = new Set<string>();
  for (const t of text.toLowerCase().match(SHAPE) ?? []) {
    if (/^\d{4}-/.test(t)) out.add('#date');
    else if (/^\d/.test(t)) out.add('#n');
    else if (!STOPWORDS.has(t)) out.add(t);
  }
  return out;
}

function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let both = 0;
  for (const t of a) if (b.has(t)) both += 1;
  return both / (a.size + b.size - both);
}

/** 0..1: the hint's similarity to the closest published example. */
export function exampleScore(examples: readonly string[] | undefined, hint: string | undefined, hintShape = hint ? shape(hint) : undefined): number {
  if (!examples?.length || !hintShape) return 0;
  return Math.max(...examples.map((e) => jaccard(hintShape, shape(e))));
}

/** Orders records (already filtered to live agents offering the capability) best first. */
export function rankCandidates<R extends DirectoryRecord>(records: readonly R[], hint?: string): R[] {
  const hs = hint ? shape(hint) : undefined;
  const scored = records.map((r) => ({ r, score: topicScore(r.profile.topics, hint) + exampleScore(r.profile.examples, hint, hs) }));
  scored.sort((a, b) =>
    b.score - a.score
    || a.r.last_used - b.r.last_used
    || a.r.registered_at - b.r.registered_at
    || (a.r.profile.jid < b.r.profile.jid ? -1 : a.r.profile.jid > b.r.profile.jid ? 1 : 0));
  return scored.map((s) => s.r);
}

/**
 * What ranking needs of one profile, parsed once at REGISTER instead of at every query: the words
 * of each topic and the shape of each example. Agents with the same skills share one (the
 * directory interns them), so a query scores each distinct skill set once, not each agent.
 */
export interface RankFeatures {
  readonly topicWords: readonly (readonly string[])[];
  readonly exampleShapes: readonly ReadonlySet<string>[];
}

export function rankFeatures(topics: readonly string[] | undefined, examples: readonly string[] | undefined): RankFeatures {
  return { topicWords: (topics ?? []).map(words), exampleShapes: (examples ?? []).map(shape) };
}

/** A hint prepared once per query for featureScore. */
export interface PreparedHint {
  readonly words: readonly string[];
  readonly shape: ReadonlySet<string>;
}

export const prepareHint = (hint: string | undefined): PreparedHint | undefined => (hint ? { words: words(hint), shape: shape(hint) } : undefined);

/** topicScore + exampleScore of the profile the features came from (the same numbers, without re-parsing). */
export function featureScore(f: RankFeatures, hint: PreparedHint | undefined): number {
  if (!hint) return 0;
  let score = 0;
  for (const tw of f.topicWords) if (tw.length > 0 && tw.every((w) => wordOccurs(w, hint.words))) score += 1;
  let best = 0;
  for (const s of f.exampleShapes) best = Math.max(best, jaccard(hint.shape, s));
  return score + best;
}

/** The order of rankCandidates for records already scored: true when `a` comes before `b`. */
export function ranksBefore(a: { r: DirectoryRecord; score: number }, b: { r: DirectoryRecord; score: number }): boolean {
  if (a.score !== b.score) return a.score > b.score;
  return turnBefore(a.r, b.r);
}

/** The order of rankCandidates between two equal scores (rules 2 and 3 of the header). */
export function turnBefore(a: DirectoryRecord, b: DirectoryRecord): boolean {
  if (a.last_used !== b.last_used) return a.last_used < b.last_used;
  if (a.registered_at !== b.registered_at) return a.registered_at < b.registered_at;
  return a.profile.jid < b.profile.jid;
}
