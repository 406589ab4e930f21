// Persistent identities and pinned DIDs. Private keys live only in
// $PARLEY_HOME/secrets/keys/<name>.json (dir 0700, file 0600, like every Parley secret) and are
// never logged. The JID → DID bindings (e.g. the Registry's DID pinned in every agent's config)
// sit in $PARLEY_HOME/secrets/pinned-dids.json, also 0600: not secret, but they decide whom an
// agent trusts, so only the owner may change them.
import fs from 'node:fs';
import path from 'node:path';
import { ensurePrivateDir, writePrivateFile } from '../secrets/index.js';
import { didFromPublicKey, publicKeyFromDid } from './did-key.js';
import { createIdentity, generateKeyPair, identityFromKeyPair, KEY_BYTES, type Identity } from './keys.js';

const NAME = /^[a-z0-9][a-z0-9._-]{0,99}$/i;

export function keysDir(home: string): string {
  return path.join(home, 'secrets', 'keys');
}

export function keyFile(home: string, name: string): string {
  // The name becomes a file name: no separators, no "..", nothing outside secrets/keys.
  if (!NAME.test(name) || name.includes('..')) throw new Error(`invalid identity name ${JSON.stringify(name)}`);
  return path.join(keysDir(home), `${name}.json`);
}

interface KeyFileV1 {
  version: 1;
  type: 'Ed25519';
  did: string;
  publicKey: string; // base64url, 32 bytes
  privateKey: string; // base64url, 32-byte seed
}

function readKeyFile(file: string): Identity {
  const mode = fs.statSync(file).mode & 0o777;
  // Like ssh: refuse a private key others can read, rather than silently trusting it.
  if (mode & 0o077) throw new Error(`${file} has mode ${mode.toString(8)}; run chmod 600 on it`);
  const data = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<KeyFileV1>;
  const seed = Buffer.from(String(data.privateKey ?? ''), 'base64url');
  if (data.version !== 1 || data.type !== 'Ed25519' || seed.length !== KEY_BYTES) {
    throw new Error(`${file} is not a Parley Ed25519 key file`);
  }
  const identity = createIdentity(new Uint8Array(seed));
  if (identity.did !== data.did) throw new Error(`${file}: stored did does not match its private key`);
  return identity;
}

function writeKeyFile(file: string, identity: Identity): void {
  const data: KeyFileV1 = {
    version: 1,
    type: 'Ed25519',
    did: identity.did,
    publicKey: Buffer.from(identity.publicKey).toString('base64url'),
    privateKey: Buffer.from(identity.privateKey).toString('base64url'),
  };
  writePrivateFile(file, JSON.stringify(data, null, 2) + '\n');
}

/** A key ring (loadOrCreateRing): many names' seeds in one 0600 file. */
interface KeyRingV1 {
  version: 1;
  type: 'Ed25519-ring';
  keys: Record<string, { did: string; privateKey: string }>;
}

function readRing(file: string): Map<string, { did: string; privateKey: string }> {
  const mode = fs.statSync(file).mode & 0o777;
  if (mode & 0o077) throw new Error(`${file} has mode ${mode.toString(8)}; run chmod 600 on it`);
  const data = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<KeyRingV1>;
  if (data.version !== 1 || data.type !== 'Ed25519-ring' || typeof data.keys !== 'object' || data.keys === null) {
    throw new Error(`${file} is not a Parley key ring`);
  }
  return new Map(Object.entries(data.keys));
}

/**
 * The identities of `names`, created on first use, kept in one key ring file
 * (secrets/keys/<ring>.json, 0600 like every key file): a host's virtual agents
 * (agents/specialist/host.ts). Creating a file cost ≈ 1 ms of CPU on this machine's ext4
 * (writeFileSync of a new file 1,003 µs, its rename 33 µs), so 10,000 key files were most of a
 * first start's keys + enrolment; a ring is one write. A name's own key file (written before
 * rings, or by `npm run keys -- rotate`) still wins over its ring entry.
 */
