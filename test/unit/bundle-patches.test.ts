// The bundle step's patch of @xmpp/jid's detect() (shared/supervisor/bundle-patches.ts) must answer
// exactly as the original for every input: both copies in node_modules, patched and not, over
// every local part the escaping rules care about and random strings of their characters.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';
import { expect } from 'chai';
import { asciiOnly, patchJidDetect } from '../../shared/supervisor/index.js';

const require = createRequire(import.meta.url);

/** detect() from a copy of escaping.js, ESM or CommonJS, evaluated on its own. */
function detectFrom(src: string): (local: string | null) => boolean {
  const body = src.replace(/^export /gm, '').replace(/^"use strict";/m, '');
  const exports: Record<string, unknown> = {};
  vm.runInNewContext(`${body}\nexports.detect = typeof detect === 'function' ? detect : module.exports.detect;`, { exports, module: { exports } });
  return exports.detect as (local: string | null) => boolean;
}

function copies(): string[] {
  const jidDir = path.dirname(require.resolve('@xmpp/jid')); // node_modules/@xmpp/jid
  const scope = path.dirname(jidDir); // node_modules/@xmpp
  const found = new Set<string>([path.join(jidDir, 'lib', 'escaping.js')]);
  for (const pkg of ['component', 'component-core', 'connection-tcp']) {
    const f = path.join(scope, pkg, 'node_modules', '@xmpp', 'jid', 'lib', 'escaping.js');
    if (fs.existsSync(f)) found.add(f);
  }
  return [...found];
}

describe('bundle patches: @xmpp/jid detect()', () => {
  const alphabet = ['a', 'Z', '0', '-', '.', ' ', '"', '&', "'", '/', ':', '<', '>', '@', '\\', '2', 'f', '5', 'c', '\\20', '\\5c', '\\40', 'é'];
  let seed = 7;
  const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
  const inputs = ['', 'specialist-math', 'alice', 'a b', 'a\\20b', 'a\\5c', 'a\\', 'a@b', 'c\\3a\\2f', 'x\\40y@z', 'jean-luc', 'ünïcode'];
  for (let i = 0; i < 3000; i++) inputs.push(Array.from({ length: 1 + rand(8) }, () => alphabet[rand(alphabet.length)]).join(''));

  for (const file of copies()) {
    it(`answers as the original for ${inputs.length} local parts (${path.relative(process.cwd(), file)})`, () => {
      const src = fs.readFileSync(file, 'utf8');
      const patched = patchJidDetect(src);
      expect(patched, 'the patch applies to this copy').to.be.a('string');
      const original = detectFrom(src);
      const fast = detectFrom(patched as string);
      let escaping = 0;
      for (const local of [...inputs, null]) {
        expect(fast(local), JSON.stringify(local)).to.equal(original(local));
        if (original(local)) escaping += 1;
      }
      expect(escaping).to.be.greaterThan(100); // both answers occur
    });
  }

  it('leaves a source it was not written for alone', () => {
    expect(patchJidDetect('export function detect(x) { return true; }')).to.equal(undefined);
  });
});

// The bundle step writes non-ASCII characters as \uXXXX (asciiOnly): every regular expression,
// string and comment must mean what it meant, with and without the u flag, astral characters too.
describe('Bundle step [ascii] non-ASCII characters escaped mean what they meant', () => {
  const SOURCE = String.raw`
// a comment – with “quotes” and ü
const dash = /^\s*(to|-|–|until|through)\s*$/i;
const quoted = /^assign\s+(?:["'“‘](.+?)["'”’]|(.+?))\s+to\s+(\w+)/i;
const bye = /^(?:ciao|tschüss|adiós)\s*[!.,]*$/i;
const shape = /\d+(?:[.,]\d+)*|[\p{L}]+|[-+*/^%×÷=<>!√]/gu;
const range = /[–-—]+/;
const astral = /😀+/u;
const astralLegacy = /😀/;
const text = "Größe – 😀";
module.exports = { dash, quoted, bye, shape, range, astral, astralLegacy, text };
`;
  const load = (src: string) => {
    const m = { exports: {} as Record<string, RegExp | string> };
    vm.runInNewContext(src, { module: m });
    return m.exports;
  };
  const SAMPLES = ['to', '–', ' until ', 'assign “the report” to bob', "assign 'x' to al", 'assign ‘y’ to eve', 'Tschüss!', 'adiós', 'tschuss',
    '3 × 4 ÷ 2 √9 Größe', '12,5 – 7', '–—–', '-', '😀😀', '\uD83D', 'plain', ''];

  it('escapes every non-ASCII code unit, and each expression matches the same strings', () => {
    const escaped = asciiOnly(SOURCE)!;
    expect(/[\u0080-\uffff]/.test(escaped)).to.equal(false);
    const before = load(SOURCE);
    const after = load(escaped);
    expect(after.text).to.equal(before.text);
    for (const name of ['dash', 'quoted', 'bye', 'shape', 'range', 'astral', 'astralLegacy']) {
      const a = before[name] as RegExp;
      const b = after[name] as RegExp;
      expect(b.flags, name).to.equal(a.flags);
      for (const s of SAMPLES) expect(JSON.stringify(s.match(b)), `${name} on ${JSON.stringify(s)}`).to.equal(JSON.stringify(s.match(a)));
    }
  });

  it('leaves ASCII alone, and a character after a backslash (the rewrite would change it)', () => {
    expect(asciiOnly('const a = /x/;')).to.equal(undefined);
    expect(asciiOnly('const a = /\\–/;')).to.equal(undefined);
  });
});
