import xml, { type Element } from '@xmpp/xml';
import { expect } from 'chai';
import { chunkSafe, messageStanza, useChunkSafeParsers } from '../../shared/transport/index.js';

/** A stream parser as xmpp.js attaches one: the stream header, then stanzas. */
function parse(chunks: string[], safe: boolean): { stanzas: Element[] } {
  const parser = new xml.Parser();
  if (safe) chunkSafe(parser);
  const stanzas: Element[] = [];
  parser.on('element', (el: Element) => stanzas.push(el));
  for (const c of chunks) parser.write(c);
  return { stanzas };
}

function split(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

const HEADER = "<stream:stream xmlns='jabber:client' xmlns:stream='http://etherx.jabber.org/streams' id='s1' version='1.0'>";
const body = (n: number) => JSON.stringify({ candidates: Array.from({ length: n }, (_, i) => `bench-math-${i}@agents.localhost`), note: 'a < b & "c" > d' });

describe('chunk-safe parser [wire] large stanzas read in pieces (ltx quadratic text fast-forward)', () => {
  it('yields the same stanzas, bodies and attributes whatever the read boundaries', () => {
    const stanzas = [
      messageStanza({ to: 'coordinator@localhost', id: 'msg-1', thread: 'sess-1', body: body(400) }),
      messageStanza({ to: 'coordinator@localhost', id: 'a"b>c', thread: 'sess-2', body: 'x' }),
      messageStanza({ to: 'coordinator@localhost', id: 'msg-3', thread: 'sess-3', body: body(3) }),
    ];
    const text = HEADER + stanzas.map((s) => s.toString()).join(' ');
    const whole = parse([text], false).stanzas.map((s) => s.toString());
    expect(whole).to.have.length(3);
    for (const size of [1, 7, 1400, 4096, 16384]) {
      expect(parse(split(text, size), true).stanzas.map((s) => s.toString()), `reads of ${size}`).to.deep.equal(whole);
    }
    expect(parse(split(text, 4096), true).stanzas[1]?.attrs.id).to.equal('a"b>c');
  });

  it('emits a stanza as soon as its last byte arrived (nothing of a complete stanza is held back)', () => {
    const parser = chunkSafe(new xml.Parser());
    const got: Element[] = [];
    parser.on('element', (el: Element) => got.push(el));
    parser.write(HEADER);
    const s = messageStanza({ to: 'a@b', id: 'm', body: 'y'.repeat(5000) }).toString();
    parser.write(s.slice(0, 3000));
    expect(got).to.have.length(0);
    parser.write(s.slice(3000));
    expect(got).to.have.length(1);
    expect(got[0]?.getChildText('body')).to.equal('y'.repeat(5000));
  });

  it('hands ltx only writes that end with ">" (what keeps its text fast-forward linear), and a 64 kB body read in 4 kB pieces whole', () => {
    // The speed itself is npm run bench's business (docs/bench.md, agents-scale); here the property
    // that gives it: no write to the underlying parser ends inside text or an attribute value.
    const text = HEADER + messageStanza({ to: 'registry@localhost', id: 'm', body: 'z'.repeat(64_000) }).toString();
    const parser = new xml.Parser();
    const writes: string[] = [];
    const inner = parser.write.bind(parser);
    parser.write = (d: string | Buffer) => {
      writes.push(String(d));
      inner(d);
    };
    chunkSafe(parser);
    const got: Element[] = [];
    parser.on('element', (el: Element) => got.push(el));
    for (const c of split(text, 4096)) parser.write(c);
    expect(got[0]?.getChildText('body')).to.have.length(64_000);
    expect(writes.length).to.be.greaterThan(0);
    expect(writes.every((w) => w.endsWith('>')), 'every write ends with ">"').to.equal(true);
    expect(writes.join('')).to.equal(text);
  });

  it('wraps every parser an xmpp.js entity attaches, at each stream (re)open', () => {
    const attached: unknown[] = [];
    const entity = { _attachParser(p: unknown) { attached.push(p); } };
    useChunkSafeParsers(entity);
    const p = new xml.Parser();
    const write = p.write;
    entity._attachParser(p);
    expect(attached[0]).to.equal(p);
    expect(p.write).to.not.equal(write);
  });
});
