// Convener credentials of OAP RFC 0001 §3.6 (SessionAdmission, SessionRevocation, SessionHandoff):
// a JSON object naming session_id, subject, issuer, issued and expires, signed with the issuer's
// Ed25519 key over RFC 8785 canonical JSON of the credential with signature "" (the envelope rule,
// shared/identity/sign.ts). The Tool accepts one only when the signature verifies AND the issuer
// is the session's current convener.
import type { SessionCredential } from '../contracts/index.js';
import { publicKeyFromDid, canonicalBytes, nodeEd25519, type SigningKeys } from '../identity/index.js';

export type CredentialType = SessionCredential['type'];
export type { SessionCredential };

/** Clock skew tolerated on `issued` (agents share one host clock; see DEFAULT_MAX_FUTURE_MS). */
export const ISSUED_SKEW_MS = 5_000;

const bytesOf = (c: SessionCredential): Buffer => canonicalBytes({ ...c, signature: '' });

/** A credential signed by `keys` (the issuer is keys.did); valid for `ttlMs` from `now`. */
export function issueCredential(
  type: CredentialType, sessionId: string, subject: string, keys: SigningKeys, opts: { now?: number; ttlMs?: number } = {},
): SessionCredential {
  const now = opts.now ?? Date.now();
  const unsigned: SessionCredential = {
    type, session_id: sessionId, subject, issuer: keys.did,
    issued: new Date(now).toISOString(), expires: new Date(now + (opts.ttlMs ?? 10 * 60_000)).toISOString(), signature: '',
  };
  return { ...unsigned, signature: Buffer.from(nodeEd25519.sign(bytesOf(unsigned), keys.privateKey)).toString('base64url') };
}

export type CredentialCheck = { ok: true } | { ok: false; reason: 'BAD_CREDENTIAL' | 'NOT_CONVENER'; detail: string };

/** Cheapest first: type and session, signature by the issuer's did:key, validity window, convener. */
export function verifyCredential(
  c: SessionCredential, expect: { type: CredentialType; sessionId: string; convener: string; now: number },
): CredentialCheck {
  const bad = (detail: string): CredentialCheck => ({ ok: false, reason: 'BAD_CREDENTIAL', detail });
  if (c.type !== expect.type) return bad(`a ${expect.type} is needed, not a ${c.type}`);
  if (c.session_id !== expect.sessionId) return bad(`the credential is for session ${c.session_id}`);
  let key: Uint8Array;
  try {
    key = publicKeyFromDid(c.issuer);
  } catch (err) {
    return bad(`issuer: ${(err as Error).message}`);
  }
  const sig = Buffer.from(c.signature, 'base64url');
  if (sig.length !== 64 || !nodeEd25519.verify(sig, bytesOf(c), key)) return bad('the Ed25519 signature does not match the credential and its issuer');
  const issued = Date.parse(c.issued);
  const expires = Date.parse(c.expires);
  if (issued - expect.now > ISSUED_SKEW_MS) return bad(`issued in the future (${c.issued})`);
  if (expires <= expect.now) return bad(`expired at ${c.expires}`);
  if (expires <= issued) return bad('expires before it was issued');
  if (c.issuer !== expect.convener) return { ok: false, reason: 'NOT_CONVENER', detail: `issuer ${c.issuer} is not the session's convener ${expect.convener}` };
  return { ok: true };
}
