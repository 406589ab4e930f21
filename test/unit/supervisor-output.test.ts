// The supervisor's console lines when their reader is gone (shared/supervisor/output.ts): `npm
// start | head` closed the pipe, the next line raised EPIPE with no listener, and the supervisor
// died before stopping ejabberd.
import { spawn } from 'node:child_process';
import type { Socket } from 'node:net';
import { expect } from 'chai';
import { consoleLines } from '../../shared/supervisor/index.js';
import { until } from '../support/wait.js';

describe('Supervisor [output] a closed output pipe', () => {
  it('makes its lines go quiet: no uncaught EPIPE, nothing written after', async () => {
    const reader = spawn('true', [], { stdio: ['pipe', 'ignore', 'ignore'] });
    await new Promise((r) => reader.once('exit', r));
    const stream = reader.stdin as Socket;
    const say = consoleLines(stream);
    say('SIGTERM: stopping agents…'); // the reader is gone: EPIPE, asynchronously
    await until(() => stream.destroyed, 'the stream closed by its EPIPE', 5000);
    const written = stream.bytesWritten;
    say('stopping ejabberd…');
    say('stopped in 1.2 s');
    expect(stream.bytesWritten, 'nothing more written').to.equal(written);
  });

  it('writes each line with its prefix while the reader is there', async () => {
    const reader = spawn(process.execPath, ['-e', 'process.stdin.pipe(process.stdout)'], { stdio: ['pipe', 'pipe', 'ignore'] });
    let out = '';
    reader.stdout!.on('data', (b: Buffer) => { out += String(b); });
    const say = consoleLines(reader.stdin!);
    say('ejabberd up');
    say('parley ready in 1.4 s');
    reader.stdin!.end();
    await new Promise((r) => reader.once('exit', r));
    expect(out).to.equal('[parley] ejabberd up\n[parley] parley ready in 1.4 s\n');
  });
});
