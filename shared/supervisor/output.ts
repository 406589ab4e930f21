// The supervisor's console lines. `npm start`'s output may go to a pipe that closes while it runs
// (`npm start | head`, a log collector that died): Node then emits EPIPE on process.stdout, and
// with no listener that error ended the supervisor on its next line — "SIGTERM: stopping agents…"
// — before it stopped ejabberd. A closed output now only ends the printing; supervising, and the
// orderly stop, go on.
import type { Writable } from 'node:stream';

/** A line writer on `stream` that goes quiet, instead of throwing, once the reader is gone. */
export function consoleLines(stream: Writable = process.stdout, prefix = '[parley] '): (line: string) => void {
  let gone = false;
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED') gone = true;
    else throw err;
  });
  return (line: string) => {
    if (gone || stream.destroyed) return;
    stream.write(`${prefix}${line}\n`);
  };
}
