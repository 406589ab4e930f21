// Signed envelopes in the runtime (docs/architecture.md "Identities and trust"; Agora v1.0 §1-2):
// every envelope an agent sends is signed with its own key, every envelope it receives is checked
// against the DID bound to the authenticated from-JID, after schema validation and before the
// role policy (pipeline.ts). PARLEY_SIGNING=0 turns both off, for benchmarking only.
import type { Envelope } from '../acl/envelope.js';
import type { ErrorCode } from '../acl/errors.js';
import type { ParleyConfig } from '../config/index.js';
import { ensureAgentIdentity } from '../identity/agent-identity.js';
import type { Identity as KeyIdentity } from '../identity/keys.js';
import { pinnedDidsFile } from '../identity/keystore.js';
import type { Roster } from '../identity/roster.js';
import { createVerifier, signEnvelope, type Verifier, type VerifyCode } from '../identity/sign.js';
import { type DidResolver, TrustStore } from '../identity/trust.js';
import { identify, type Identity } from './names.js';

export type SignatureCheck =
  | { ok: true; did: string; firstUse: boolean }
  /** quiet: recorded and counted but not answered (see REPLAYED below). */
  | { ok: false; code: ErrorCode; detail: string; quiet?: boolean };

export interface SigningOptions {
  identity: KeyIdentity;
  trust: DidResolver;
  domain: string;
  /**
   * Content kinds a JID without any binding may send, verified against its own sender_did. Only
   * the Registry uses it, for ENROL: redeeming the operator's single-use token binds the DID.
   */
  firstUse?: readonly string[];
  maxAgeMs?: number;
  /**
   * How long after the server stored it (XEP-0203 delay stamped by our own domain) an envelope
   * delivered from offline storage or a taken-over session is still judged by its age at storage
   * time rather than now (default PARLEY_OFFLINE_MAX_AGE_MS, 1 h). Beyond it: STALE as usual.
   */
  offlineMaxAgeMs?: number;
  now?: () => number;
}

export const DEFAULT_OFFLINE_MAX_AGE_MS = 3600_000;

const CODES: Record<VerifyCode, ErrorCode> = {
  MISSING_SIGNATURE: 'MISSING_SIGNATURE',
  BAD_SIGNATURE: 'BAD_SIGNATURE',
  UNKNOWN_DID: 'UNKNOWN_DID',
  DID_MISMATCH: 'DID_MISMATCH',
  STALE: 'STALE_MESSAGE',
  FUTURE: 'STALE_MESSAGE',
  REPLAY: 'REPLAYED',
  MALFORMED: 'MALFORMED_SIGNATURE',
};

/** Accounts that are no agent: people (un-enrolled accounts included), the admin, other domains. */
const NOT_AGENTS = new Set(['person', 'admin', 'foreign']);

/** Roles whose bindings the Registry may vouch for; never the core agents (those are pinned). */
const REGISTERING_ROLES = new Set(['specialist', 'calendar', 'room']);

export class Signing {
  readonly did: string;
  readonly trust: DidResolver;
  private readonly verify: Verifier;
  private readonly firstUse: ReadonlySet<string>;
  private readonly now: () => number;

  constructor(private readonly opts: SigningOptions) {
    this.did = opts.identity.did;
    this.trust = opts.trust;
    this.firstUse = new Set(opts.firstUse ?? []);
    this.now = opts.now ?? Date.now;
    this.verify = createVerifier({ now: this.now, ...(opts.maxAgeMs !== undefined ? { maxAgeMs: opts.maxAgeMs } : {}) });
  }

  /** The envelope as it goes on the wire: timestamp stamped now, sender_did + signature (Agora §2). */
  sign(envelope: Envelope): Envelope {
    return signEnvelope({ ...envelope, timestamp: new Date(this.now()).toISOString() }, this.opts.identity);
  }

