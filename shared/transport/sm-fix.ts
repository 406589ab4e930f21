// XEP-0198 inbound counting for @xmpp/stream-management 0.14, which owns the counter `h` as a
// plain property (`sm.inbound`): it adds one when a stanza is parsed and answers every <r/> with
// that count. We take the property over (get/set), for two reasons.
//
// 1. Ack only what was handled (issue 12). "Handled" = the transport's message listeners returned
//    (Agent.receive is synchronous; durable roles commit the envelope's effect to SQLite inside
//    it). Stanzas of a burst wait in the transport's inbox, one per event-loop turn; xmpp.js
//    counted them at parse time, so an <r/> behind them was answered with an h that included
//    them, ejabberd dropped them from its queue, and a kill -9 lost them. Here the library reads
//    `parsed - pending` (pending = handed to the transport, not yet handled); its increments
//    still land on `parsed`. When an <r/> found stanzas pending, an unsolicited <a/> follows as
//    soon as the inbox is empty (XEP-0198 §4: <a/> MAY be sent at any time).
// 2. The counter bug after <enabled/>: the library resets `h` in a microtask after <enabled/>
//    arrives, but stanzas that follow <enabled/> in the same TCP chunk are counted (and a
//    following <r/> answered) before that reset. Seen after every reconnect: the stale count plus
//    the new presence gave <a h="2"/> for one stanza, ejabberd closed the stream ("Client
//    acknowledged more stanzas than sent by server"). We reset synchronously when <enabled/> is
//    parsed and ignore the library's late reset.
// 3. Acks are answered a little later (`ackDelayMs`), not in the turn the <r/> arrived. ejabberd
//    asks (<r/>) after every stanza it sends whenever no ask is open (mod_stream_mgmt send_rack),
//    so each inbound stanza cost its own <a/> write (a syscall on the hot path: 8 % of the
//    Registry's CPU per DF query, npm run bench agents-scale --cpu-prof) and ejabberd an <r/> and
//    an <a/>. Answered after the delay, one <r/>/<a/> pair covers every stanza of that window.
//    XEP-0198 §4 sets no deadline (ejabberd's ack_timeout is 60 s); h is read when the answer
//    leaves, so it still counts only what was handled, and a stream that breaks meanwhile sends
//    nothing (its <resume h> carries the count). A graceful close answers at once.
// 4. Our own outbound queue (askAckEvery below): the library asks the server for an ack (<r/>)
//    only 250 ms after the last stanza it sent, and every stanza sent restarts that wait. An
//    agent that never pauses that long never asks, so it keeps every stanza it ever sent in
//    `outbound_q` (memory that only grows; after hours of traffic a broken stream that cannot
//    resume would send them all again, and dropping the queue at close is O(n²) shifts).
import xml, { type Element } from '@xmpp/xml';
import type { EventEmitter } from 'node:events';

export const NS_SM = 'urn:xmpp:sm:3';

export interface CountingStreamManager {
  inbound: number;
  enabled?: boolean;
}

/** What the transport tells the counter: a stanza is taken in, and (the returned call) handled. */
export interface AckGate {
  /** A message/presence was handed over for handling; call the result once it is handled. */
  hold(): () => void;
  /** Stanzas handed over and not yet handled (on this stream). */
  readonly pending: number;
}

type AckingEntity = EventEmitter & {
  send?(el: Element): Promise<unknown>;
  hook?(event: 'close', handler: () => unknown): void;
};

const isAck = (el: Element) => el.name === 'a' && el.attrs.xmlns === NS_SM;

