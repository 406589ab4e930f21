// Source patches the bundle step (scripts/bundle.ts) applies to dependencies on their hot path.
// Each one is exact: it applies to the source it was written for and returns undefined otherwise.

/** The head both @xmpp/jid copies in node_modules share (0.13 CommonJS, 0.14 ESM). */
const DETECT_HEAD = 'function detect(local) {\n  if (!local) {\n    return false;\n  }\n';

/**
 * @xmpp/jid's detect() (does a local part need XEP-0106 escaping?) runs ten replaceAll and a
 * regular expression for every JID xmpp.js parses: its middleware parses `from` and `to` of every
 * stanza in and out, ≈ 6 µs each here, 2–3 % of an agent's CPU. A local part with none of the
 * characters it searches for needs no escaping (the replaceAll only remove sequences starting
 * with a backslash, which it then lacks), so that case returns at once; any other input takes the
 * original code. test/unit/bundle-patches.test.ts compares both over many inputs.
 */
export function patchJidDetect(src: string): string | undefined {
  if (!src.includes(DETECT_HEAD)) return undefined;
  return src.replace(DETECT_HEAD, `${DETECT_HEAD}  if (!/[ "&'/:<>@\\\\]/.test(local)) return false;\n`);
}

/**
 * The bundle with every non-ASCII UTF-16 code unit written as `\uXXXX`; undefined when one follows
 * a backslash (an identity escape such as `\–`, which the rewrite would change) or there is none.
 * esbuild escapes strings and identifiers, not regular expression literals (`/[×÷√]/`), and one
 * such character makes V8 hold the whole source as a two-byte string: decoded on the slow path,
 * hashed and scanned at twice the size at every start. In a regular expression, with or without
 * the u flag, `\uXXXX` (a surrogate pair as two escapes) means what the character did; in a
 * comment it means nothing.
 */
export function asciiOnly(src: string): string | undefined {
  if (!/[\u0080-\uffff]/.test(src) || /\\[\u0080-\uffff]/.test(src)) return undefined;
  return src.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
