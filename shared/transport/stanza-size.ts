// No stanza over ejabberd's max_stanza_size leaves an agent: ejabberd ends the stream of whoever
// sends one (RFC 6120 §4.9.3.12 <policy-violation/>), and an agent's resend after the reconnect
// (shared/runtime sent-log.ts) would send it again, and be cut off again, for as long as it stayed
// in the resend window. Envelopes are kept far below this (shared/runtime outbound-fit.ts); this
// is the last net for whatever else an agent writes.
import type { Element } from '@xmpp/xml';

/** max_stanza_size of the listeners agents use (ejabberd/ejabberd.yml.tmpl; a unit test compares). */
export const MAX_STANZA_BYTES = 1_048_576;

/** Characters in `el`'s names, attribute values and text (its children's included), and how many names. */
function measure(el: Element, acc: { chars: number; names: number }): void {
  acc.chars += el.name.length;
  acc.names += 1;
  const attrs = el.attrs as Record<string, unknown>;
  for (const name in attrs) {
    const value = attrs[name];
    acc.chars += name.length + (typeof value === 'string' ? value.length : String(value).length);
    acc.names += 1;
  }
  for (const child of el.children as Array<Element | string>) {
    if (typeof child === 'string') acc.chars += child.length;
    else if (child && typeof child === 'object') measure(child, acc);
  }
}

/**
 * The bytes `el` takes on the wire when that is over `limit`, else undefined. A UTF-16 unit
 * becomes at most 6 bytes (`"` is written `&quot;`; a character at most 3 bytes of UTF-8), and a
 * name or attribute adds its markup: only a stanza whose bound is over the limit is serialised.
 */
export function stanzaBytesOver(el: Element, limit = MAX_STANZA_BYTES): number | undefined {
  const acc = { chars: 0, names: 0 };
  measure(el, acc);
  if (acc.chars * 6 + acc.names * 8 <= limit) return undefined;
  const bytes = Buffer.byteLength(el.toString(), 'utf8');
  return bytes > limit ? bytes : undefined;
}
