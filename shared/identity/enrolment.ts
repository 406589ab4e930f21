// Operator enrolment (docs/architecture.md "Identities and trust"): a JID is an agent of a role
// only because the operator enrolled it, never because of its account name or because it spoke
// first. An enrolment credential binds JID, DID, role and expiry, signed by the operator key
// ($PARLEY_HOME/secrets/keys/operator.json, 0600): anyone holding the operator's public DID can
// verify it, so an agent on another host needs only its credential and that DID (pinned at join).
// The installation's record ($PARLEY_HOME/secrets/enrolments.json, 0600) lists every credential
// issued, revocations, and single-use tokens (stored only as SHA-256 hashes) that a remote agent
// redeems once, before expiry, for a credential bound to the DID it presents.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ENROLLED_ROLES } from '../contracts/index.js';
import { writePrivateFile } from '../secrets/index.js';
import { isDidKey, publicKeyFromDid } from './did-key.js';
import { canonicalBytes } from './jcs.js';
import { type Identity, nodeEd25519 } from './keys.js';
import { loadIdentity, loadOrCreateIdentity, withLock } from './keystore.js';

export { ENROLLED_ROLES };
export type EnrolledRole = (typeof ENROLLED_ROLES)[number];
export const isEnrolledRole = (v: unknown): v is EnrolledRole => typeof v === 'string' && (ENROLLED_ROLES as readonly string[]).includes(v);

export const OPERATOR_KEY = 'operator';
/** Credentials of agents the operator's own processes provision: long-lived, revocable. */
export const DEFAULT_CREDENTIAL_TTL_MS = 365 * 24 * 3600_000;
/** Tokens for remote hosts: short-lived and single-use. */
export const DEFAULT_TOKEN_TTL_MS = 15 * 60_000;

export interface EnrolmentClaims {
  v: 1;
  jid: string;
  did: string;
  role: EnrolledRole;
  /** Issued at / expires at, epoch ms. */
  iat: number;
  exp: number;
  /** The operator's DID that signs. */
  iss: string;
}

export interface Credential extends EnrolmentClaims {
  /** Ed25519 over RFC 8785 JCS of the claims (sig excluded), base64url. */
  sig: string;
}

export type CredentialCheck =
  | { ok: true; credential: Credential }
  | { ok: false; reason: 'MALFORMED' | 'WRONG_ISSUER' | 'BAD_SIGNATURE' | 'EXPIRED' | 'NOT_YET_VALID'; detail: string };

const bareOf = (jid: string): string => (jid.includes('/') ? jid.slice(0, jid.indexOf('/')) : jid).toLowerCase();

export function signCredential(claims: Omit<EnrolmentClaims, 'v' | 'iss'>, operator: Identity): Credential {
  const body: EnrolmentClaims = { v: 1, jid: bareOf(claims.jid), did: claims.did, role: claims.role, iat: claims.iat, exp: claims.exp, iss: operator.did };
  const sig = Buffer.from(nodeEd25519.sign(canonicalBytes(body), operator.privateKey)).toString('base64url');
  return { ...body, sig };
}

/** Verifies a credential against the operator's DID (pinned), at `now`. */
export function verifyCredential(value: unknown, operatorDid: string, now: number): CredentialCheck {
  const c = value as Partial<Credential> | null;
  if (typeof c !== 'object' || c === null || c.v !== 1 || typeof c.jid !== 'string' || !isDidKey(c.did) || !isEnrolledRole(c.role)
    || typeof c.iat !== 'number' || typeof c.exp !== 'number' || typeof c.iss !== 'string' || typeof c.sig !== 'string') {
    return { ok: false, reason: 'MALFORMED', detail: 'not a Parley enrolment credential (v, jid, did, role, iat, exp, iss, sig)' };
  }
  if (c.iss !== operatorDid) return { ok: false, reason: 'WRONG_ISSUER', detail: `issued by ${c.iss}, not this installation's operator` };
  const { sig, ...claims } = c as Credential;
  let good = false;
  try {
    good = nodeEd25519.verify(Buffer.from(sig, 'base64url'), canonicalBytes(claims), publicKeyFromDid(operatorDid));
  } catch {
    good = false;
  }
  if (!good) return { ok: false, reason: 'BAD_SIGNATURE', detail: 'the operator signature does not match the credential' };
  if (now >= c.exp) return { ok: false, reason: 'EXPIRED', detail: `expired at ${new Date(c.exp).toISOString()}` };
  if (now + 5_000 < c.iat) return { ok: false, reason: 'NOT_YET_VALID', detail: `issued in the future (${new Date(c.iat).toISOString()})` };
  return { ok: true, credential: c as Credential };
}

