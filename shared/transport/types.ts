// The transport seam: agents see messages, never sockets. Wire format (architecture.md):
// <message type="normal" id="{reply_with}"><thread>{conversation_id}</thread><body>{envelope JSON}</body></message>
import type { Element } from '@xmpp/xml';

export interface InboundMessage {
  /** Full JID of the sender as stamped by ejabberd (authenticated, unlike the envelope's sender). */
  from: string;
  fromBare: string;
  to: string;
  toBare: string;
  type: string;
  id?: string;
  thread?: string;
  body?: string;
  /** XEP-0085 chat state element name, when present (composing, active, …). */
  chatState?: string;
  /** XEP-0203 delay stamp: the message was stored offline or resent after a reconnect. */
  delayed: boolean;
  stanza: Element;
  receivedAt: number;
}

export interface OutboundMessage {
  to: string;
  /** Component transports send from many JIDs; client transports ignore it. */
  from?: string;
  type?: 'normal' | 'chat' | 'headline';
  id?: string;
  thread?: string;
  body?: string;
  chatState?: 'active' | 'composing' | 'paused' | 'inactive' | 'gone';
  /** Extra child elements (e.g. an .ics attachment as XEP-0066 oob, or a subject). */
  children?: Element[];
}

export type TransportStatus = 'offline' | 'connecting' | 'online';

export interface Transport {
  /** Bare JID (client) or component domain. */
  readonly address: string;
  readonly status: TransportStatus;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Queues while offline; never throws for a closed socket (the message goes out on reconnect). */
  send(msg: OutboundMessage): void;
  /** Send a raw stanza (presence, iq); dropped when offline. */
  sendRaw(el: Element): Promise<void>;
  onMessage(handler: (msg: InboundMessage) => void): void;
  onPresence(handler: (stanza: Element) => void): void;
  on(event: 'online' | 'offline', handler: () => void): void;
}
