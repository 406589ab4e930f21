// text_stats: counts in a pasted text. Words are runs of Unicode letters/digits (with inner
// apostrophes); sentences end in . ! ? or the end of the text; reading time at 230 words a minute.
import { invalidArgs } from '../../shared/skills/handler-api.js';

const PREFIX = /^\s*(?:text\s+stat(?:istic)?s|word\s+count|count\s+(?:the\s+)?words)\b\s*(?:of|for|in)?\s*:?\s*/i;
const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)*/gu;
const STOP = new Set(['the', 'a', 'an', 'and', 'or', 'of', 'to', 'in', 'is', 'it', 'on', 'was', 'for', 'that', 'with', 'as', 'at', 'be']);

const n = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

export function textStats(text: string) {
  const words = text.match(WORD) ?? [];
  const sentences = text.split(/[.!?]+(?:\s|$)/).filter((s) => WORD.test(s) && ((WORD.lastIndex = 0), true)).length;
  const letters = (text.match(/\p{L}/gu) ?? []).length;
  const counts = new Map<string, number>();
  for (const w of words.map((x) => x.toLowerCase())) if (!STOP.has(w)) counts.set(w, (counts.get(w) ?? 0) + 1);
  const top = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 3);
  return {
    words: words.length,
    sentences,
    characters: [...text].length,
    letters,
    avgWordLength: words.length ? Math.round((letters / words.length) * 10) / 10 : 0,
    readingSeconds: Math.ceil((words.length / 230) * 60),
    top,
  };
}

export function run(input: { question: string }) {
  const text = input.question.replace(PREFIX, '');
  if (text.trim() === '') throw invalidArgs('no text after "text stats:"; paste the text after the colon');
  const s = textStats(text);
  const top = s.top.length ? `; most frequent: ${s.top.map(([w, n]) => `${w} (${n})`).join(', ')}` : '';
  return {
    answer: `${n(s.words, 'word')}, ${n(s.sentences, 'sentence')}, ${n(s.characters, 'character')} (${n(s.letters, 'letter')}), average word length ${s.avgWordLength}, reading time about ${s.readingSeconds} s${top}.`,
    meta: { words: s.words, sentences: s.sentences, characters: s.characters, reading_seconds: s.readingSeconds },
  };
}
