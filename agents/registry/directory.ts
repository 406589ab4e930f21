// The DF's domain logic over a DirectoryStore (seed contract §2.2): registrations with leases,
// candidate lookup, the live directory. `now` is always an argument (no clock inside), so
// lease expiry and round-robin are unit-tested without real time. It only registers and
// answers lookups; it never dispatches work (seed contract §5).
import { contentByteSize, MAX_CONTENT_BYTES } from '../../shared/acl/index.js';
import type { AgentProfile, DirectoryEntry } from '../../shared/contracts/index.js';
import type { DirectoryRecord, DirectoryStore } from '../../shared/store/index.js';
import { bare } from '../../shared/transport/index.js';
import { isLive, partitionByLease } from './lease.js';
import { DirectoryIndex } from './directory-index.js';

export type { DirectoryEntry };

/** contracts/candidates.json and directory.json maxItems. */
export const MAX_CANDIDATES = 100;
export const MAX_DIRECTORY = 1000;

export class Directory {
  /** Monotonic "use" stamp, so queries within one millisecond still take turns. */
  private lastUse = 0;
  /** Every registration in memory (directory-index.ts); the store is the durable copy, written through. */
  private readonly index: DirectoryIndex;

  /** `admits`: whether a JID may be listed now (its enrolment holds); default all. */
  constructor(private readonly store: DirectoryStore, readonly leaseMs: number, private readonly admits: (jid: string) => boolean = () => true) {
    this.index = new DirectoryIndex(store.all());
    for (const r of this.index.records()) this.lastUse = Math.max(this.lastUse, r.last_used);
  }

  /**
   * Inserts or replaces (a restarted agent registers again); the lease starts now. A profile's
   * lease_group is kept beside the profile, never in it: the DF does not list it.
   */
  register(profile: AgentProfile, now: number): { jid: string; lease_ms: number } {
    const jid = bare(profile.jid);
    const { lease_group: group, ...listed } = profile;
    const record: DirectoryRecord = { profile: { ...listed, jid }, registered_at: now, last_seen: now, last_used: 0, ...(group !== undefined ? { lease_group: group } : {}) };
    this.store.put(record);
    this.index.set(record);
    return { jid, lease_ms: this.leaseMs };
  }

  /**
   * Renews a live lease, and those of every live member of its lease group (a member already
   * expired stays expired: a group never brings an entry back); false (and the stale entry is
   * dropped) when there is none.
   */
  heartbeat(jid: string, now: number): boolean {
    const record = this.index.get(bare(jid));
    if (!record) return false;
    if (!isLive(record, now, this.leaseMs)) {
      this.deregister(record.profile.jid);
      return false;
    }
    if (record.lease_group === undefined) {
      record.last_seen = now;
      this.store.renew(record.profile.jid, now);
      return true;
    }
    for (const m of this.index.groupOf(record.profile.jid)) if (isLive(m, now, this.leaseMs)) m.last_seen = now;
    this.store.renewGroup(record.lease_group, record.profile.jid.slice(record.profile.jid.indexOf('@') + 1), now, this.leaseMs);
    return true;
  }

  deregister(jid: string): boolean {
    const key = bare(jid);
    const had = this.index.delete(key);
    return this.store.remove(key) || had;
  }

  /**
   * Every live agent offering `need` (of `role`, when given), best first (ranking.ts), at most
   * `max` (NEED max_results, FIPA SC00023 max-results) and never more than MAX_CANDIDATES; the
   * head is marked used.
   */
  candidates(need: string, hint: string | undefined, now: number, role?: string, max = MAX_CANDIDATES): string[] {
    return this.rank(need, hint, now, role, max).jids;
  }

  /** candidates(), and `lead`: how many at the head rank alike (they take turns across queries). */
  rank(need: string, hint: string | undefined, now: number, role?: string, max = MAX_CANDIDATES): { jids: string[]; lead: number } {
    const k = Math.min(MAX_CANDIDATES, max);
    const lead = { n: 0 };
    const ranked = this.index.top(need, hint, { now, leaseMs: this.leaseMs, k, admits: this.admits, lead, ...(role !== undefined ? { role } : {}) });
    // The head takes its turn. When the list was cut at `max` among agents that rank alike, every
    // one handed out takes its turn: the asker may reuse this answer and rotate them (the
    // Coordinator's candidate cache), so the next query gives the next ones, not seven of the same.
    const turns = lead.n === k && k > 1 ? ranked : ranked.slice(0, 1);
    for (const r of turns) {
      this.lastUse = Math.max(now, this.lastUse + 1);
      this.index.markUsed(r.profile.jid, this.lastUse);
      this.store.markUsed(r.profile.jid, this.lastUse);
    }
    return { jids: ranked.map((r) => r.profile.jid), lead: lead.n };
  }

  /** The live directory for the Presenter's help, by name; trimmed to fit the 64 kB content limit. */
  describe(capability: string | undefined, now: number): DirectoryEntry[] {
    const entries = this.live(now)
      .filter((r) => capability === undefined || r.profile.capabilities.includes(capability))
      .sort((a, b) => (a.profile.name < b.profile.name ? -1 : a.profile.name > b.profile.name ? 1 : 0))
      .slice(0, MAX_DIRECTORY)
      .map(toEntry);
    return fitContent(entries, (agents) => ({ type: 'DIRECTORY', agents }));
  }

  /** Removes expired registrations and those no longer admitted (periodic sweep; lookups also ignore them lazily). */
  sweep(now: number): { expired: string[]; unenrolled: string[] } {
    const { expired, live } = partitionByLease([...this.index.records()], now, this.leaseMs);
    const unadmitted = live.filter((r) => !this.admits(r.profile.jid));
    for (const r of [...expired, ...unadmitted]) this.deregister(r.profile.jid);
    return { expired: expired.map((r) => r.profile.jid), unenrolled: unadmitted.map((r) => r.profile.jid) };
  }

  private live(now: number): DirectoryRecord[] {
    return partitionByLease([...this.index.records()], now, this.leaseMs).live.filter((r) => this.admits(r.profile.jid));
  }
}

export function toEntry(r: DirectoryRecord): DirectoryEntry {
  return { profile: r.profile, registered_at: new Date(r.registered_at).toISOString(), last_seen: new Date(r.last_seen).toISOString() };
}

/** Drops items from the end until the content built from them fits MAX_CONTENT_BYTES (seed contract §1). */
export function fitContent<T>(items: T[], build: (items: T[]) => object, maxBytes = MAX_CONTENT_BYTES): T[] {
  let n = items.length;
  while (n > 0 && contentByteSize(build(items.slice(0, n))) > maxBytes) n = Math.floor(n * 0.9);
  return items.slice(0, n);
}
