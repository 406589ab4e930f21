// The bundle step's patch of @xmpp/jid's detect() (shared/supervisor/bundle-patches.ts) must answer
// exactly as the original for every input: both copies in node_modules, patched and not, over
// every local part the escaping rules care about and random strings of their characters.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';
import { expect } from 'chai';
import { patchJidDetect } from '../../shared/supervisor/index.js';

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
