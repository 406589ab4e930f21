// Building and reading message stanzas. XEP-0201: <thread> carries the conversation_id.
import xml, { type Element } from '@xmpp/xml';
import type { InboundMessage, OutboundMessage } from './types.js';

export const NS_CHATSTATES = 'http://jabber.org/protocol/chatstates';
export const NS_DELAY = 'urn:xmpp:delay';

export function bare(jid: string): string {
  const slash = jid.indexOf('/');
  return slash === -1 ? jid : jid.slice(0, slash);
}

export function messageStanza(msg: OutboundMessage): Element {
  const attrs: Record<string, string> = { to: msg.to, type: msg.type ?? 'normal' };
  if (msg.from) attrs.from = msg.from;
  if (msg.id) attrs.id = msg.id;
  const children: Element[] = [];
  if (msg.thread) children.push(xml('thread', {}, msg.thread));
  if (msg.body !== undefined) children.push(xml('body', {}, msg.body));
  if (msg.chatState) children.push(xml(msg.chatState, { xmlns: NS_CHATSTATES }));
  if (msg.children) children.push(...msg.children);
  return xml('message', attrs, ...children);
}

/**
 * The body to read (RFC 6121 §5.2.3): a message may carry one <body/> per language, each with its
 * own xml:lang. The one in the stanza's own language is read: a body without xml:lang (it inherits
 * the stanza's), else the one whose xml:lang is the stanza's, else the first.
 */
function bodyOf(stanza: Element): string | undefined {
  let first: Element | undefined;
  let sameLang: Element | undefined;
  let count = 0;
  const lang = stanza.attrs['xml:lang'] as string | undefined;
  for (const c of stanza.children) {
    if (typeof c === 'string' || c.name !== 'body') continue;
    count += 1;
    const own = c.attrs['xml:lang'] as string | undefined;
    if (own === undefined) return c.text();
    first ??= c;
    if (lang !== undefined && sameLang === undefined && own.toLowerCase() === lang.toLowerCase()) sameLang = c;
  }
  if (count === 0) return undefined;
  return (sameLang ?? first)?.text();
}

export function readMessage(stanza: Element, receivedAt = Date.now()): InboundMessage {
  const from = String(stanza.attrs.from ?? '');
  const to = String(stanza.attrs.to ?? '');
  const chatState = stanza.children.find(
    (c): c is Element => typeof c !== 'string' && c.attrs?.xmlns === NS_CHATSTATES,
  );
  return {
    from,
    fromBare: bare(from),
    to,
    toBare: bare(to),
    type: String(stanza.attrs.type ?? 'normal'),
    id: stanza.attrs.id as string | undefined,
    thread: stanza.getChildText('thread') ?? undefined,
    body: bodyOf(stanza),
    chatState: chatState?.name,
    delayed: Boolean(stanza.getChild('delay', NS_DELAY)),
    stanza,
    receivedAt,
  };
}
