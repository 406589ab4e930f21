// Signed envelopes in the runtime (docs/architecture.md "Identities and trust"; Agora v1.0 §1-2):
// every envelope an agent sends is signed with its own key, every envelope it receives is checked
// against the DID bound to the authenticated from-JID, after schema validation and before the
// role policy (pipeline.ts). PARLEY_SIGNING=0 turns both off, for benchmarking only.
import type { Envelope, ErrorCode } from '../acl/index.js';
import path from 'node:path';
import { envFlag, envNumber, type ParleyConfig, paths } from '../config/index.js';
import { NOT_AGENT_ROLES, WORKER_ROLES } from '../contracts/index.js';
import { ensureAgentIdentity } from '../identity/agent-identity.js';
import {
  type Identity as KeyIdentity, pinnedDidsFile, type Roster, DEFAULT_OFFLINE_GRACE_MS, OfflineGaps,
  DEFAULT_MAX_AGE_MS, ReplayWindow, createVerifier, signEnvelope, type Verifier, type VerifyCode,
  type DidResolver, TrustStore,
} from '../identity/index.js';
import { type Db, ReplayLedger } from '../store/index.js';
import { identify, type Identity } from './names.js';

export type SignatureCheck =
  /** replay: the window entry to make durable once the envelope was handled (commit). */
  | { ok: true; did: string; firstUse: boolean; replay?: { key: string; expiresAt: number } }
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
   * The oldest envelope accepted after this agent was away (signed during its absence and held by
   * the server; offline-gaps.ts), default PARLEY_OFFLINE_MAX_AGE_MS, 1 h. Beyond it: STALE.
   */
  offlineMaxAgeMs?: number;
  /** How long after coming back such envelopes are still expected (PARLEY_OFFLINE_GRACE_MS, 2 min). */
  offlineGraceMs?: number;
  /** The durable replay ledger: accepted envelopes stay refused as copies across restarts. */
  ledger?: ReplayLedger;
  now?: () => number;
}

export const DEFAULT_OFFLINE_MAX_AGE_MS = 3600_000;
/** How often the ledger records that this agent is alive (the start of the gap after a crash). */
export const HEARTBEAT_MS = 5_000;

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
const NOT_AGENTS = new Set<string>(NOT_AGENT_ROLES);

/** Roles whose bindings the Registry may vouch for; never the core agents (those are pinned). */
const REGISTERING_ROLES = new Set<string>(WORKER_ROLES);

export class Signing {
  readonly did: string;
  readonly trust: DidResolver;
  private readonly verify: Verifier;
  private readonly firstUse: ReadonlySet<string>;
  private readonly now: () => number;
  /** This agent's absences: the only grounds for accepting an envelope older than 60 s. */
  readonly gaps: OfflineGaps;
  /** The ledger's last heartbeat of the previous run (at most 5 s before it ended), if any. */
  aliveBeforeStart: number | undefined;
  readonly replay: ReplayWindow;
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(private readonly opts: SigningOptions) {
    this.did = opts.identity.did;
    this.trust = opts.trust;
    this.firstUse = new Set(opts.firstUse ?? []);
    this.now = opts.now ?? Date.now;
    const maxAgeMs = opts.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
    this.gaps = new OfflineGaps({ maxAgeMs, offlineMaxAgeMs: opts.offlineMaxAgeMs ?? DEFAULT_OFFLINE_MAX_AGE_MS, graceMs: opts.offlineGraceMs ?? DEFAULT_OFFLINE_GRACE_MS });
    this.replay = new ReplayWindow({ maxAgeMs, now: this.now });
    const now = this.now();
    if (opts.ledger) {
      // What this agent accepted before it stopped is still refused as a copy (issue "Close the perimeter" §5).
      for (const e of opts.ledger.live(now)) this.replay.record(e.key, 0, e.expiresAt);
      // Away since its last heartbeat: what the server held for it meanwhile is not STALE.
      const alive = opts.ledger.aliveAt();
      this.aliveBeforeStart = alive;
      if (alive !== undefined && alive < now) this.gaps.opened(alive);
    }
    this.verify = createVerifier({ now: this.now, maxAgeMs, replay: this.replay, lateUntil: (ts, at) => this.gaps.acceptableUntil(ts, at) });
  }

