// A reader for the WordNet database files (WNDB(5WN): index.<pos> and data.<pos>). Lookups
// binary-search the sorted index in a Buffer and read one line of data by its byte offset, so a
// definition costs a few reads and no parsing of the whole 30 MB database.
import fs from 'node:fs';
import path from 'node:path';

export const POS = [['noun', 'noun'], ['verb', 'verb'], ['adj', 'adjective'], ['adv', 'adverb']] as const;

export interface Sense {
  pos: string;
  words: string[];
  gloss: string;
}

const NL = 0x0a;

function lineAt(buf: Buffer, pos: number): { start: number; end: number } {
  let start = pos;
  while (start > 0 && buf[start - 1] !== NL) start -= 1;
  let end = buf.indexOf(NL, pos);
  if (end === -1) end = buf.length;
  return { start, end };
}

/** The index line whose first field is `lemma`, or undefined (the license lines start with spaces). */
export function findIndexLine(index: Buffer, lemma: string): string | undefined {
  let lo = 0;
  let hi = index.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const { start, end } = lineAt(index, mid);
    const line = index.toString('utf8', start, end);
    const key = line.startsWith(' ') ? '' : line.slice(0, line.indexOf(' '));
    if (key === lemma) return line;
    if (key < lemma) lo = end + 1;
    else hi = start;
  }
  return undefined;
}

/** Synset offsets of an index line: the last synset_cnt fields. */
export function offsetsOf(indexLine: string): number[] {
  const f = indexLine.trim().split(/\s+/);
  const count = Number(f[2]);
  return f.slice(f.length - count).map(Number);
}

/** One data line at a byte offset: its words and gloss. */
export function senseAt(data: Buffer, offset: number, pos: string): Sense {
  const { end } = lineAt(data, offset);
  const line = data.toString('utf8', offset, end);
  const bar = line.indexOf(' | ');
  const f = line.slice(0, bar === -1 ? undefined : bar).split(' ');
  const wCnt = parseInt(f[3] ?? '0', 16);
  const words = Array.from({ length: wCnt }, (_, i) => (f[4 + 2 * i] ?? '').replace(/_/g, ' ').replace(/\(.*\)$/, ''));
  return { pos, words, gloss: bar === -1 ? '' : line.slice(bar + 3).trim() };
}

export class WordNet {
  private readonly files = new Map<string, { index: Buffer; data: Buffer }>();

  constructor(dict: string) {
    for (const [p] of POS) {
      const index = path.join(dict, `index.${p}`);
      const data = path.join(dict, `data.${p}`);
      if (fs.existsSync(index) && fs.existsSync(data)) this.files.set(p, { index: fs.readFileSync(index), data: fs.readFileSync(data) });
    }
    if (this.files.size === 0) throw new Error(`no WordNet index/data files in ${dict}`);
  }

  /** Senses of a word or collocation ("ice cream" → ice_cream), by part of speech, in WordNet's order. */
  lookup(word: string, perPos = 3): Sense[] {
    const lemma = word.trim().toLowerCase().replace(/\s+/g, '_');
    const out: Sense[] = [];
    for (const [p, label] of POS) {
      const f = this.files.get(p);
      const line = f && findIndexLine(f.index, lemma);
      if (!f || !line) continue;
      for (const o of offsetsOf(line).slice(0, perPos)) out.push(senseAt(f.data, o, label));
    }
    return out;
  }
}
