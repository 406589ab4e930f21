// xmpp.js parses the stream with ltx's SAX parser (ltx 3.1.2, lib/parsers/ltx.js), which is
// quadratic in a chunk that ends inside text: in the text state it fast-forwards with
// indexOf('<'), and when there is no '<' left in the chunk it does not move, so it steps one
// character at a time and searches the rest of the chunk again at each (the same for an attribute
// value and indexOf of its quote). A stanza with a large <body> that the socket hands over in
// several reads hits it: measured in one process, a 13 kB stanza in 4 kB reads 3.2 ms (0.02 ms
// whole), 64 kB in 16 kB reads 8.3 ms; the Registry spent 47 % of its CPU in it while 1,000 agents
// registered with REGISTER_MANY (64 kB batches; docs/bench.md "Virtual agents").
// The fix without changing ltx: hand it data only up to the last '>' of what arrived, and keep the
// rest for the next read. Each write then ends right after a '>', normally a tag's end, so every
// text run in it is followed by a '<' and every attribute value by its quote, and the
// fast-forward finds them (a '>' left unescaped in text can still end a write inside text, as any
// read could before: never worse). A complete stanza ends with '>', so nothing of a stanza that
// has fully arrived is held back.

interface StreamParser {
  write(data: string | Buffer): void;
  end(data?: string | Buffer): void;
}

/** Makes `parser` (an @xmpp/xml Parser) feed ltx only whole-'>' prefixes of the stream; returns it. */
export function chunkSafe<P extends StreamParser>(parser: P): P {
  const write = parser.write.bind(parser);
  const end = parser.end.bind(parser);
  let held = '';
  parser.write = (data: string | Buffer) => {
    const text = typeof data === 'string' ? data : data.toString('utf8');
    const cut = text.lastIndexOf('>');
    if (cut === -1) {
      held += text;
      return;
    }
    const ready = held + text.slice(0, cut + 1);
    held = text.slice(cut + 1);
    write(ready);
  };
  parser.end = (data?: string | Buffer) => {
    const rest = held + (data === undefined ? '' : typeof data === 'string' ? data : data.toString('utf8'));
    held = '';
    end(rest === '' ? undefined : rest);
  };
  return parser;
}

/** Every stream parser `entity` attaches (at each stream open and restart) is made chunkSafe. */
export function useChunkSafeParsers(entity: object): void {
  const e = entity as { _attachParser?: (parser: StreamParser) => void };
  const attach = e._attachParser;
  if (typeof attach !== 'function') return;
  e._attachParser = function (this: unknown, parser: StreamParser) {
    attach.call(this, chunkSafe(parser));
  };
}