export function fixInboundCounter(entity: AckingEntity, sm: CountingStreamManager, ackDelayMs = 0): AckGate {
  let parsed = sm.inbound;
  let pending = 0;
  /** Bumped at every reset: stanzas held on an older stream no longer count on this one. */
  let epoch = 0;
  let lateResetPending = false;
  let owed = false;
  const reset = () => {
    parsed = 0;
    pending = 0;
    owed = false;
    epoch += 1;
  };
  Object.defineProperty(sm, 'inbound', {
    configurable: true,
    enumerable: true,
    // What the library reports (<a h>, <resume h>): stanzas handled, not merely parsed.
    get: () => parsed - pending,
    set: (value: number) => {
      if (value === 0) {
        if (lateResetPending) {
          lateResetPending = false; // the library's own reset after <enabled/>: already done
          return;
        }
        reset();
        return;
      }
      parsed = value + pending; // the library's `inbound += 1` on a parsed stanza
    },
  });
  const later = ackDelayMs > 0 && entity.send ? deferAcks(entity as AckingEntity & { send(el: Element): Promise<unknown> }, sm, ackDelayMs) : undefined;
  entity.on('nonza', (el: Element) => {
    if (el.name === 'enabled' && el.attrs.xmlns === NS_SM) {
      reset();
      lateResetPending = true;
    } else if (el.name === 'r' && el.attrs.xmlns === NS_SM && pending > 0) {
      owed = true; // the library answered with what was handled so far; the rest follows
    }
  });
  // A stream that dies between <enabled/> and the library's reset must not swallow a later one.
  entity.on('disconnect', () => {
    lateResetPending = false;
    owed = false;
    later?.cancel();
  });
  return {
    get pending() {
      return pending;
    },
    hold() {
      const mine = epoch;
      pending += 1;
      let done = false;
      return () => {
        if (done || mine !== epoch) return;
        done = true;
        pending -= 1;
        if (pending === 0 && owed && sm.enabled && entity.send) {
          owed = false;
          entity.send(xml('a', { xmlns: NS_SM, h: String(parsed) })).catch(() => undefined);
        }
      };
    },
  };
}

/**
 * Point 3 above: every <a/> sent through `entity.send` (the library's answer to <r/>, the gate's
 * unasked one) becomes one answer `delayMs` later, with the handled count of that moment.
 */
function deferAcks(entity: AckingEntity & { send(el: Element): Promise<unknown> }, sm: CountingStreamManager, delayMs: number): { cancel(): void } {
  const send = entity.send.bind(entity);
  let timer: NodeJS.Timeout | undefined;
  const answer = () => {
    clearTimeout(timer);
    timer = undefined;
    if (sm.enabled) send(xml('a', { xmlns: NS_SM, h: String(sm.inbound) })).catch(() => undefined);
  };
  entity.send = (el: Element) => {
    if (!isAck(el)) return send(el);
    timer ??= setTimeout(answer, delayMs);
    return Promise.resolve();
  };
  // The library's close hook (registered before this one) asked for a last <a/>: send it now.
  entity.hook?.('close', () => {
    if (timer) answer();
  });
  return {
    cancel() {
      clearTimeout(timer);
      timer = undefined;
    },
  };
}

/** The stanzas XEP-0198 counts (§4); nonzas such as <r/> and <a/> never enter the queue. */
const COUNTED = new Set(['message', 'presence', 'iq']);

/** What askAckEvery reads and hooks of the client (xmpp.js 0.14). */
interface FilteringEntity {
  send(el: Element): Promise<unknown>;
  middleware: { filter(fn: (ctx: { stanza: Element }, next: () => Promise<unknown>) => unknown): void };
}

/**
 * Point 4 above: ask the server for an ack (XEP-0198 §4: <r/> MAY be sent at any time) each time
 * `every` more stanzas wait unacknowledged, so the queue stays within about `every` however
 * busy the stream is. Registered after the library's filter, so the stanza is already queued.
 */
export function askAckEvery(entity: FilteringEntity, sm: CountingStreamManager & { outbound_q: unknown[] }, every = 100): void {
  entity.middleware.filter((ctx, next) => {
    const sent = next();
    const waiting = sm.outbound_q.length;
    if (sm.enabled && waiting > 0 && waiting % every === 0 && COUNTED.has(ctx.stanza.name)) {
      void Promise.resolve(sent).then(() => entity.send(xml('r', { xmlns: NS_SM }))).catch(() => undefined);
    }
    return sent;
  });
}
