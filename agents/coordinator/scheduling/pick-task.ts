// Which open task an assignee's answer is about. "done" alone: the task assigned last (the one
// the last "… assigned you a task" line asked about). With several open, the answer may name one:
// `done "Q1 report"`, `accept Q1 report`, `50% slides: draft started`; the named title is taken
// out of the comment. The longest title found wins ("report" vs "Q1 report"). A part of one title
// only, before a colon or quoted ("40% the summary: outline written"), names that task too.
import type { TaskRecord } from './store.js';

const QUOTES = /^["'“‘]|["'”’]$/g;

/**
 * `names`: the comment is the task as the person calls it ("I finished the report", "I will do
 * the budget"): a task it paraphrases is it, and when none (or several) fits it is said with the
 * open tasks (`detail`), never the latest taken instead ("I will do the budget" once accepted
 * "write report" with "the budget" as its comment).
 */
export function pickTask(open: readonly TaskRecord[], comment: string | undefined, names = false): { task: TaskRecord; comment?: string } | { detail: string } | undefined {
  const latest = open[0];
  if (!latest) return undefined;
  const text = comment ?? '';
  // A title counts as whole words only: a task called "x" is not named by "fixed the tax table".
  const found = open.map((t) => ({ t, at: wordsAt(text, t.title) })).filter((f) => f.at >= 0)
    .sort((a, b) => b.t.title.length - a.t.title.length)[0];
  if (!found) {
    const part = byPart(open, text);
    if (part) return part;
    if (!names || !comment) return { task: latest, ...(comment && !paraphrase(comment, latest.title) ? { comment } : {}) };
    const like = open.filter((t) => paraphrase(comment, t.title));
    // One, or several with the same title (given twice): the one assigned last, as `done "title"` would.
    if (like.length >= 1 && like.every((t) => t.title === like[0]?.title)) return { task: like[0] as TaskRecord };
    return { detail: notNamed(comment, open, like) };
  }
  const { t: named, at } = found;
  // The title with the quotes around it and the punctuation after it ("… 'Q1 report': draft").
  const before = text.slice(0, at).replace(/["'“‘]\s*$/, '');
  const after = text.slice(at + named.title.length).replace(/^["'”’]/, '').replace(/^\s*[,:;-]\s*/, ' ');
  const rest = `${before} ${after}`.replace(/\s+/g, ' ').replace(QUOTES, '').trim();
  // "I finished the Slides": "the" alone is no comment.
  return { task: named, ...(rest && !paraphrase(rest, named.title) ? { comment: rest } : {}) };
}

/** None of the open tasks is called that, or several could be: which there are, and how to name one. */
function notNamed(said: string, open: readonly TaskRecord[], like: readonly TaskRecord[]): string {
  const name = said.replace(/^(?:the|my|a|an)\s+/i, '');
  const titles = (ts: readonly TaskRecord[]) => [...new Set(ts.slice(0, 5).map((t) => `"${t.title}"`))];
  if (like.length > 1) return `"${name}" could be ${titles(like).join(' or ')}: name it as it is, e.g. done ${titles(like)[0]}.`;
  const all = titles(open);
  return `You have no open task called "${name}". Your open ${all.length === 1 ? 'task is' : 'tasks:'} ${all.join(', ')}. Name it as it is, e.g. done ${all[0]}.`;
}

/** "the report" for "write report", "it", "my task": words that only point at the task are no comment ("I finished the report"). */
function paraphrase(comment: string, title: string): boolean {
  const words = (t: string) => t.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  const inTitle = new Set(words(title));
  return words(comment).every((w) => inTitle.has(w) || /^(?:the|my|a|an|it|this|that|task|job)$/.test(w));
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Where `title` stands in `text` as whole words (case-insensitive), or -1. */
function wordsAt(text: string, title: string): number {
  const t = title.trim();
  if (!t) return -1;
  return new RegExp(`(?<![\\p{L}\\p{N}])${escape(t)}(?![\\p{L}\\p{N}])`, 'iu').exec(text)?.index ?? -1;
}

/** `"summary"` or `summary: outline written`: the words before the colon, in exactly one title. */
function byPart(open: readonly TaskRecord[], text: string): { task: TaskRecord; comment?: string } | undefined {
  const m = /^\s*["'“‘]([^"'”’]{3,})["'”’]\s*[,:;-]?\s*(.*)$/s.exec(text) ?? /^\s*([^:]{3,}?)\s*:\s*(.*)$/s.exec(text);
  if (!m) return undefined;
  const part = (m[1] as string).trim().toLowerCase();
  const hits = open.filter((t) => t.title.toLowerCase().includes(part));
  if (hits.length !== 1) return undefined;
  const rest = (m[2] ?? '').trim();
  return { task: hits[0] as TaskRecord, ...(rest ? { comment: rest } : {}) };
}
