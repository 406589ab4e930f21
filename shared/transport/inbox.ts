// The transport's inbound side: one stanza at a time, each in its own turn of the event loop,
// and counted as handled for XEP-0198 only once the listeners returned (sm-fix.ts AckGate).
// With a burst hook (group commit, shared/store/group-commit.ts) a burst is one unit: begun
// before its first stanza, ended after its last (or every MAX_BURST stanzas), and its stanzas
// count as handled only once it ended, i.e. once what they changed is committed.
import type { EventEmitter } from 'node:events';
import type { Element } from '@xmpp/xml';
import type { AckGate } from './sm-fix.js';
import { readMessage } from './stanza.js';

/** Begins and ends a burst; begin() false: no burst (stanzas are acknowledged one by one, as without a hook). */
export interface BurstHook {
  begin(): boolean;
  /** Must not throw (the transport logs a failed commit). */
  end(): void;
}

/** A burst ends after this many stanzas even if more wait: bounds the acks, sends and writes held at once. */
export const MAX_BURST = 64;

interface Held {
  stanza: Element;
  /** Tells the XEP-0198 counter the stanza is handled (sm-fix.ts AckGate). */
  release?: () => void;
}

export class Inbox {
  private queue: Held[] = [];
  private draining = false;
  /** A burst is open (hook.begin() said so): releases wait in `owed` until it ends. */
  private inBurst = false;
  private burstSize = 0;
  private owed: Array<() => void> = [];
  private closed = false;

  constructor(private readonly events: EventEmitter, private readonly gate?: AckGate, private readonly hook?: BurstHook) {}

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
    if (this.closed) return; // never handled, never acknowledged: the server delivers it again
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
    if (next === undefined || this.closed) {
      this.draining = false;
      // The burst's promises (invoked actors) settled in the turns between: their writes are in it.
      this.endBurst();
      return;
    }
    setImmediate(this.drain); // first: a throwing listener must not stall the inbox
    if (this.burstSize >= MAX_BURST) this.endBurst();
    this.deliver(next);
  };

  /**
   * The stream broke: handle what is waiting now, so that the XEP-0198 count sent in <resume h>
   * covers every stanza parsed on the old stream (the server resends only those after h).
   */
  drainNow(): void {
    for (let next = this.queue.shift(); next !== undefined; next = this.queue.shift()) this.deliver(next);
    this.endBurst();
  }

  /**
   * The transport stops: the open burst ends (committed, answered, acknowledged) and nothing
   * more is handled. What still waits stays unacknowledged, so the server delivers it again to
   * the next process; handling it now would commit work whose answers could no longer leave.
   */
  close(): void {
    this.closed = true;
    this.queue = [];
    this.endBurst();
  }

  /** The transport starts again. */
  reopen(): void {
    this.closed = false;
  }

  /** Ends the open burst now: commit, its sends, then its acknowledgements. */
  endBurst(): void {
    if (!this.inBurst) return;
    this.inBurst = false;
    this.burstSize = 0;
    const owed = this.owed;
    this.owed = [];
    try {
      this.hook?.end();
    } finally {
      for (const release of owed) release();
    }
  }

  /** Hands a stanza to the listeners; it counts as handled (XEP-0198) once they returned, or once its burst ended. */
  private deliver({ stanza, release }: Held): void {
    if (!this.inBurst && this.hook) this.inBurst = this.hook.begin();
    this.burstSize += 1;
    try {
      if (stanza.name === 'message') {
        this.events.emit('message', readMessage(stanza));
      } else if (stanza.name === 'presence') {
        this.events.emit('presence', stanza);
      }
    } finally {
      if (release && this.inBurst) this.owed.push(release);
      else release?.();
    }
  }
}