export function enrolmentsFile(home: string): string {
  return path.join(home, 'secrets', 'enrolments.json');
}

export interface EnrolmentRecord {
  credential: Credential;
  /** Set by `npm run enrol -- revoke`: from then on the JID is nobody's agent. */
  revoked_at?: number;
}

export interface TokenRecord {
  jid: string;
  role: EnrolledRole;
  created_at: number;
  expires_at: number;
  used_at?: number;
  /** Validity of the credential the token is redeemed for. */
  credential_ttl_ms: number;
}

export interface EnrolmentFile {
  version: 1;
  /** By bare JID. */
  enrolments: Record<string, EnrolmentRecord>;
  /** By SHA-256 (hex) of the token's secret: the secret itself is never stored. */
  tokens: Record<string, TokenRecord>;
}

export type RedeemOutcome =
  | { ok: true; credential: Credential }
  | { ok: false; reason: 'UNKNOWN_TOKEN' | 'TOKEN_USED' | 'TOKEN_EXPIRED' | 'WRONG_ACCOUNT' | 'BAD_DID' | 'REVOKED'; detail: string };

export const tokenHash = (secret: string): string => createHash('sha256').update(secret, 'utf8').digest('hex');

export function readEnrolments(file: string): EnrolmentFile {
  try {
    const data = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<EnrolmentFile>;
    return { version: 1, enrolments: data.enrolments ?? {}, tokens: data.tokens ?? {} };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, enrolments: {}, tokens: {} };
    throw err;
  }
}

/** The operator's side of enrolment; only processes with the state directory (operator host) use it. */
export class EnrolmentAuthority {
  readonly file: string;
  constructor(readonly home: string, private readonly now: () => number = Date.now) {
    this.file = enrolmentsFile(home);
  }

  /** The operator key, created on first use (0600 like every key). */
  operator(): Identity {
    return loadOrCreateIdentity(this.home, OPERATOR_KEY);
  }

  operatorDid(): string | undefined {
    return loadIdentity(this.home, OPERATOR_KEY)?.did;
  }

  read(): EnrolmentFile {
    return readEnrolments(this.file);
  }

  private update<T>(fn: (data: EnrolmentFile) => T): T {
    return withLock(this.file, () => {
      const data = this.read();
      const out = fn(data);
      writePrivateFile(this.file, JSON.stringify(data, null, 2) + '\n');
      return out;
    });
  }

  /** Enrols `jid` with `did` as `role` (replacing any earlier enrolment, revoked or not). */
  enrol(jid: string, did: string, role: EnrolledRole, ttlMs = DEFAULT_CREDENTIAL_TTL_MS): Credential {
    if (!isDidKey(did)) throw new Error(`${JSON.stringify(did)} is not a did:key`);
    if (!isEnrolledRole(role)) throw new Error(`role must be one of ${ENROLLED_ROLES.join(', ')}`);
    const now = this.now();
    const credential = signCredential({ jid, did, role, iat: now, exp: now + ttlMs }, this.operator());
    this.update((d) => {
      d.enrolments[credential.jid] = { credential };
    });
    return credential;
  }

  /**
   * Provisioning by the operator's own processes (supervisor, spawn, user add, agent start on this
   * host): enrols unless an enrolment for this DID and role is current. A revoked JID stays revoked:
   * a restart never undoes `npm run enrol -- revoke`; only `npm run enrol -- issue` does.
   */
  ensureEnrolled(jid: string, did: string, role: EnrolledRole): { credential?: Credential; revoked: boolean } {
    const rec = this.read().enrolments[bareOf(jid)];
    if (rec?.revoked_at !== undefined) return { revoked: true };
    const c = rec?.credential;
    if (c && c.did === did && c.role === role && c.exp > this.now() + 24 * 3600_000) return { credential: c, revoked: false };
    return { credential: this.enrol(jid, did, role), revoked: false };
  }

