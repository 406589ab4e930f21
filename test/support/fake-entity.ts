// A stand-in for an xmpp.js entity driven the way @xmpp/connection drives it: each parsed element
// runs the middleware, then is emitted as 'stanza' or 'nonza', synchronously. With the real
// @xmpp/stream-management plugin on it (sm-ack.test.ts, group-commit.test.ts).
import { EventEmitter } from 'node:events';
import type { Element } from '@xmpp/xml';

type Mw = (ctx: { stanza: Element }, next: () => Promise<unknown>) => unknown;

export class FakeEntity extends EventEmitter {
  status = 'online';
  socket = null;
  options = { service: 'xmpp://127.0.0.1:1', domain: 'localhost' };
  reconnect = { stop: () => undefined };
  sent: Element[] = [];
  readonly incoming: Mw[] = [];
  async start() {}
  async stop() {}
  async connect() {}
  async open() {}
  async disconnect() {}
  hook() {}
  async send(el: Element) {
    this.sent.push(el);
  }
  /** @xmpp/connection _onElement: middleware, then 'stanza'/'nonza', in one synchronous call. */
  parse(el: Element) {
    const run = (i: number): Promise<unknown> => Promise.resolve(this.incoming[i]?.({ stanza: el }, () => run(i + 1)));
    void run(0);
    this.emit(['message', 'presence', 'iq'].includes(el.name) ? 'stanza' : 'nonza', el);
  }
  acks(): number[] {
    return this.sent.filter((e) => e.name === 'a').map((e) => Number(e.attrs.h));
  }
  messages(): number {
    return this.sent.filter((e) => e.name === 'message').length;
  }
}

/**
 * Records h of every <a/> `entity` writes, next to `handled()` at that moment (wraps entity.send:
 * install it before anything that wraps send again, so it sees what reaches the wire).
 */
export function recordAcks(entity: FakeEntity, handled: () => number): Array<{ h: number; handled: number }> {
  const seen: Array<{ h: number; handled: number }> = [];
  const send = entity.send.bind(entity);
  entity.send = async (el: Element) => {
    if (el.name === 'a') seen.push({ h: Number(el.attrs.h), handled: handled() });
    return send(el);
  };
  return seen;
}
