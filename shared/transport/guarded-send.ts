// What every stanza passes on its way out of a transport's connection: nothing in it may make
// ejabberd end our stream (an agent cut off that way reconnects and resends what it had just
// sent, and is cut off again: a loop that answers no one meanwhile).
import type { Element } from '@xmpp/xml';
import type { Logger } from '../log/index.js';
import { stanzaBytesOver } from './stanza-size.js';
import { makeXmlSafe } from './xml-safe.js';

/**
 * `send` for a connection: the stanza made XML-safe (xml-safe.ts), dropped with an error logged
 * when it is over the server's max_stanza_size (stanza-size.ts), else handed to `deliver`.
 */
export function guardedSend(log: Logger, deliver: (el: Element) => Promise<void>): (el: Element) => Promise<void> {
  return (el: Element) => {
    if (makeXmlSafe(el) > 0) log.warn({ stanza: el.name, id: el.attrs.id }, 'characters XML does not allow were replaced by U+FFFD before sending');
    const over = stanzaBytesOver(el);
    if (over !== undefined) {
      log.error({ stanza: el.name, id: el.attrs.id, to: el.attrs.to, bytes: over }, 'a stanza over the server\'s max_stanza_size was not sent (it would have ended our stream)');
      return Promise.resolve();
    }
    return deliver(el);
  };
}
