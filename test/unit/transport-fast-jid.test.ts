// useFastJidLocal (shared/transport/fast-jid.ts) must leave every JID as @xmpp/jid's own setLocal
// made it: the same local part (escaped or not, lower-cased) for every input the escaping rules
// care about and thousands of random strings of their characters.
import { detectEscape, escapeLocal, JID } from '@xmpp/jid';
import { expect } from 'chai';
import { useFastJidLocal } from '../../shared/transport/index.js';

type Settable = { _local: string | null; setLocal(local: string | null, escape?: boolean): unknown };

describe('transport [fast-jid] @xmpp/jid setLocal without detect() for plain local parts', () => {
  const alphabet = ['a', 'Z', '0', '-', '.', ' ', '"', '&', "'", '/', ':', '<', '>', '@', '\\', '2', 'f', '5', 'c', '\\20', '\\5c', '\\40', 'é', 'Ä'];
  let seed = 11;
  const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
  const inputs: Array<string | null> = ['', null, 'specialist-math', 'Alice', 'a b', 'a\\20b', 'a\\5c', 'a\\', 'a@b', 'c\\3a\\2f', 'x\\40y@z', 'Jean-Luc', 'ÜNÏcode'];
  for (let i = 0; i < 3000; i++) inputs.push(Array.from({ length: 1 + rand(8) }, () => alphabet[rand(alphabet.length)]).join(''));

  it('installs on the @xmpp/jid it was written for, once', () => {
    expect(useFastJidLocal()).to.equal(true);
    expect(useFastJidLocal()).to.equal(true);
  });

  it(`gives the same local part as the original for ${inputs.length} inputs, with and without an explicit escape`, () => {
    useFastJidLocal();
    const patched = (JID.prototype as unknown as Settable).setLocal;
    for (const local of inputs) {
      for (const escape of [undefined, false, true]) {
        const fast = Object.create(JID.prototype) as Settable;
        patched.call(fast, local, escape);
        const slow = Object.create(JID.prototype) as Settable;
        slowSetLocal.call(slow, local, escape);
        expect(fast._local, `${JSON.stringify(local)} escape=${escape}`).to.equal(slow._local);
      }
    }
    expect(new JID('Specialist-Math', 'localhost', 'r').toString()).to.equal('specialist-math@localhost/r');
    expect(new JID('a b', 'localhost').toString()).to.equal('a\\20b@localhost');
  });
});

/** @xmpp/jid 0.14.0's setLocal, written out with the library's own exported escaping functions. */
function slowSetLocal(this: Settable, local: string | null, escape?: boolean): Settable {
  const esc = escape || detectEscape(local as string);
  let l = local;
  if (esc) l = escapeLocal(l as string);
  this._local = l && l.toLowerCase();
  return this;
}
