// xmpp.js turns each socket read into text on its own (@xmpp/connection 0.14 `_onData`:
// `data.toString("utf8")`). A read ends wherever the kernel cut the stream, so a character of two
// to four UTF-8 bytes can be split across two reads, and each half then decodes to U+FFFD: the
// text of the stanza changes. Measured against our ejabberd: 200 messages of 'é€😀ж' × 2,000 sent
// in a burst to a plain @xmpp/client, 20 arrived altered. For a signed envelope that is a
// BAD_SIGNATURE (the message is lost); for a person's chat line, garbled text.
// The fix without changing xmpp.js: decode each socket's reads with Node's StringDecoder, which
// holds back the bytes of an unfinished character until the next read (what `socket.setEncoding`
// does). A new socket (reconnect, STARTTLS's TLS socket) gets a new decoder: bytes left over from
// a dead socket never prefix the next stream.
import { StringDecoder } from 'node:string_decoder';

interface ReadingEntity {
  socket?: unknown;
  parser?: unknown;
  _onData?: (data: Buffer | string) => void;
}

/** Makes `entity` (an xmpp.js Connection: client or component) decode its reads as one UTF-8 stream per socket. */
export function useUtf8SafeReads(entity: object): void {
  const e = entity as ReadingEntity;
  const onData = e._onData;
  if (typeof onData !== 'function') return;
  let decoder: StringDecoder | undefined;
  let from: unknown;
  // An own property: Connection binds `this._onData` when it attaches its first socket, so this
  // must be in place before start() (it is: the transports call this as they create the entity).
  e._onData = function (this: ReadingEntity, data: Buffer | string) {
    // Bytes still arriving after xmpp.js detached its parser (a stream error, a close under way):
    // its own _onData threw "Cannot read properties of null (reading 'write')" from the socket's
    // data event, seen in an agent's log at a stop and in a flaky test. The stream is over; drop them.
    if (!this.parser) return;
    if (typeof data === 'string') return onData.call(this, data);
    if (!decoder || this.socket !== from) {
      from = this.socket;
      decoder = new StringDecoder('utf8');
    }
    const text = decoder.write(data);
    if (text !== '') onData.call(this, text);
  };
}