export function loadOrCreateRing(home: string, ring: string, names: readonly string[]): Identity[] {
  const file = keyFile(home, ring);
  ensurePrivateDir(keysDir(home));
  const present = new Set(fs.readdirSync(keysDir(home)));
  const stored = present.has(path.basename(file)) ? readRing(file) : new Map<string, { did: string; privateKey: string }>();
  const fresh = new Map<string, number>();
  const identities = names.map((name, i) => {
    const own = keyFile(home, name);
    if (own === file) throw new Error(`identity name ${JSON.stringify(name)} is the key ring's own`);
    if (present.has(path.basename(own))) return readKeyFile(own);
    const entry = stored.get(name);
    if (entry) {
      const seed = Buffer.from(String(entry.privateKey), 'base64url');
      const identity = seed.length === KEY_BYTES ? createIdentity(new Uint8Array(seed)) : undefined;
      if (identity?.did !== entry.did) throw new Error(`${file}: the key of ${name} does not match its did`);
      return identity;
    }
    const identity = identityFromKeyPair(generateKeyPair());
    stored.set(name, { did: identity.did, privateKey: Buffer.from(identity.privateKey).toString('base64url') });
    fresh.set(name, i);
    return identity;
  });
  if (fresh.size === 0) return identities;
  withLock(file, () => {
    // Another process of the same host (a shard started at the same time) may have written the
    // ring meanwhile: a key it wrote wins over the one made here, so both run the same DIDs.
    const now = fs.existsSync(file) ? readRing(file) : new Map<string, { did: string; privateKey: string }>();
    for (const [name, i] of fresh) {
      const theirs = now.get(name);
      if (theirs === undefined) now.set(name, stored.get(name) as { did: string; privateKey: string });
      else identities[i] = createIdentity(new Uint8Array(Buffer.from(theirs.privateKey, 'base64url')));
    }
    const data: KeyRingV1 = { version: 1, type: 'Ed25519-ring', keys: Object.fromEntries(now) };
    writePrivateFile(file, JSON.stringify(data) + '\n');
  });
  return identities;
}

/** The identity `name` (an account localpart, e.g. "registry"), created on first use. */
export function loadOrCreateIdentity(home: string, name: string): Identity {
  const file = keyFile(home, name);
  if (fs.existsSync(file)) return readKeyFile(file);
  const identity = identityFromKeyPair(generateKeyPair());
  writeKeyFile(file, identity);
  return identity;
}

/** A new random identity for `name`, overwriting the stored one (key rotation; keys CLI only). */
export function replaceIdentity(home: string, name: string): Identity {
  const identity = identityFromKeyPair(generateKeyPair());
  writeKeyFile(keyFile(home, name), identity);
  return identity;
}

/** The stored identity, or undefined when none was created yet. */
export function loadIdentity(home: string, name: string): Identity | undefined {
  const file = keyFile(home, name);
  return fs.existsSync(file) ? readKeyFile(file) : undefined;
}

export function pinnedDidsFile(home: string): string {
  return path.join(home, 'secrets', 'pinned-dids.json');
}

/** JID → DID bindings. Keys are bare JIDs, lower-cased (XMPP localparts/domains are case-insensitive). */
export class PinnedDids {
  constructor(readonly file: string) {}

  all(): Record<string, string> {
    try {
      return JSON.parse(fs.readFileSync(this.file, 'utf8')) as Record<string, string>;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw err;
    }
  }

  get(jid: string): string | undefined {
    return this.all()[bare(jid)];
  }

  /**
   * Pins `did` for `jid`. A different DID already pinned is an error unless `replace` is set:
   * a key change must be a deliberate act (trust on first use), never a side effect.
   */
  pin(jid: string, did: string, opts: { replace?: boolean } = {}): void {
    didFromPublicKey(publicKeyFromDid(did)); // throws DidError on anything but an Ed25519 did:key
    // Agents of one installation pin themselves at start, possibly at the same moment: the
    // read-modify-write runs under a lock file so no process loses another's binding.
    withLock(this.file, () => {
      const all = this.all();
      const key = bare(jid);
      const existing = all[key];
      if (existing === did) return;
      if (existing !== undefined && !opts.replace) throw new Error(`${key} is already pinned to another DID`);
      all[key] = did;
      writePrivateFile(this.file, JSON.stringify(all, null, 2) + '\n');
    });
  }

  unpin(jid: string): void {
    withLock(this.file, () => {
      const all = this.all();
      const key = bare(jid);
      if (!(key in all)) return;
      delete all[key];
      writePrivateFile(this.file, JSON.stringify(all, null, 2) + '\n');
    });
  }
}

const LOCK_STALE_MS = 5_000;

/** Runs `fn` holding `<file>.lock` (O_EXCL); a lock older than 5 s is a crashed holder's and is broken. */
export function withLock<T>(file: string, fn: () => T): T {
  ensurePrivateDir(path.dirname(file));
  const lock = `${file}.lock`;
  const deadline = Date.now() + 2 * LOCK_STALE_MS;
  for (;;) {
    try {
      fs.closeSync(fs.openSync(lock, 'wx', 0o600));
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const age = Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > LOCK_STALE_MS) fs.rmSync(lock, { force: true });
      else if (Date.now() > deadline) throw new Error(`${lock} is held by another process`);
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
    }
  }
  try {
    return fn();
  } finally {
    fs.rmSync(lock, { force: true });
  }
}

function bare(jid: string): string {
  const at = jid.indexOf('/');
  const key = (at < 0 ? jid : jid.slice(0, at)).toLowerCase();
  if (key === '') throw new Error('empty JID');
  return key;
}

export function pinnedDids(home: string): PinnedDids {
  return new PinnedDids(pinnedDidsFile(home));
}
