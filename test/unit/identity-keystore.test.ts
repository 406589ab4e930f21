import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import {
  DidError, createIdentity, keyFile, loadIdentity, loadOrCreateIdentity, loadOrCreateRing, nobleEd25519, pinnedDids, pinnedDidsFile,
} from '../../shared/identity/index.js';

const mode = (p: string) => fs.statSync(p).mode & 0o777;

describe('identity [keystore] persisted identities', () => {
  let home: string;
  beforeEach(() => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-keys-'));
    fs.chmodSync(home, 0o755);
  });
  afterEach(() => fs.rmSync(home, { recursive: true, force: true }));

  it('keeps many names in one key ring (0600): created once, the same DIDs afterwards, new names added, an own key file wins', () => {
    const names = ['vagent-h-0001', 'vagent-h-0002', 'vagent-h-0003'];
    const own = loadOrCreateIdentity(home, 'vagent-h-0004');
    const first = loadOrCreateRing(home, 'vagents-h.ring', names);
    const ring = path.join(home, 'secrets', 'keys', 'vagents-h.ring.json');
    expect(mode(ring)).to.equal(0o600);
    expect(fs.readdirSync(path.dirname(ring)).sort()).to.deep.equal(['vagent-h-0004.json', 'vagents-h.ring.json']);
    expect(new Set(first.map((i) => i.did)).size).to.equal(3);
    const again = loadOrCreateRing(home, 'vagents-h.ring', [...names, 'vagent-h-0004', 'vagent-h-0005']);
    expect(again.slice(0, 3).map((i) => i.did)).to.deep.equal(first.map((i) => i.did));
    expect(again[3]?.did).to.equal(own.did);
    expect(nobleEd25519.publicKey(again[0]!.privateKey)).to.deep.equal(first[0]!.publicKey);
    expect(loadOrCreateRing(home, 'vagents-h.ring', ['vagent-h-0005'])[0]?.did).to.equal(again[4]?.did);
  });

  it('takes the keys another process wrote to the ring meanwhile (two shards of one host starting at once)', () => {
    // Process A made its keys; process B wrote the ring before A's write: A must run B's DIDs.
    const ring = path.join(home, 'secrets', 'keys', 'vagents-h.ring.json');
    const other = loadOrCreateRing(home, 'vagents-h.ring', ['vagent-h-0001']);
    const written = fs.readFileSync(ring, 'utf8');
    fs.rmSync(ring);
    const realExists = fs.existsSync;
    // The ring is absent when A lists the directory and present when A takes the lock.
    let calls = 0;
    (fs as { existsSync: typeof fs.existsSync }).existsSync = (p) => {
      if (p === ring && calls++ === 0) fs.writeFileSync(ring, written, { mode: 0o600 });
      return realExists(p);
    };
    try {
      const mine = loadOrCreateRing(home, 'vagents-h.ring', ['vagent-h-0001', 'vagent-h-0002']);
      expect(mine[0]?.did).to.equal(other[0]?.did);
      expect(loadOrCreateRing(home, 'vagents-h.ring', ['vagent-h-0001', 'vagent-h-0002']).map((i) => i.did)).to.deep.equal(mine.map((i) => i.did));
    } finally {
      (fs as { existsSync: typeof fs.existsSync }).existsSync = realExists;
    }
  });

  it('refuses a key ring others can read, one whose key does not match its DID, and a name that is the ring itself', () => {
    loadOrCreateRing(home, 'vagents-h.ring', ['vagent-h-0001', 'vagent-h-0002']);
    const ring = path.join(home, 'secrets', 'keys', 'vagents-h.ring.json');
    fs.chmodSync(ring, 0o644);
    expect(() => loadOrCreateRing(home, 'vagents-h.ring', ['vagent-h-0001'])).to.throw(/mode 644/);
    fs.chmodSync(ring, 0o600);
    const data = JSON.parse(fs.readFileSync(ring, 'utf8')) as { keys: Record<string, { did: string; privateKey: string }> };
    data.keys['vagent-h-0001']!.did = data.keys['vagent-h-0002']!.did;
    fs.writeFileSync(ring, JSON.stringify(data));
    expect(() => loadOrCreateRing(home, 'vagents-h.ring', ['vagent-h-0001'])).to.throw(/does not match its did/);
    expect(() => loadOrCreateRing(home, 'vagents-h.ring', ['vagents-h.ring'])).to.throw(/key ring's own/);
  });

  it('creates secrets/keys/<name>.json (file 0600, dir 0700) once and loads the same DID afterwards', () => {
    expect(loadIdentity(home, 'registry')).to.equal(undefined);
    const created = loadOrCreateIdentity(home, 'registry');
    const file = path.join(home, 'secrets', 'keys', 'registry.json');
    expect(mode(file)).to.equal(0o600);
    expect(mode(path.dirname(file))).to.equal(0o700);
    expect(mode(home)).to.equal(0o755); // ejabberd must still traverse $PARLEY_HOME
    const again = loadOrCreateIdentity(home, 'registry');
    expect(again.did).to.equal(created.did);
    expect(again.privateKey).to.deep.equal(created.privateKey);
    expect(nobleEd25519.publicKey(again.privateKey)).to.deep.equal(created.publicKey);
    expect(loadOrCreateIdentity(home, 'kb').did).not.to.equal(created.did);
  });

  it('stores the did and the key pair in base64url, version 1', () => {
    const id = loadOrCreateIdentity(home, 'coordinator');
    const data = JSON.parse(fs.readFileSync(keyFile(home, 'coordinator'), 'utf8')) as Record<string, unknown>;
    expect(data).to.deep.equal({
      version: 1, type: 'Ed25519', did: id.did,
      publicKey: Buffer.from(id.publicKey).toString('base64url'),
      privateKey: Buffer.from(id.privateKey).toString('base64url'),
    });
  });

  it('refuses a key file readable by others, a corrupt one and one whose did does not match its key', () => {
    loadOrCreateIdentity(home, 'kb');
    const file = keyFile(home, 'kb');
    fs.chmodSync(file, 0o644);
    expect(() => loadOrCreateIdentity(home, 'kb')).to.throw(/chmod 600/);
    fs.chmodSync(file, 0o600);
    const data = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
    fs.writeFileSync(file, JSON.stringify({ ...data, did: createIdentity().did }));
    expect(() => loadOrCreateIdentity(home, 'kb')).to.throw(/does not match/);
    fs.writeFileSync(file, JSON.stringify({ ...data, privateKey: 'short' }));
    expect(() => loadOrCreateIdentity(home, 'kb')).to.throw(/not a Parley Ed25519 key file/);
  });

  it('rejects names that would leave secrets/keys', () => {
    for (const bad of ['../evil', 'a/b', '', '.hidden', 'x..y']) expect(() => keyFile(home, bad), bad).to.throw(/invalid identity name/);
    expect(keyFile(home, 'specialist-math')).to.equal(path.join(home, 'secrets', 'keys', 'specialist-math.json'));
  });
});

