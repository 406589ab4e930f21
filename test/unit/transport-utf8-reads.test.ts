// xmpp.js's own `_onData` (@xmpp/connection) fed socket reads that split characters, with and
// without useUtf8SafeReads (shared/transport/utf8-reads.ts). The same attack over a real ejabberd:
// test/integration/transport-utf8.test.ts.
import { client } from '@xmpp/client';
import { expect } from 'chai';
import { useUtf8SafeReads } from '../../shared/transport/index.js';

interface Reader { socket: unknown; parser: { write(s: string): void } | null; _onData(data: Buffer | string): void }

/** An unstarted @xmpp/client whose parser records what its `_onData` hands over. */
function reader(safe: boolean): { entity: Reader; got: string[] } {
  const entity = client({ service: 'xmpp://127.0.0.1:1', domain: 'localhost' }) as unknown as Reader;
  if (safe) useUtf8SafeReads(entity);
  const got: string[] = [];
  entity.parser = { write: (s: string) => got.push(s) };
  entity.socket = {};
  return { entity, got };
}

const TEXT = "<message><body>zażółć gęślą jaźń — €5 😀 Привет</body></message>";
const BYTES = Buffer.from(TEXT, 'utf8');

describe('transport [wire] socket reads that split a UTF-8 character', () => {
  it('xmpp.js alone turns a split character into U+FFFD (the defect this defends against)', () => {
    const { entity, got } = reader(false);
    const cut = BYTES.indexOf(Buffer.from('😀')) + 2; // inside the emoji's four bytes
    entity._onData(BYTES.subarray(0, cut));
    entity._onData(BYTES.subarray(cut));
    expect(got.join('')).to.not.equal(TEXT);
    expect(got.join('')).to.include('\uFFFD');
  });

  it('decodes the same text whatever the read boundaries, one byte at a time included', () => {
    for (const size of [1, 2, 3, 5, 7, 13]) {
      const { entity, got } = reader(true);
      for (let i = 0; i < BYTES.length; i += size) entity._onData(BYTES.subarray(i, i + size));
      expect(got.join(''), `reads of ${size} bytes`).to.equal(TEXT);
      expect(got.every((s) => s !== ''), 'no empty write reaches the parser').to.equal(true);
    }
  });

  it('starts a fresh decoder on a new socket: bytes of an unfinished character on the old one never prefix the next stream', () => {
    const { entity, got } = reader(true);
    const euro = Buffer.from('€');
    entity._onData(Buffer.concat([Buffer.from('<a>'), euro.subarray(0, 2)]));
    entity.socket = {}; // a reconnect, or STARTTLS's TLS socket
    entity._onData(Buffer.from('<stream:stream>'));
    expect(got).to.deep.equal(['<a>', '<stream:stream>']);
  });

  it('passes text reads (a socket with an encoding set) through unchanged', () => {
    const { entity, got } = reader(true);
    entity._onData('<r/>');
    expect(got).to.deep.equal(['<r/>']);
  });

  it('drops bytes that arrive after xmpp.js detached its parser (its own _onData threw on them)', () => {
    const bare = reader(false);
    bare.entity.parser = null;
    expect(() => bare.entity._onData(Buffer.from('<r/>'))).to.throw(TypeError);
    const { entity } = reader(true);
    entity.parser = null;
    expect(() => entity._onData(Buffer.from('<r/>'))).to.not.throw();
    expect(() => entity._onData('<r/>')).to.not.throw();
  });
});
