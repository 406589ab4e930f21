// Who is an enrolled agent, and of which role (docs/architecture.md "Identities and trust"), as
// every agent sees it. Two sources:
//  1. the installation's enrolment record ($PARLEY_HOME/secrets/enrolments.json), which the agents
//     of the operator's host share; re-read when it changes (its mtime is checked at most every
//     `reloadEveryMs`, 20 ms, for a known JID, and at every lookup of an unknown one), so a
//     revocation holds from the next message on and a new enrolment counts at once;
//  2. credentials verified with the operator's DID (learn): what an agent on another host, without
//     the record, has (its own credential, and those the Registry sends). The record's revocation
//     always wins over a learned credential.
import fs from 'node:fs';
import path from 'node:path';
import { type Credential, type EnrolledRole, enrolmentsFile, OPERATOR_KEY, readEnrolments, verifyCredential } from './enrolment.js';
import { loadIdentity } from './keystore.js';
import { envString } from '../config/index.js';

export type EnrolmentState =
  | { state: 'enrolled'; role: EnrolledRole; did: string; exp: number }
  | { state: 'revoked' | 'expired' | 'none'; role?: undefined; did?: undefined };

export interface RosterOptions {
  /** The operator's DID: needed to learn credentials (none = only the record counts). */
  operatorDid?: string;
  reloadEveryMs?: number;
  maxLearned?: number;
  now?: () => number;
}

const bareOf = (jid: string): string => (jid.includes('/') ? jid.slice(0, jid.indexOf('/')) : jid).toLowerCase();

export class Roster {
  private records: Record<string, { credential: Credential; revoked_at?: number }> = {};
  private readonly learned = new Map<string, Credential>();
  private lastCheck = -Infinity;
  private stamp = '';
  private readonly reloadEveryMs: number;
  private readonly maxLearned: number;
  private readonly now: () => number;

  constructor(readonly file: string | undefined, private readonly opts: RosterOptions = {}) {
    this.reloadEveryMs = opts.reloadEveryMs ?? 20;
    this.maxLearned = opts.maxLearned ?? 100_000;
    this.now = opts.now ?? Date.now;
    this.reload();
  }

  /** The enrolment state of `jid` now. */
  stateOf(jid: string): EnrolmentState {
    const key = bareOf(jid);
    this.reload(this.records[key] === undefined && !this.learned.has(key) ? 0 : this.reloadEveryMs);
    const now = this.now();
    const rec = this.records[key];
    if (rec?.revoked_at !== undefined) return { state: 'revoked' };
    const c = rec?.credential ?? this.learned.get(key);
    if (!c) return { state: 'none' };
    if (now >= c.exp) return { state: 'expired' };
    return { state: 'enrolled', role: c.role, did: c.did, exp: c.exp };
  }

  roleOf(jid: string): EnrolledRole | undefined {
    return this.stateOf(jid).role;
  }

  didOf(jid: string): string | undefined {
    return this.stateOf(jid).did;
  }

  /** Adds a credential verified with the operator's DID; false (ignored) otherwise. */
  learn(credential: unknown): boolean {
    if (!this.opts.operatorDid) return false;
    const r = verifyCredential(credential, this.opts.operatorDid, this.now());
    if (!r.ok) return false;
    const key = r.credential.jid;
    this.learned.delete(key);
    this.learned.set(key, r.credential);
    if (this.learned.size > this.maxLearned) this.learned.delete(this.learned.keys().next().value as string);
    return true;
  }

  /** The credential behind `jid`'s enrolment, to hand on (the Registry's INFORM candidates). */
  credentialOf(jid: string): Credential | undefined {
    if (this.stateOf(jid).state !== 'enrolled') return undefined;
    const key = bareOf(jid);
    return this.records[key]?.credential ?? this.learned.get(key);
  }

  private reload(minGapMs = 0): void {
    if (this.file === undefined) return;
    const now = this.now();
    if (minGapMs > 0 && now - this.lastCheck < minGapMs) return;
    this.lastCheck = now;
    const st = fs.statSync(this.file, { throwIfNoEntry: false });
    const stamp = st ? `${st.mtimeMs}:${st.size}:${st.ino}` : 'none'; // size and inode too: two writes within one mtime tick
    if (stamp === this.stamp) return;
    try {
      this.records = readEnrolments(this.file).enrolments;
      this.stamp = stamp;
    } catch {
      // Written by atomic rename: a corrupt file is an operator's edit; keep the last good copy.
    }
  }
}

/** The operator's file a joined host keeps (`npm run join`): it has no operator key of its own. */
export function operatorDidFile(home: string): string {
  return path.join(home, 'secrets', 'operator.did');
}

/** On a host that joined: the operator's DID (PARLEY_OPERATOR_DID, else the file `npm run join` wrote). */
export function joinedOperatorDid(home: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const fromEnv = envString('PARLEY_OPERATOR_DID', env);
  if (fromEnv) return fromEnv;
  try {
    return fs.readFileSync(operatorDidFile(home), 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * The roster of the installation at `home`: its enrolment record, and the operator's DID from the
 * operator key (operator host) or PARLEY_OPERATOR_DID (another host, pinned at join); credentials
 * kept in secrets/credentials/*.json (an agent's own, from redeeming a token) are learned.
 */
export function installationRoster(home: string, env: NodeJS.ProcessEnv = process.env): Roster {
  const operatorDid = loadIdentity(home, OPERATOR_KEY)?.did ?? joinedOperatorDid(home, env);
  const roster = new Roster(enrolmentsFile(home), operatorDid ? { operatorDid } : {});
  const dir = path.join(home, 'secrets', 'credentials');
  for (const f of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
    if (!f.endsWith('.json')) continue;
    try {
      roster.learn(JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')));
    } catch {
      // Not a credential: ignored (an agent without one is refused by the Registry, with the reason).
    }
  }
  return roster;
}
