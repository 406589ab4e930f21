// Whom an agent trusts: the JID → DID bindings it verifies envelopes against (docs/architecture.md
// "Identities and trust"). Three sources, in this order of authority:
//  1. the operator's enrolments (roster.ts: the enrolment record, or credentials verified with the
//     operator's DID): specialists and calendars, on this host or enrolled by token on another;
//  2. the pinned bindings file ($PARLEY_HOME/secrets/pinned-dids.json, 0600), written at
//     provisioning and changed only by the operator (`npm run keys -- rotate NAME`): the core
//     agents and rooms, which are never enrolled;
//  3. bindings learned from the Registry at run time (the `dids` map of INFORM candidates on the
//     Coordinator's side), only for JIDs neither of the above binds.
// The file is re-read when a JID is unknown or presents another DID than the cached one, at most
// once per `reloadEveryMs` (a flood from unknown JIDs costs a bounded number of small reads).
import fs from 'node:fs';
import { CORE_AGENTS } from '../contracts/index.js';
import { isDidKey } from './did-key.js';
import { PinnedDids } from './keystore.js';

/** The core agents' account names (registry@<domain> …): pinned at provisioning, never enrolled. */
const CORE_LOCALS = new Set<string>(Object.keys(CORE_AGENTS));

export interface TrustStoreOptions {
  /** Minimum time between two re-reads of the pinned file. */
  reloadEveryMs?: number;
  /** Learned bindings kept at most (oldest forgotten first). */
  maxLearned?: number;
  now?: () => number;
  /** The enrolled DID of a JID (Roster.didOf). */
  enrolled?: (jid: string) => string | undefined;
}

export type BindingSource = 'pinned' | 'enrolled' | 'learned';

/** What the signature stage needs from a trust store (tests provide their own). */
export interface DidResolver {
  didOf(jid: string, presented?: string): { did: string; source: BindingSource } | undefined;
  learn(jid: string, did: string): boolean;
}

export class TrustStore implements DidResolver {
  private pinned: Record<string, string> = {};
  private readonly learned = new Map<string, string>();
  private lastLoad = -Infinity;
  private mtimeMs = -1;
  private readonly reloadEveryMs: number;
  private readonly maxLearned: number;
  private readonly now: () => number;
  private readonly enrolled: ((jid: string) => string | undefined) | undefined;
  reloads = 0;

  constructor(readonly file: string | undefined, opts: TrustStoreOptions = {}) {
    this.enrolled = opts.enrolled;
    this.reloadEveryMs = opts.reloadEveryMs ?? 250;
    this.maxLearned = opts.maxLearned ?? 10_000;
    this.now = opts.now ?? Date.now;
    this.load(true);
  }

  /** The DID bound to `jid` (bare or full); re-reads the file (rate-limited) when `presented` disagrees. */
  didOf(jid: string, presented?: string): { did: string; source: BindingSource } | undefined {
    const key = bareKey(jid);
    let found = this.lookup(key);
    if (found === undefined || (presented !== undefined && found.did !== presented)) {
      if (this.load(false)) found = this.lookup(key);
    }
    return found;
  }

  /** Records a binding vouched for by the Registry; the pinned file always wins. False if ignored. */
  learn(jid: string, did: string): boolean {
    const key = bareKey(jid);
    if (this.pinned[key] !== undefined) return false;
    // The same binding again (every INFORM candidates repeats up to 100): already checked when
    // learned, so no did:key decoding (≈ 6 µs each, 0.6 ms of CPU per answer at 100 candidates).
    if (this.learned.get(key) !== did && !isDidKey(did)) return false;
    this.learned.delete(key);
    this.learned.set(key, did);
    if (this.learned.size > this.maxLearned) this.learned.delete(this.learned.keys().next().value as string);
    return true;
  }

  forget(jid: string): void {
    this.learned.delete(bareKey(jid));
  }

  private lookup(key: string): { did: string; source: BindingSource } | undefined {
    // The operator's enrolment is the explicit act for specialists and calendars (a pin of theirs
    // is only provisioning's, by account name); core agents are never enrolled, so their pin rules,
    // and the roster is not asked: it re-reads its file's mtime at every lookup of a JID it does
    // not know (a stat per envelope from a core agent, 2 % of the two-agent bench's CPU), and an
    // enrolment naming a core agent's JID must not replace its pinned key.
    const pinned = this.pinned[key];
    const at = key.indexOf('@');
    if (pinned !== undefined && at > 0 && CORE_LOCALS.has(key.slice(0, at))) return { did: pinned, source: 'pinned' };
    const enrolled = this.enrolled?.(key);
    if (enrolled !== undefined) return { did: enrolled, source: 'enrolled' };
    if (pinned !== undefined) return { did: pinned, source: 'pinned' };
    const learned = this.learned.get(key);
    return learned === undefined ? undefined : { did: learned, source: 'learned' };
  }

  /** Re-reads the file if allowed by the rate limit and changed; true when it was re-read. */
  private load(force: boolean): boolean {
    if (this.file === undefined) return false;
    const now = this.now();
    if (!force && now - this.lastLoad < this.reloadEveryMs) return false;
    this.lastLoad = now;
    let mtimeMs: number;
    try {
      mtimeMs = fs.statSync(this.file).mtimeMs;
    } catch {
      this.pinned = {};
      return true;
    }
    if (!force && mtimeMs === this.mtimeMs) return false;
    this.mtimeMs = mtimeMs;
    try {
      const all = new PinnedDids(this.file).all();
      this.pinned = Object.fromEntries(Object.entries(all).map(([k, v]) => [k.toLowerCase(), v]));
      this.reloads += 1;
    } catch {
      // A half-written file cannot happen (atomic rename); a corrupt one keeps the last good copy.
    }
    return true;
  }
}

function bareKey(jid: string): string {
  const slash = jid.indexOf('/');
  return (slash < 0 ? jid : jid.slice(0, slash)).toLowerCase();
}