  /**
   * ensureEnrolled for many JIDs at once (a specialist host's virtual agents): one read and at
   * most one write of the record, instead of a locked rewrite per agent. Returns the revoked JIDs.
   */
  ensureEnrolledMany(items: ReadonlyArray<{ jid: string; did: string }>, role: EnrolledRole): { revoked: string[]; enrolled: number } {
    if (!isEnrolledRole(role)) throw new Error(`role must be one of ${ENROLLED_ROLES.join(', ')}`);
    const now = this.now();
    const current = (d: EnrolmentFile, jid: string, did: string) => {
      const c = d.enrolments[bareOf(jid)]?.credential;
      return c !== undefined && c.did === did && c.role === role && c.exp > now + 24 * 3600_000;
    };
    const snapshot = this.read();
    const revoked = items.filter((i) => snapshot.enrolments[bareOf(i.jid)]?.revoked_at !== undefined).map((i) => bareOf(i.jid));
    if (items.every((i) => revoked.includes(bareOf(i.jid)) || current(snapshot, i.jid, i.did))) return { revoked, enrolled: 0 };
    const operator = this.operator();
    return this.update((d) => {
      let enrolled = 0;
      for (const i of items) {
        const rec = d.enrolments[bareOf(i.jid)];
        if (rec?.revoked_at !== undefined || current(d, i.jid, i.did)) continue;
        if (!isDidKey(i.did)) throw new Error(`${JSON.stringify(i.did)} is not a did:key`);
        const credential = signCredential({ jid: i.jid, did: i.did, role, iat: now, exp: now + DEFAULT_CREDENTIAL_TTL_MS }, operator);
        d.enrolments[credential.jid] = { credential };
        enrolled += 1;
      }
      return { revoked, enrolled };
    });
  }

  /** A single-use token for `jid` as `role`; returns the secret, shown once and stored only hashed. */
  issueToken(jid: string, role: EnrolledRole, ttlMs = DEFAULT_TOKEN_TTL_MS, credentialTtlMs = DEFAULT_CREDENTIAL_TTL_MS): { secret: string; expires_at: number } {
    if (!isEnrolledRole(role)) throw new Error(`role must be one of ${ENROLLED_ROLES.join(', ')}`);
    this.operator();
    const secret = randomBytes(32).toString('base64url');
    const now = this.now();
    const expires_at = now + ttlMs;
    this.update((d) => {
      for (const [h, t] of Object.entries(d.tokens)) if (t.expires_at < now - 24 * 3600_000) delete d.tokens[h]; // keep the file small
      d.tokens[tokenHash(secret)] = { jid: bareOf(jid), role, created_at: now, expires_at, credential_ttl_ms: credentialTtlMs };
    });
    return { secret, expires_at };
  }

  /** Exchanges a token, once, for a credential binding the redeeming JID to `did` (the Registry's ENROL). */
  redeem(secret: string, jid: string, did: string): RedeemOutcome {
    if (!isDidKey(did)) return { ok: false, reason: 'BAD_DID', detail: 'did must be an Ed25519 did:key' };
    const now = this.now();
    const operator = this.operator();
    return this.update((d): RedeemOutcome => {
      const t = d.tokens[tokenHash(secret)];
      if (!t) return { ok: false, reason: 'UNKNOWN_TOKEN', detail: 'no such enrolment token' };
      if (t.used_at !== undefined) return { ok: false, reason: 'TOKEN_USED', detail: `the token was already used at ${new Date(t.used_at).toISOString()}` };
      if (now >= t.expires_at) return { ok: false, reason: 'TOKEN_EXPIRED', detail: `the token expired at ${new Date(t.expires_at).toISOString()}` };
      if (t.jid !== bareOf(jid)) return { ok: false, reason: 'WRONG_ACCOUNT', detail: `the token is for ${t.jid}, not ${bareOf(jid)}` };
      t.used_at = now;
      const credential = signCredential({ jid: t.jid, did, role: t.role, iat: now, exp: now + t.credential_ttl_ms }, operator);
      d.enrolments[t.jid] = { credential };
      return { ok: true, credential };
    });
  }

  /** Revokes `jid`'s enrolment and its unused tokens; false when it had none. */
  revoke(jid: string): boolean {
    const key = bareOf(jid);
    const now = this.now();
    return this.update((d) => {
      let found = false;
      const rec = d.enrolments[key];
      if (rec && rec.revoked_at === undefined) {
        rec.revoked_at = now;
        found = true;
      }
      for (const t of Object.values(d.tokens)) {
        if (t.jid === key && t.used_at === undefined) {
          t.used_at = now;
          found = true;
        }
      }
      return found;
    });
  }
}