  /**
   * Verifies an envelope that passed schema validation, against the DID bound to `from`.
   * `storedAt`: when our server stored it for later delivery (XEP-0203; agent.ts reads it). The
   * Agora §1 60 s limit then applies between signing and storage, so an envelope held by the
   * server through an outage is not STALE, up to offlineMaxAgeMs after storage.
   */
  check(envelope: Envelope, from: Identity, kind: string, storedAt?: number): SignatureCheck {
    const now = this.now();
    const offlineMax = this.opts.offlineMaxAgeMs ?? DEFAULT_OFFLINE_MAX_AGE_MS;
    const at = storedAt !== undefined && storedAt <= now && now - storedAt <= offlineMax ? storedAt : undefined;
    const presented = typeof envelope.sender_did === 'string' ? envelope.sender_did : undefined;
    // ENROL (the Registry): the operator's token is the authority, and the credential binds the
    // key that signed; any earlier binding of the JID is the operator's to replace by that token.
    const firstUse = this.firstUse.has(kind);
    if (!firstUse && NOT_AGENTS.has(from.role)) {
      return { ok: false, code: 'UNKNOWN_DID', detail: `${from.jid} is not an enrolled agent: the operator enrols agents (\`npm run enrol\`); people do not sign, the Presenter does on their behalf` };
    }
    const expected = firstUse ? undefined : this.trust.didOf(from.jid, presented)?.did;
    if (expected === undefined) {
      if (!presented || !envelope.signature) return { ok: false, code: 'MISSING_SIGNATURE', detail: 'the envelope carries no sender_did and signature' };
      if (!firstUse) return { ok: false, code: 'UNKNOWN_DID', detail: `no DID is bound to ${from.jid}` };
    }
    const r = this.verify(envelope, expected, at);
    if (r.ok) return { ok: true, did: r.did, firstUse: expected === undefined };
    const code = CODES[r.code];
    // The DID check above means only the bound JID itself can present an accepted envelope again:
    // that is a retransmission (XEP-0198 resend, offline redelivery), already acted upon. Answering
    // it with a REFUSE would reach the sender's still open exchange and abort it, so it is dropped.
    return { ok: false, code, detail: r.detail, ...(code === 'REPLAYED' ? { quiet: true } : {}) };
  }

  /** The Registry is the authority for registering agents: learn its candidates' bindings. */
  learnFrom(envelope: Envelope, from: Identity): void {
    if (from.role !== 'registry' || envelope.performative !== 'INFORM') return;
    const dids = (envelope.content as { dids?: unknown }).dids;
    if (typeof dids !== 'object' || dids === null) return;
    for (const [jid, did] of Object.entries(dids as Record<string, unknown>)) {
      if (typeof did === 'string' && REGISTERING_ROLES.has(identify(jid, this.opts.domain).role)) this.trust.learn(jid, did);
    }
  }
}

/** Whether agents sign and verify: on unless PARLEY_SIGNING=0 (benchmarks only). */
export function signingEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.PARLEY_SIGNING !== '0';
}

/** The Signing of account `account` (key created and pinned on first use), or undefined when disabled. */
export function signingFor(
  cfg: ParleyConfig, account: string, opts: Pick<SigningOptions, 'firstUse' | 'maxAgeMs' | 'offlineMaxAgeMs'> & { roster?: Roster } = {}, env: NodeJS.ProcessEnv = process.env,
): Signing | undefined {
  if (!signingEnabled(env)) return undefined;
  const offline = Number(env.PARLEY_OFFLINE_MAX_AGE_MS);
  if (opts.offlineMaxAgeMs === undefined && env.PARLEY_OFFLINE_MAX_AGE_MS && Number.isFinite(offline) && offline >= 0) opts = { ...opts, offlineMaxAgeMs: offline };
  const identity = ensureAgentIdentity(cfg.home, account, `${account}@${cfg.domain}`);
  const { roster, ...rest } = opts;
  const trust = new TrustStore(pinnedDidsFile(cfg.home), roster ? { enrolled: (jid) => roster.didOf(jid) } : {});
  return new Signing({ identity, trust, domain: cfg.domain, ...rest });
}