describe('identity [pinned] JID → DID bindings', () => {
  let home: string;
  beforeEach(() => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-pins-'));
    fs.chmodSync(home, 0o755);
  });
  afterEach(() => fs.rmSync(home, { recursive: true, force: true }));

  it('pins, reads (bare JID, case-insensitive) and unpins, in a 0600 file', () => {
    const registry = createIdentity();
    const pins = pinnedDids(home);
    expect(pins.get('registry@localhost')).to.equal(undefined);
    pins.pin('Registry@LocalHost/agent', registry.did);
    expect(mode(pinnedDidsFile(home))).to.equal(0o600);
    expect(pinnedDids(home).get('registry@localhost')).to.equal(registry.did);
    expect(pins.all()).to.deep.equal({ 'registry@localhost': registry.did });
    pins.unpin('registry@localhost');
    expect(pins.get('registry@localhost')).to.equal(undefined);
  });

  it('refuses to silently re-pin a JID to another DID, and anything that is not an Ed25519 did:key', () => {
    const pins = pinnedDids(home);
    const first = createIdentity().did;
    const second = createIdentity().did;
    pins.pin('registry@localhost', first);
    pins.pin('registry@localhost', first); // idempotent
    expect(() => pins.pin('registry@localhost', second)).to.throw(/already pinned/);
    pins.pin('registry@localhost', second, { replace: true });
    expect(pins.get('registry@localhost')).to.equal(second);
    expect(() => pins.pin('kb@localhost', 'did:web:example.com')).to.throw(DidError);
    expect(() => pins.pin('', first)).to.throw(/empty JID/);
  });
});
