// Minimal typings for the parts of xmpp.js (0.14 client, 0.13 component) that Parley uses;
// xmpp.js ships none.
declare module '@xmpp/xml' {
  export class Element {
    name: string;
    attrs: Record<string, string | undefined>;
    children: Array<Element | string>;
    parent: Element | null;
    constructor(name: string, attrs?: Record<string, unknown>);
    is(name: string, xmlns?: string): boolean;
    getChild(name: string, xmlns?: string): Element | undefined;
    getChildren(name: string, xmlns?: string): Element[];
    getChildText(name: string, xmlns?: string): string | null;
    getChildElements(): Element[];
    getText(): string;
    text(): string;
    append(...el: Array<Element | string>): Element;
    c(name: string, attrs?: Record<string, unknown>): Element;
    t(text: string): Element;
    toString(): string;
  }
  type Child = Element | string | null | undefined | false;
  /** The stream parser (ltx SAX underneath): emits 'start', 'element', 'end', 'error'. */
  export class Parser {
    on(event: 'element' | 'start' | 'end', listener: (el: Element) => void): this;
    on(event: 'error', listener: (err: Error) => void): this;
    write(data: string | Buffer): void;
    end(data?: string | Buffer): void;
  }
  function xml(name: string, attrs?: Record<string, unknown> | null, ...children: Child[]): Element;
  namespace xml {
    export { Element, Parser };
  }
  export { Element, xml };
  export default xml;
}

declare module '@xmpp/events' {
  export { EventEmitter } from 'node:events';
}

declare module '@xmpp/connection' {
  import type { EventEmitter } from 'node:events';
  import type { Element } from '@xmpp/xml';

  /** What the client and the component share (both are an xmpp.js Connection). */
  export interface XmppConnection extends EventEmitter {
    status: string;
    socket: (import('node:net').Socket & EventEmitter) | null;
    reconnect: EventEmitter & { stop(): void; start(): void; delay: number };
    iqCallee: {
      get(ns: string, name: string, handler: (ctx: unknown) => unknown): void;
      set(ns: string, name: string, handler: (ctx: unknown) => unknown): void;
    };
    start(): Promise<unknown>;
    stop(): Promise<unknown>;
    connect(service: string): Promise<unknown>;
    open(opts: { domain: string; lang?: string }): Promise<unknown>;
    disconnect(): Promise<unknown>;
    send(el: Element): Promise<void>;
  }
}

declare module '@xmpp/client' {
  import type { EventEmitter } from 'node:events';
  import type { XmppConnection } from '@xmpp/connection';
  import type { Element } from '@xmpp/xml';
  import xml from '@xmpp/xml';

  export interface StreamManagement extends EventEmitter {
    enabled: boolean;
    id: string;
    preferredMaximum: number | null;
    timeout: number;
    requestAckInterval: number;
    requestAckDebounce: number;
    outbound_q: Array<{ stanza: Element; stamp: string }>;
  }

  export interface XmppClient extends XmppConnection {
    jid: { toString(): string; bare(): { toString(): string } } | null;
    options: { service: string; domain: string; lang?: string };
    streamManagement: StreamManagement;
    iqCaller: { request(el: Element, timeout?: number): Promise<Element> };
    sendMany(els: Element[]): Promise<void>;
  }

  export interface ClientOptions {
    service: string;
    domain: string;
    resource?: string;
    username?: string;
    password?: string;
    credentials?: (
      authenticate: (creds: { username: string; password: string }, mechanism: string, userAgent?: unknown) => Promise<void>,
      mechanisms: string[],
    ) => Promise<void>;
  }

  export function client(options: ClientOptions): XmppClient;
  export { xml };
}

declare module '@xmpp/component' {
  import type { XmppConnection } from '@xmpp/connection';
  import xml from '@xmpp/xml';

  export interface XmppComponent extends XmppConnection {
    jid: { toString(): string } | null;
    options: { service: string; domain: string };
  }

  export function component(options: { service: string; domain: string; password: string }): XmppComponent;
  export { xml };
}

declare module '@xmpp/stream-management' {
  import type { EventEmitter } from 'node:events';
  import type { Element } from '@xmpp/xml';

  type Middleware = (ctx: { stanza: Element }, next: () => Promise<unknown>) => unknown;
  /** The XEP-0198 plugin itself (unit tests drive it with a fake entity and middleware). */
  export default function streamManagement(deps: {
    entity: EventEmitter & { send(el: Element): Promise<unknown>; hook(name: string, fn: () => unknown): void; disconnect(): Promise<unknown> };
    middleware: { use(fn: Middleware): unknown; filter(fn: Middleware): unknown };
    streamFeatures?: unknown;
    bind2?: unknown;
    sasl2?: unknown;
  }): EventEmitter & { inbound: number; enabled: boolean; requestAckInterval: number; timeout: number };
}

declare module '@xmpp/jid' {
  export class JID {
    constructor(local: string | null, domain: string, resource?: string | null);
    setLocal(local: string | null, escape?: boolean): JID;
    getLocal(unescape?: boolean): string;
    toString(unescape?: boolean): string;
  }
  export function jid(...args: string[]): JID;
  export function detectEscape(local: string): boolean;
  export function escapeLocal(local: string): string;
}
