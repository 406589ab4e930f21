// Secrets (account passwords, the component secret, later private keys) live only in the state
// directory: directory 0700, files 0600, written atomically, never logged.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

export function randomSecret(bytes = 24): string {
  return randomBytes(bytes).toString('base64url');
}

/**
 * Every file and folder of the state directory owner-only (issue "Close the perimeter": people's
 * questions, calendars, telemetry and keys are nobody else's business): folders 0700, files 0600.
 * New files get that from the process umask (loadConfig sets 077); this mends an older install.
 * ejabberd's subtree is left to the ejabberd control, which gives its user what it needs.
 */
export function secureStateDir(home: string): void {
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isSymbolicLink()) continue;
      if (entry.isDirectory()) {
        if (full === path.join(home, 'ejabberd')) continue;
        fs.chmodSync(full, 0o700);
        walk(full);
      } else if (entry.isFile() || entry.isSocket()) {
        fs.chmodSync(full, 0o600);
      }
    }
  };
  if (!fs.existsSync(home)) return;
  walk(home);
}

export function ensurePrivateDir(dir: string): void {
  // Parents are made owner-only too by the umask (loadConfig); ejabberd's user is given group
  // traversal of $PARLEY_HOME when the instance starts (shared/ejabberd/control.ts).
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.chmodSync(dir, 0o700);
}

export function writePrivateFile(file: string, data: string): void {
  ensurePrivateDir(path.dirname(file));
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, data, { mode: 0o600 });
  fs.chmodSync(tmp, 0o600);
  fs.renameSync(tmp, file);
}

/**
 * A JSON map of name → secret kept in one 0600 file. Several processes change it (the supervisor
 * provisions agents while `npm run user`, `join` or a test adds an account), so every change is a
 * read-modify-write under a lock, as git does with its index: `<file>.lock` is created exclusively
 * (O_EXCL), receives the new map and is renamed over the file, which also releases it. Without it
 * two writers at once each kept only their own entry and one password was lost (stop 42's CI:
 * "no stored password for specialist-math"). Readers need no lock: the rename is atomic.
 */
export class SecretMap {
  constructor(readonly file: string) {}

  read(): Record<string, string> {
    try {
      return JSON.parse(fs.readFileSync(this.file, 'utf8')) as Record<string, string>;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw err;
    }
  }

  get(name: string): string | undefined {
    return this.read()[name];
  }

  /** Returns the stored secret, creating and saving a random one the first time. */
  ensure(name: string): string {
    const existing = this.get(name);
    if (existing) return existing;
    let secret = '';
    this.update((all) => {
      secret = all[name] ?? randomSecret(); // another process may have created it meanwhile
      if (all[name]) return false;
      all[name] = secret;
      return true;
    });
    return secret;
  }

  set(name: string, secret: string): void {
    this.update((all) => {
      all[name] = secret;
      return true;
    });
  }

  delete(name: string): void {
    this.update((all) => name in all && delete all[name]);
  }

  /** Runs `change` on the current map under the lock; it returns whether to write the result. */
  private update(change: (all: Record<string, string>) => boolean): void {
    ensurePrivateDir(path.dirname(this.file));
    const lock = `${this.file}.lock`;
    const fd = acquireLock(lock);
    let renamed = false;
    try {
      const all = this.read();
      if (!change(all)) return;
      fs.writeFileSync(fd, JSON.stringify(all, null, 2) + '\n');
      fs.renameSync(lock, this.file);
      renamed = true;
    } finally {
      fs.closeSync(fd);
      if (!renamed) fs.rmSync(lock, { force: true });
    }
  }
}

/** How long a lock may be held before it is taken for a crashed holder's (a change takes ≈ 1 ms). */
const STALE_LOCK_MS = 10_000;
const LOCK_WAIT_MS = 15_000;
const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** Creates `lock` exclusively (0600), waiting while another process holds it; a stale one is removed. */
function acquireLock(lock: string): number {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      return fs.openSync(lock, 'wx', 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const held = fs.statSync(lock, { throwIfNoEntry: false });
    if (held && Date.now() - held.mtimeMs > STALE_LOCK_MS) {
      fs.rmSync(lock, { force: true });
      continue;
    }
    if (Date.now() > deadline) throw new Error(`${lock} is held by another process; remove it if none is running`);
    Atomics.wait(sleeper, 0, 0, 2); // the secrets are changed synchronously, so wait synchronously
  }
}
