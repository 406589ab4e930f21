// RFC 8785 JSON Canonicalization Scheme (Agora v1.0 §2 "Canonicalization"): sorted keys by UTF-16
// code units, no whitespace, ECMAScript number serialisation. `canonicalize` does the work;
// conformance is tested against cyberphone's vectors (test/vectors/jcs).
import canonicalizeModule from 'canonicalize';

// canonicalize is CommonJS (module.exports = fn) but its .d.ts declares `export default`; under
// NodeNext TypeScript types the default import as the namespace, while Node hands us the function.
type Serialize = (value: unknown) => string | undefined;
const canonicalize: Serialize =
  typeof canonicalizeModule === 'function' ? (canonicalizeModule as Serialize) : (canonicalizeModule as { default: Serialize }).default;

/** The canonical JSON text of `value`; throws for values JSON cannot carry (undefined, functions). */
export function canonical(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('value has no JSON representation');
  return text;
}

/** The UTF-8 bytes that get signed. */
export function canonicalBytes(value: unknown): Buffer {
  return Buffer.from(canonical(value), 'utf8');
}
