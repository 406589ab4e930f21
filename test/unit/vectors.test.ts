// Conformance against public vectors, used as they are (test/vectors/README.md):
// RFC 8785 JCS, RFC 8032 §7.1, Wycheproof Ed25519, W3C CCG did:key.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { repoRoot } from '../../shared/runtime/repo-root.js';
import {
  canonical, didFromPublicKey, keyPairFromSeed, nobleEd25519, nobleImpl, nodeEd25519, publicKeyFromDid,
  base58btcEncode, type Ed25519Impl, sodiumEd25519, sodiumSource, defaultEd25519,
} from '../../shared/identity/index.js';

const VECTORS = path.resolve(repoRoot(), 'test', 'vectors');
const hex = (s: string) => Uint8Array.from(Buffer.from(s, 'hex'));
const toHex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const json = <T>(rel: string) => JSON.parse(fs.readFileSync(path.join(VECTORS, rel), 'utf8')) as T;
// libsodium (sodium-native) is what envelopes are signed and verified with: it must load here.
const IMPLS: Ed25519Impl[] = [nodeEd25519, nobleEd25519, ...(sodiumEd25519 ? [sodiumEd25519] : [])];

describe('vectors [ed25519] the implementation envelopes use', () => {
  it('is libsodium, its prebuilt addon loaded directly from sodium-native (PARLEY_ED25519 unset)', () => {
    expect(sodiumEd25519, 'sodium-native did not load').to.not.equal(undefined);
    // The package's own loader (require-addon) costs 17 ms of every agent's start here.
    expect(sodiumSource).to.equal('prebuild');
    expect(defaultEd25519.name).to.equal(process.env.PARLEY_ED25519 === 'node' ? 'node' : 'sodium');
  });
});

describe('vectors [jcs] RFC 8785 canonicalisation', () => {
  const files = fs.readdirSync(path.join(VECTORS, 'jcs', 'input')).filter((f) => f.endsWith('.json')).sort();

  it('finds all six cyberphone test files', () => {
    expect(files).to.deep.equal(['arrays.json', 'french.json', 'structures.json', 'unicode.json', 'values.json', 'weird.json']);
  });

  for (const file of files) {
    it(`canonicalises ${file} to the exact expected bytes (output and outhex)`, () => {
      const input: unknown = JSON.parse(fs.readFileSync(path.join(VECTORS, 'jcs', 'input', file), 'utf8'));
      const got = Buffer.from(canonical(input), 'utf8');
      const expected = fs.readFileSync(path.join(VECTORS, 'jcs', 'output', file));
      expect(got.equals(expected), `${file}: ${got.toString()} ≠ ${expected.toString()}`).to.equal(true);
      const outhex = fs.readFileSync(path.join(VECTORS, 'jcs', 'outhex', file.replace(/\.json$/, '.txt')), 'utf8');
      expect(got.toString('hex')).to.equal(outhex.replace(/\s+/g, '').toLowerCase());
    });
  }
});

interface Rfc8032 { tests: { name: string; secretKey: string; publicKey: string; message: string; signature: string }[] }

describe('vectors [rfc8032] Ed25519 §7.1 known answers', () => {
  const { tests } = json<Rfc8032>('ed25519/rfc8032-section7.1.json');

  it('has the RFC test cases', () => expect(tests.length).to.be.greaterThanOrEqual(3));

  for (const impl of IMPLS) {
    for (const t of tests) {
      it(`${impl.name}: ${t.name} derives the public key and the exact signature, and verifies it`, () => {
        expect(toHex(impl.publicKey(hex(t.secretKey)))).to.equal(t.publicKey);
        const sig = impl.sign(hex(t.message), hex(t.secretKey));
        expect(toHex(sig)).to.equal(t.signature);
        for (const verifier of IMPLS) expect(verifier.verify(sig, hex(t.message), hex(t.publicKey)), verifier.name).to.equal(true);
        const flipped = hex(t.signature);
        flipped[0] = (flipped[0] as number) ^ 1;
        for (const verifier of IMPLS) expect(verifier.verify(flipped, hex(t.message), hex(t.publicKey)), verifier.name).to.equal(false);
      });
    }
  }
});

interface Wycheproof {
  numberOfTests: number;
  testGroups: { publicKey: { pk: string }; tests: { tcId: number; comment: string; flags: string[]; msg: string; sig: string; result: 'valid' | 'invalid' }[] }[];
}

describe('vectors [wycheproof] Ed25519 verification edge cases', () => {
  const data = json<Wycheproof>('ed25519/wycheproof_ed25519_test.json');
  const cases = data.testGroups.flatMap((g) => g.tests.map((t) => ({ ...t, pk: g.publicKey.pk })));

  it('runs all 151 cases', () => {
    expect(cases).to.have.length(151);
    expect(data.numberOfTests).to.equal(151);
  });

  // Parley verifies with node:crypto; noble runs in strict RFC 8032 mode (zip215: false).
  for (const impl of IMPLS) {
    it(`${impl.name} gives the expected valid/invalid result for every case`, () => {
      const wrong = cases.filter((c) => impl.verify(hex(c.sig), hex(c.msg), hex(c.pk)) !== (c.result === 'valid'));
      expect(wrong.map((c) => `tc${c.tcId} ${c.result} ${c.flags.join(',')}: ${c.comment}`)).to.deep.equal([]);
    });
  }

  it('noble in its default ZIP-215 mode accepts exactly one invalid case (tc151, R with y = 1 and x sign set)', () => {
    // Documented discrepancy: ZIP-215 decodes R leniently. Parley never verifies in this mode.
    const zip215 = nobleImpl({ zip215: true });
    const wrong = cases.filter((c) => zip215.verify(hex(c.sig), hex(c.msg), hex(c.pk)) !== (c.result === 'valid'));
    expect(wrong.map((c) => c.tcId)).to.deep.equal([151]);
    expect(wrong[0]?.flags).to.deep.equal(['InvalidEncoding']);
  });
});

interface DidVector {
  seed: string;
  // Four vectors give the key in base58, the fifth as a JWK (JsonWebKey2020).
  verificationKeyPair: { publicKeyBase58?: string; publicKeyJwk?: { x: string }; privateKeyJwk?: { d: string } };
}

describe('vectors [did-key] Ed25519 did:key from seeds', () => {
  const vectors = Object.entries(json<Record<string, DidVector>>('did-key/ed25519-x25519.json'));

  it('has the five W3C CCG vectors', () => expect(vectors).to.have.length(5));

  for (const [did, v] of vectors) {
    it(`seed …${v.seed.slice(-4)} → public key → ${did.slice(0, 20)}…`, () => {
      const { publicKey } = keyPairFromSeed(hex(v.seed));
      const { publicKeyBase58, publicKeyJwk, privateKeyJwk } = v.verificationKeyPair;
      if (publicKeyBase58) expect(base58btcEncode(publicKey)).to.equal(publicKeyBase58);
      else expect(Buffer.from(publicKey).toString('base64url')).to.equal(publicKeyJwk?.x);
      if (privateKeyJwk) expect(Buffer.from(privateKeyJwk.d, 'base64url').toString('hex')).to.equal(v.seed);
      expect(didFromPublicKey(publicKey)).to.equal(did);
      expect(toHex(publicKeyFromDid(did))).to.equal(toHex(publicKey));
      expect(did).to.match(/^did:key:z6Mk/);
      expect(nobleEd25519.publicKey(hex(v.seed))).to.deep.equal(publicKey);
    });
  }
});
