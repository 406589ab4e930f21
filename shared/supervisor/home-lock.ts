// One supervisor per PARLEY_HOME, decided before anything is touched. The lock is a Linux
// abstract-namespace Unix socket (unix(7): a name starting with NUL, never a file): the kernel
// lets one process bind a name, and frees it the moment that process exits, also after kill -9.
// So there is no stale lock to judge, and of two starts at the same instant exactly one goes on;
// before this the loser could have started and provisioned ejabberd alongside the winner.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/** The abstract name for a home: a digest of its real path (two spellings of one directory agree). */
export function homeLockName(home: string): string {
  const real = (() => {
    try {
      return fs.realpathSync(home);
    } catch {
      return path.resolve(home);
    }
  })();
  return `\0parley-home-${createHash('sha256').update(real).digest('hex').slice(0, 40)}`;
}

export interface HomeLock {
  release(): Promise<void>;
}

/** Holds the home's lock, or undefined when another live process holds it. */
export async function lockHome(home: string): Promise<HomeLock | undefined> {
  const server = net.createServer((socket) => socket.destroy());
  const bound = await new Promise<boolean>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => (err.code === 'EADDRINUSE' ? resolve(false) : reject(err)));
    server.listen({ path: homeLockName(home) }, () => resolve(true));
  });
  if (!bound) return undefined;
  // The lock must never keep the process alive on its own.
  server.unref();
  return { release: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