  /** The durable replay ledger, if any (its group commit joins the transport's bursts: boot.ts). */
  get ledger(): ReplayLedger | undefined {
    return this.opts.ledger;
  }

  /** The transport lost the server: from now on it may hold envelopes for us. */
  wentOffline(): void {
    this.gaps.opened(this.now());
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }

  /** Back online: the gap closes; the ledger's heartbeat runs while online. */
  cameOnline(): void {
    const ledger = this.opts.ledger;
    this.gaps.closed(this.now());
    if (!ledger || this.heartbeat) return;
    ledger.heartbeat(this.now());
    this.heartbeat = setInterval(() => ledger.heartbeat(this.now()), HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  /** Makes an accepted envelope's replay entry durable; called once it was handled (agent.ts). */
  commit(check: SignatureCheck): void {
    if (check.ok && check.replay) this.opts.ledger?.record(check.replay.key, check.replay.expiresAt, this.now());
  }

  close(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    const ledger = this.opts.ledger;
    if (ledger) {
      ledger.heartbeat(this.now());
      ledger.close();
    }
  }

  /** The envelope as it goes on the wire: timestamp stamped now, sender_did + signature (Agora §2). */
  sign(envelope: Envelope): Envelope {
    return signEnvelope({ ...envelope, timestamp: new Date(this.now()).toISOString() }, this.opts.identity);
  }

  /**
   * Verifies an envelope that passed schema validation, against the DID bound to `from`. Older
   * than 60 s (Agora §1) it passes only if signed while this agent was away (offline-gaps.ts); a
   * <delay/> stamp counts for nothing, whoever claims to have stamped it.
   */
  check(envelope: Envelope, from: Identity, kind: string): SignatureCheck {    const presented = typeof envelope.sender_did === 'string' ? envelope.sender_did : undefined;
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
    const r = this.verify(envelope, expected);
    if (r.ok) return { ok: true, did: r.did, firstUse: expected === undefined, ...(r.key !== undefined && r.expiresAt !== undefined ? { replay: { key: r.key, expiresAt: r.expiresAt } } : {}) };
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
  return envFlag('PARLEY_SIGNING', env);
}

/** The Signing of account `account` (key created and pinned on first use), or undefined when disabled. */
export function signingFor(
  cfg: ParleyConfig, account: string, opts: Pick<SigningOptions, 'firstUse' | 'maxAgeMs' | 'offlineMaxAgeMs'> & { roster?: Roster; ledgerWithin?: Db } = {}, env: NodeJS.ProcessEnv = process.env,
): Signing | undefined {
  if (!signingEnabled(env)) return undefined;
  const identity = ensureAgentIdentity(cfg.home, account, `${account}@${cfg.domain}`);
  const { roster, ledgerWithin, ...rest } = opts;
  const trust = new TrustStore(pinnedDidsFile(cfg.home), roster ? { enrolled: (jid) => roster.didOf(jid) } : {});
  // A durable role keeps its ledger in its exchange store's file: one COMMIT per burst (boot.ts).
  const ledger = ledgerWithin ? new ReplayLedger({ within: ledgerWithin, formerFile: replayLedgerFile(cfg, account) }) : new ReplayLedger(replayLedgerFile(cfg, account));
  return new Signing({ identity, trust, domain: cfg.domain, ledger, ...offlineWindowFromEnv(env), ...rest });
}

/** $PARLEY_HOME/data/<account>-replay.sqlite: the durable replay ledger of an agent with no exchange store. */
export function replayLedgerFile(cfg: ParleyConfig, account: string): string {
  return path.join(paths(cfg).data, `${account}-replay.sqlite`);
}

/** PARLEY_OFFLINE_MAX_AGE_MS / PARLEY_OFFLINE_GRACE_MS (offline-gaps.ts), when set to a number ≥ 0. */
export function offlineWindowFromEnv(env: NodeJS.ProcessEnv): Pick<SigningOptions, 'offlineMaxAgeMs' | 'offlineGraceMs'> {
  return { offlineMaxAgeMs: envNumber('PARLEY_OFFLINE_MAX_AGE_MS', env), offlineGraceMs: envNumber('PARLEY_OFFLINE_GRACE_MS', env) };
}
