// RFC 8785 JSON Canonicalization Scheme (Agora v1.0 §2 "Canonicalization"): sorted keys by UTF-16
// code units, no whitespace, ECMAScript number serialisation. `canonicalize` does the work;
// conformance is tested against cyberphone's vectors (test/vectors/jcs).
import canonicalizeModule from 'canonicalize';

// canonicalize is CommonJS (module.exports = fn) but its .d.ts declares `export default`; under
// NodeNext TypeScript types the default import as the namespace, while Node hands us the function.
type Serialize = (value: unknown) => string | undefined;
const canonicalize: Serialize =
  typeof canonicalizeModule === 'function' ? (canonicalizeModule as Serialize) : (canonicalizeModule as { default: Serialize }).default;

/** A value the fast path leaves to `canonicalize` (thrown inside sortedCopy, caught in canonical). */
const NOT_PLAIN = Symbol('not plain JSON data');

/**
 * A copy of plain JSON data with every object's keys inserted in RFC 8785 order, so that
 * JSON.stringify of it is the canonical text: JSON.stringify escapes strings and prints finite
 * numbers exactly as RFC 8785 §3.2.2 asks (it names them), and keeps insertion order — except for
 * array-index keys, which every object lists first in numeric order, and `__proto__`, which an
 * assignment would not make a property. Those, and anything that is not plain data (a class
 * instance such as Date with its toJSON, NaN, a function, undefined in an array), throw NOT_PLAIN: `canonicalize` has
 * the last word on them. Why: canonicalize builds the text by string concatenation, ~6 kB of
 * garbage and ~4.3 µs per envelope; this path ~2.7 µs and one copy (docs/bench.md "stop 35").
 */
function sortedCopy(value: unknown): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw NOT_PLAIN;
    return value;
  }
  if (typeof value !== 'object') throw NOT_PLAIN;
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (item === undefined) throw NOT_PLAIN; // canonicalize writes null; leave it to it
      out[i] = sortedCopy(item);
    }
    return out;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) throw NOT_PLAIN;
  const source = value as Record<string, unknown>;
  const keys = Object.keys(source).sort();
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const c = key.charCodeAt(0);
    if ((c >= 48 && c <= 57) || key === '__proto__') throw NOT_PLAIN; // may be an array index
    const v = source[key];
    if (v === undefined) continue; // JSON has no undefined: the key is left out, as canonicalize does
    out[key] = sortedCopy(v);
  }
  return out;
}

/** The canonical JSON text of `value`; throws for values JSON cannot carry (undefined, functions). */
export function canonical(value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(sortedCopy(value));
  } catch (err) {
    if (err !== NOT_PLAIN) throw err;
    text = canonicalize(value);
  }
  if (text === undefined) throw new TypeError('value has no JSON representation');
  return text;
}

/** The UTF-8 bytes that get signed. */
export function canonicalBytes(value: unknown): Buffer {
  return Buffer.from(canonical(value), 'utf8');
}
