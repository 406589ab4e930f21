import { inspect } from 'node:util';
import { expect } from 'chai';
import {
  DidError, base58btcDecode, base58btcEncode, createIdentity, didFromPublicKey, generateKeyPair, isDidKey,
  keyPairFromSeed, nobleEd25519, nodeEd25519, publicKeyFromDid, sodiumEd25519,
} from '../../shared/identity/index.js';

function didError(fn: () => unknown): DidError {
  try {
    fn();
  } catch (err) {
    expect(err).to.be.instanceOf(DidError);
    return err as DidError;
  }
  throw new Error('expected a DidError');
}

describe('identity [base58] base58btc codec', () => {
  it('round-trips random bytes, keeping leading zero bytes as leading 1s', () => {
    for (let n = 0; n < 200; n++) {
      const bytes = Uint8Array.from({ length: n % 40 }, (_, i) => (i < n % 3 ? 0 : (n * 31 + i * 7) & 0xff));
      expect(base58btcDecode(base58btcEncode(bytes))).to.deep.equal(bytes);
    }
    expect(base58btcEncode(Uint8Array.of(0, 0, 1))).to.equal('112');
    expect(base58btcEncode(Buffer.from('Hello World!'))).to.equal('2NEpo7TZRRrLZSi2U');
  });

  it('rejects characters outside the alphabet (0, O, I, l)', () => {
    for (const bad of ['0', 'O', 'I', 'l', '+']) expect(didError(() => base58btcDecode(`2N${bad}`)).code).to.equal('BAD_BASE58');
  });
});

describe('identity [did:key] Ed25519 did:key', () => {
  it('derives a z6Mk… DID that resolves back to the same public key', () => {
    const { publicKey } = generateKeyPair();
    const did = didFromPublicKey(publicKey);
    expect(did).to.match(/^did:key:z6Mk[1-9A-HJ-NP-Za-km-z]{44}$/);
    expect(publicKeyFromDid(did)).to.deep.equal(publicKey);
    expect(isDidKey(did)).to.equal(true);
  });

  it('says what is wrong with a bad DID: prefix, multibase, codec, length, alphabet', () => {
    const good = didFromPublicKey(generateKeyPair().publicKey);
    expect(didError(() => publicKeyFromDid('did:web:example.com')).code).to.equal('NOT_DID_KEY');
    expect(didError(() => publicKeyFromDid(good.replace('did:key:z', 'did:key:f'))).code).to.equal('NOT_BASE58BTC');
    const x25519 = `did:key:z${base58btcEncode(Uint8Array.from([0xec, 0x01, ...new Uint8Array(32)]))}`;
    expect(didError(() => publicKeyFromDid(x25519)).code).to.equal('WRONG_CODEC');
    const short = `did:key:z${base58btcEncode(Uint8Array.from([0xed, 0x01, ...new Uint8Array(31).fill(9)]))}`;
    expect(didError(() => publicKeyFromDid(short)).code).to.equal('WRONG_LENGTH');
    expect(didError(() => publicKeyFromDid(`${good}${'z'.repeat(100)}`)).code).to.equal('WRONG_LENGTH');
    expect(didError(() => publicKeyFromDid(good.slice(0, -1) + '0')).code).to.equal('BAD_BASE58');
    expect(didError(() => didFromPublicKey(new Uint8Array(31))).code).to.equal('WRONG_LENGTH');
    expect(isDidKey(42)).to.equal(false);
  });
});

describe('identity [keys] key pairs and identities', () => {
  it('generates distinct 32-byte key pairs whose public key both implementations agree on', () => {
    const a = generateKeyPair();
    const b = generateKeyPair();
    expect(a.privateKey).to.have.length(32);
    expect(a.publicKey).to.have.length(32);
    expect(a.privateKey).not.to.deep.equal(b.privateKey);
    expect(nobleEd25519.publicKey(a.privateKey)).to.deep.equal(a.publicKey);
    expect(keyPairFromSeed(a.privateKey).publicKey).to.deep.equal(a.publicKey);
  });

  it('rejects keys of the wrong length and never throws from verify', () => {
    expect(() => keyPairFromSeed(new Uint8Array(31))).to.throw(RangeError, /32 bytes/);
    for (const impl of [nodeEd25519, nobleEd25519, ...(sodiumEd25519 ? [sodiumEd25519] : [])]) {
      expect(impl.verify(new Uint8Array(63), new Uint8Array(1), new Uint8Array(32))).to.equal(false);
      expect(impl.verify(new Uint8Array(64), new Uint8Array(1), new Uint8Array(5))).to.equal(false);
    }
  });

  it('keeps the private key out of JSON, util.inspect and enumeration', () => {
    const id = createIdentity();
    const secretHex = Buffer.from(id.privateKey).toString('hex');
    const secretB64 = Buffer.from(id.privateKey).toString('base64url');
    for (const text of [JSON.stringify(id), inspect(id), JSON.stringify({ ...id }), JSON.stringify({ nested: id })]) {
      expect(text).not.to.include(secretB64);
      expect(text).not.to.include(secretHex);
      expect(text).not.to.match(/privateKey/);
    }
    expect(Object.keys(id)).to.deep.equal(['did', 'publicKey']);
    expect(id.privateKey).to.have.length(32);
  });
});
