// Only characters XML 1.0 allows leave an agent (XML 1.0 §2.2 Char: #x9 | #xA | #xD |
// [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]). xmpp.js escapes markup but writes any
// other character as it is, and ejabberd ends the stream of whoever sends one it may not
// ("not-well-formed (invalid token)"). Text an agent did not write can hold them: a JSON escape
// such as "\uffff" or "\u0001" in a peer's envelope or a skill's answer becomes the raw character
// once parsed, and agents copy a request's conversation_id into their reply's <thread>, its
// values into a NOT-UNDERSTOOD's reason, an answer into a person's chat line. Measured before this
// module: one message from an ordinary account, performative "REQUEST\uffff", and the
// Coordinator's NOT-UNDERSTOOD made ejabberd close its stream; it reconnected and resent that
// reply (sent-log.ts), was closed again, every ≈ 180 ms for more than half a minute, and answered
// no one meanwhile. Every outbound stanza is made safe here first: each disallowed character
// becomes U+FFFD, so a stanza can no longer take its sender's stream down.
// Envelope bodies keep such characters losslessly as JSON escapes (shared/acl envelopeJson), so
// a signature over them still verifies; this pass then finds nothing in them.
import type { Element } from '@xmpp/xml';

const DISALLOWED = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;
const DISALLOWED_ALL = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** `text` with every character XML 1.0 disallows replaced by U+FFFD (the same string when there is none). */
export function xmlSafeText(text: string): string {
  return DISALLOWED.test(text) ? text.replace(DISALLOWED_ALL, '\uFFFD') : text;
}

/**
 * Replaces, in place, every character XML 1.0 disallows in `el`'s attribute values and text, its
 * children's included, by U+FFFD. Returns how many strings it changed (0: `el` was already safe).
 */
export function makeXmlSafe(el: Element): number {
  let changed = 0;
  const attrs = el.attrs as Record<string, unknown>;
  for (const name in attrs) {
    const value = attrs[name];
    if (typeof value !== 'string') continue;
    const safe = xmlSafeText(value);
    if (safe !== value) {
      attrs[name] = safe;
      changed += 1;
    }
  }
  const children = el.children as Array<Element | string>;
  for (let i = 0; i < children.length; i++) {
    const child = children[i];
    if (typeof child === 'string') {
      const safe = xmlSafeText(child);
      if (safe !== child) {
        children[i] = safe;
        changed += 1;
      }
    } else if (child && typeof child === 'object') {
      changed += makeXmlSafe(child);
    }
  }
  return changed;
}
