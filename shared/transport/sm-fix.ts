// Works around an XEP-0198 counter bug in @xmpp/stream-management 0.14: it resets its inbound
// counter `h` in a microtask after <enabled/> arrives, but stanzas that follow <enabled/> in the
// same TCP chunk are counted (and a following <r/> answered) before that reset. Seen after every
// reconnect: the stale count from the old session plus the new presence gave <a h="2"/> for one
// stanza, ejabberd closed the stream ("Client acknowledged more stanzas than sent by server"),
// and anything it believed acked would have been lost. We reset `h` synchronously when <enabled/>
// is parsed and ignore the library's late reset.
import type { Element } from '@xmpp/xml';
import type { EventEmitter } from 'node:events';

export const NS_SM = 'urn:xmpp:sm:3';

export interface CountingStreamManager {
  inbound: number;
}

export function fixInboundCounter(entity: EventEmitter, sm: CountingStreamManager): void {
  let inbound = sm.inbound;
  let lateResetPending = false;
  Object.defineProperty(sm, 'inbound', {
    configurable: true,
    enumerable: true,
    get: () => inbound,
    set: (value: number) => {
      if (value === 0 && lateResetPending) {
        lateResetPending = false; // the library's own reset after <enabled/>: already done
        return;
      }
      inbound = value;
    },
  });
  entity.on('nonza', (el: Element) => {
    if (el.name === 'enabled' && el.attrs.xmlns === NS_SM) {
      inbound = 0;
      lateResetPending = true;
    }
  });
  // A stream that dies between <enabled/> and the library's reset must not swallow a later one.
  entity.on('disconnect', () => {
    lateResetPending = false;
  });
}
