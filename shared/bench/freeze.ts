// The paired console bench's "off" (paired.ts): the console and the watching browser frozen with
// SIGSTOP instead of stopped. A frozen process takes no CPU, so the agents run as if it were not
// there, and SIGCONT brings it back as it was: its JIT warm, the page still open on the sniffer,
// as a deployment's console is between two glances. Stopping and starting them each block (the
// first design) put the console's start, its warm-up and a page load into every watched block.
import fs from 'node:fs';
import { procState, withDescendants } from './proc.js';

/** The processes whose command line contains `marker`, and all their descendants. */
export function processTree(marker: string): number[] {
  return withDescendants((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker);
    } catch {
      return false; // gone meanwhile
    }
  });
}

/**
 * SIGSTOP `pid` once its main thread sleeps (waits for I/O or a timer): a Node process is then
 * between two event-loop turns, never inside a SQLite read that would hold an agent's WAL open
 * while it is frozen. Gives up waiting after `maxMs` and stops it anyway.
 */
export async function freezeIdle(pid: number, maxMs = 1000): Promise<void> {
  const t0 = Date.now();
  while (procState(pid) === 'R' && Date.now() - t0 < maxMs) await new Promise((r) => setImmediate(r));
  signal([pid], 'SIGSTOP');
}

export function signal(pids: number[], sig: 'SIGSTOP' | 'SIGCONT'): void {
  for (const pid of pids) {
    try {
      process.kill(pid, sig);
    } catch {
      // gone meanwhile
    }
  }
}
