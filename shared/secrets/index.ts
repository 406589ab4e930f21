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

/** A JSON map of name → secret kept in one 0600 file. */
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
    const all = this.read();
    const existing = all[name];
    if (existing) return existing;
    const created = randomSecret();
    all[name] = created;
    writePrivateFile(this.file, JSON.stringify(all, null, 2) + '\n');
    return created;
  }

  set(name: string, secret: string): void {
    const all = this.read();
    all[name] = secret;
    writePrivateFile(this.file, JSON.stringify(all, null, 2) + '\n');
  }

  delete(name: string): void {
    const all = this.read();
    if (!(name in all)) return;
    delete all[name];
    writePrivateFile(this.file, JSON.stringify(all, null, 2) + '\n');
  }
}
