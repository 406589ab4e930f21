// The transport's inbound side: one stanza at a time, each in its own turn of the event loop,
// and counted as handled for XEP-0198 only once the listeners returned (sm-fix.ts AckGate).
import type { EventEmitter } from 'node:events';
import type { Element } from '@xmpp/xml';
import type { AckGate } from './sm-fix.js';
import { readMessage } from './stanza.js';

interface Held {
  stanza: Element;
  /** Tells the XEP-0198 counter the stanza is handled (sm-fix.ts AckGate). */
  release?: () => void;
}

export class Inbox {
  private queue: Held[] = [];
  private draining = false;

  constructor(private readonly events: EventEmitter, private readonly gate?: AckGate) {}

  /**
   * One inbound stanza at a time, each in its own turn of the event loop once a burst arrives:
   * xmpp.js parses every stanza of a TCP read in one synchronous loop, so without this the
   * promises (invoked actors) started by the first would settle only after the last was
   * handled, and a burst of 50 requests would look like 50 concurrent exchanges (a specialist
   * at its concurrency limit REFUSEs busy work it would finish in microseconds). The first
   * stanza is handled at once; the rest wait for the previous one's promises (setImmediate).
   */
  /** Nothing waiting to be handled. */
  get idle(): boolean {
    return !this.draining && this.queue.length === 0;
  }

  dispatch(stanza: Element): void {
    const held: Held = { stanza };
    if (stanza.name === 'message' || stanza.name === 'presence') {
      const release = this.gate?.hold();
      if (release) held.release = release;
    }
    if (this.draining) {
      this.queue.push(held);
      return;
    }
    this.draining = true;
    setImmediate(this.drain);
    this.deliver(held);
  }

  private readonly drain = (): void => {
    const next = this.queue.shift();
    if (next === undefined) {
      this.draining = false;
      return;
    }
    setImmediate(this.drain); // first: a throwing listener must not stall the inbox
    this.deliver(next);
  };

  /**
   * The stream broke: handle what is waiting now, so that the XEP-0198 count sent in <resume h>
   * covers every stanza parsed on the old stream (the server resends only those after h).
   */
  drainNow(): void {
    for (let next = this.queue.shift(); next !== undefined; next = this.queue.shift()) this.deliver(next);
  }

  /** Hands a stanza to the listeners; it counts as handled (XEP-0198) once they returned. */
  private deliver({ stanza, release }: Held): void {
    try {
      if (stanza.name === 'message') {
        this.events.emit('message', readMessage(stanza));
      } else if (stanza.name === 'presence') {
        this.events.emit('presence', stanza);
      }
    } finally {
      release?.();
    }
  }
}
