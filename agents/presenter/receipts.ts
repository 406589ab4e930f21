// What a person's client shows beside a line it sent: XEP-0184 message delivery receipts ("✓✓",
// delivered) and XEP-0333 chat markers ("read"). Conversations, Gajim and Dino ask for them on
// every line; a contact that never answers leaves each line marked as only sent to the server, as
// if the Presenter had not got it. The Presenter acknowledges a line once it has taken it in (a
// question asked, queued, or answered at once); a line it ignored or refused gets nothing.
import { xml } from '@xmpp/client';
import type { Element } from '@xmpp/xml';
import { randomUUID } from 'node:crypto';
import type { InboundMessage } from '../../shared/transport/index.js';

export const NS_RECEIPTS = 'urn:xmpp:receipts';
export const NS_MARKERS = 'urn:xmpp:chat-markers:0';
const NS_HINTS = 'urn:xmpp:hints';

/**
 * The acknowledgement of `msg`, or undefined when it asked for none. XEP-0184 §5.1: <received/>
 * names the line's id, only for a line that asked (<request/>) and has an id. XEP-0333 §4:
 * <displayed/> for a <markable/> line, also by its id (one-to-one chat). One stanza carries both,
 * with the line's thread (RFC 6121 §5.2.5) and a <store/> hint (XEP-0334) so a client that was
 * offline still gets it from its offline storage.
 */
export function acknowledgement(msg: InboundMessage): Element | undefined {
  if (!msg.id || (msg.type !== 'chat' && msg.type !== 'normal')) return undefined;
  const receipt = msg.stanza.getChild('request', NS_RECEIPTS) !== undefined;
  const marker = msg.stanza.getChild('markable', NS_MARKERS) !== undefined;
  if (!receipt && !marker) return undefined;
  return xml('message', { to: msg.from, type: msg.type, id: `ack-${randomUUID()}` },
    ...(msg.thread ? [xml('thread', {}, msg.thread)] : []),
    ...(receipt ? [xml('received', { xmlns: NS_RECEIPTS, id: msg.id })] : []),
    ...(marker ? [xml('displayed', { xmlns: NS_MARKERS, id: msg.id })] : []),
    xml('store', { xmlns: NS_HINTS }));
}

/** Outcomes of a line (ChatDesk) that mean the Presenter took it in: worth a receipt. */
export function takenIn(outcome: string): boolean {
  return outcome !== 'ignored' && outcome !== 'refused';
}
