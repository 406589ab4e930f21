// jcs.ts's fast path (a key-sorted copy through JSON.stringify) must give canonicalize's bytes for
// every input, or hand the input to canonicalize: random JSON data with the keys and numbers where
// the two could differ (array-index keys, __proto__, surrogates, -0, 1e21, 5e-324), and values that
// are not plain data. test/unit/vectors.test.ts checks the same function against RFC 8785's vectors.
import { expect } from 'chai';
import { createRequire } from 'node:module';
import { canonical } from '../../shared/identity/index.js';

const canonicalize = createRequire(import.meta.url)('canonicalize') as (v: unknown) => string | undefined;

/** A small deterministic PRNG (mulberry32): the same cases on every run. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const KEYS = ['a', 'b', 'B', '', '1', '10', '9', '01', '4294967295', '__proto__', 'toJSON', 'é', '\u20ac', '\ud83d\ude00', '\ud800', 'z z', 'performative', 'signature', 'content', '\u0000', '"'];
const NUMBERS = [0, -0, 1, -1, 0.1, 1e21, 1e-7, 5e-324, 1.7976931348623157e308, 333333333.3333333, 2 ** 53, -123.456e-10];
const STRINGS = ['', 'x', 'é', '\u20ac', '\ud83d\ude00', '\udfff', 'line\nbreak', 'quote"and\\slash', '<&>', '\u2028', '\u007f'];

function value(r: () => number, depth: number): unknown {
  const k = Math.floor(r() * (depth > 3 ? 4 : 7));
  if (k === 0) return NUMBERS[Math.floor(r() * NUMBERS.length)];
  if (k === 1) return STRINGS[Math.floor(r() * STRINGS.length)];
  if (k === 2) return r() < 0.5 ? null : r() < 0.5;
  if (k === 3) return Math.floor(r() * 1e6) / (r() < 0.5 ? 1 : 7);
  if (k === 4) return Array.from({ length: Math.floor(r() * 4) }, () => value(r, depth + 1));
  // An object as JSON.parse makes it: `__proto__` and array-index keys are own properties.
  const pairs = Array.from({ length: Math.floor(r() * 6) }, () => `${JSON.stringify(KEYS[Math.floor(r() * KEYS.length)])}:${JSON.stringify(value(r, depth + 1)) ?? 'null'}`);
  return JSON.parse(`{${pairs.join(',')}}`);
}

describe('identity [jcs] the fast path gives canonicalize\'s bytes or leaves the input to it', () => {
  it('2,000 random JSON values: byte-identical to canonicalize', () => {
    const r = rng(20261127);
    let objects = 0;
    for (let i = 0; i < 2000; i++) {
      const v = value(r, 0);
      if (v && typeof v === 'object') objects += 1;
      expect(canonical(v), JSON.stringify(v)).to.equal(canonicalize(v));
    }
    expect(objects).to.be.greaterThan(500);
  });

  it('an object of 300 keys (a hash table in V8) keeps the sorted order through JSON.stringify', () => {
    const r = rng(35);
    const wide = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`k${Math.floor(r() * 1e9).toString(36)}${i}`, { z: i, a: [i, { y: 2, b: 3 }] }]));
    expect(canonical(wide)).to.equal(canonicalize(wide));
    expect(canonical(JSON.parse(JSON.stringify(wide)))).to.equal(canonicalize(wide));
  });

  it('array-index keys sort as strings, not first as JavaScript lists them', () => {
    const v = JSON.parse('{"b":1,"10":2,"9":3,"a":{"2":0,"10":1}}') as object;
    expect(Object.keys(v)).to.deep.equal(['9', '10', 'b', 'a']);
    expect(canonical(v)).to.equal('{"10":2,"9":3,"a":{"10":1,"2":0},"b":1}');
  });

  it('a __proto__ key stays a property; an object without a prototype is plain data', () => {
    expect(canonical(JSON.parse('{"z":1,"__proto__":{"x":1}}'))).to.equal('{"__proto__":{"x":1},"z":1}');
    const bare = Object.assign(Object.create(null) as object, { b: 1, a: [1, 'x'] });
    expect(canonical(bare)).to.equal('{"a":[1,"x"],"b":1}');
  });

  it('what is not plain data goes to canonicalize: toJSON, undefined in arrays and objects', () => {
    const d = new Date(Date.UTC(2026, 10, 27));
    expect(canonical({ at: d, n: 1 })).to.equal(canonicalize({ at: d, n: 1 }));
    expect(canonical({ at: d })).to.equal('{"at":"2026-11-27T00:00:00.000Z"}');
    expect(canonical([1, undefined, 2])).to.equal('[1,null,2]');
    expect(canonical({ a: undefined, b: 2 })).to.equal('{"b":2}');
  });

  it('NaN and Infinity are refused as canonicalize refuses them; undefined has no JSON text', () => {
    expect(() => canonical({ n: Number.NaN })).to.throw('NaN is not allowed');
    expect(() => canonical([Number.POSITIVE_INFINITY])).to.throw('Infinity is not allowed');
    expect(() => canonical(undefined)).to.throw(TypeError);
  });
});
