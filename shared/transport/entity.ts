// The xmpp.js entities XmppTransport drives (@xmpp/client, @xmpp/component), and its options.
import type { EventEmitter } from 'node:events';
import type { Element } from '@xmpp/xml';
import type { Logger } from '../log/index.js';
import type { AckGate } from './sm-fix.js';
import type { Transport } from './types.js';

/** The part of an xmpp.js entity this transport drives. */
export interface XmppEntity extends EventEmitter {
  status: string;
  socket: (import('node:net').Socket & EventEmitter) | null;
  options: { service: string; domain: string; lang?: string };
  reconnect: { stop(): void };
  start(): Promise<unknown>;
  stop(): Promise<unknown>;
  connect(service: string): Promise<unknown>;
  open(opts: { domain: string; lang?: string }): Promise<unknown>;
  send(el: Element): Promise<void>;
  disconnect?(): Promise<unknown>;
}

/** xmpp.js's iq-callee (the part we use). */
export interface IqCallee {
  get(ns: string, name: string, handler: (ctx: { stanza: Element; element: Element }) => unknown): void;
  set(ns: string, name: string, handler: (ctx: { stanza: Element; element: Element }) => unknown): void;
}

/** xmpp.js's iq-caller (the part we use). */
export interface IqCaller {
  request(el: Element, timeoutMs?: number): Promise<Element>;
}

export interface XmppTransportOptions {
  address: string;
  entity: XmppEntity;
  logger: Logger;
  /** Sent on every (re)connect, e.g. the client's initial presence. */
  onOnline?: (transport: Pick<Transport, 'sendRaw'>) => Promise<void>;
  maxBackoffMs?: number;
  /** Outbox bound: beyond it the oldest queued stanza is dropped and logged. */
  maxQueued?: number;
  /** XEP-0198: told when each message/presence is taken in and handled, so only handled ones are acked (sm-fix.ts). */
  gate?: AckGate;
  /**
   * The nodes of an ejabberd cluster (xmpp://host:port), first the one to log in to: a lost
   * stream reconnects to the next one (issue #14 §1). Absent: the entity's own service only.
   */
  endpoints?: string[];
  /** Back to the first endpoint once it returns, checked about this often (home.ts); 0 or absent: never. */
  returnHomeMs?: number;
  /** XEP-0198: our stanzas the server has not acknowledged yet (xmpp.js outbound_q). */
  unackedOut?: () => number;
  /**
   * XEP-0114: a new entity of the same component for `service`, not started. With it the return
   * home is make-before-break (component-move.ts) instead of a broken socket and <resume/>.
   */
  spare?: (service: string) => XmppEntity;
}

export type IqHandler = (stanza: Element, child: Element) => Promise<Element | undefined> | Element | undefined;

/** Registers `handler` for IQ `type` requests whose child is `name` in `ns` on `e` (xmpp.js iq-callee). */
export function answerIq(e: XmppEntity, address: string, type: 'get' | 'set', ns: string, name: string, handler: IqHandler): void {
  const callee = (e as XmppEntity & { iqCallee?: IqCallee }).iqCallee;
  if (!callee) throw new Error(`${address}: this transport answers no IQs`);
  callee[type](ns, name, (ctx) => handler(ctx.stanza, ctx.element));
}
