// The DF's registrations in memory, indexed for its lookups (issue 14 §3: a candidate query with
// 10,000 registered). The store stays the durable copy (read once at start, written through);
// queries never read or parse it. Before this, every QUERY-REF NEED read every row, parsed every
// profile and re-parsed every topic and example of every agent: ≈ 18 ms a query at 1,000.
//   - by capability: a NEED looks only at the agents offering it;
//   - ranking features (ranking.ts RankFeatures) parsed once per distinct topics+examples and
//     shared by reference, so 10,000 agents of one role cost one parse and one score per query;
//   - top-k selection: only the MAX_CANDIDATES best are kept, and only those are checked against
//     `admits` (the enrolment lookup), which cannot change the order of the others;
//   - lease groups: the members of each (domain, lease_group), for the HEARTBEAT that renews them all.
import type { DirectoryRecord } from '../../shared/store/index.js';
import { isLive } from './lease.js';
import { featureScore, prepareHint, type RankFeatures, rankFeatures, ranksBefore } from './ranking.js';

interface Entry {
  record: DirectoryRecord;
  features: RankFeatures;
  /** The key of `features` in the intern table. */
  featureKey: string;
}

export class DirectoryIndex {
  private readonly entries = new Map<string, Entry>();
  private readonly byCapability = new Map<string, Set<string>>();
  private readonly features = new Map<string, { features: RankFeatures; refs: number }>();
  private readonly groups = new Map<string, Set<string>>();

  constructor(records: Iterable<DirectoryRecord> = []) {
    for (const r of records) this.set(r);
  }

  get size(): number {
    return this.entries.size;
  }

  /** Distinct feature sets held (tests: agents of one role share one). */
  get featureSets(): number {
    return this.features.size;
  }

  get(jid: string): DirectoryRecord | undefined {
    return this.entries.get(jid)?.record;
  }

  /** Inserts or replaces by record.profile.jid (the record is kept as given: callers pass a fresh one). */
  set(record: DirectoryRecord): void {
    const jid = record.profile.jid;
    this.delete(jid);
    const featureKey = JSON.stringify([record.profile.topics ?? [], record.profile.examples ?? []]);
    let shared = this.features.get(featureKey);
    if (!shared) {
      shared = { features: rankFeatures(record.profile.topics, record.profile.examples), refs: 0 };
      this.features.set(featureKey, shared);
    }
    shared.refs += 1;
    this.entries.set(jid, { record, features: shared.features, featureKey });
    const group = groupKey(record);
    if (group !== undefined) {
      let members = this.groups.get(group);
      if (!members) this.groups.set(group, (members = new Set()));
      members.add(jid);
    }
    for (const c of new Set(record.profile.capabilities)) {
      let set = this.byCapability.get(c);
      if (!set) this.byCapability.set(c, (set = new Set()));
      set.add(jid);
    }
  }

  delete(jid: string): boolean {
    const e = this.entries.get(jid);
    if (!e) return false;
    this.entries.delete(jid);
    for (const c of e.record.profile.capabilities) {
      const set = this.byCapability.get(c);
      set?.delete(jid);
      if (set?.size === 0) this.byCapability.delete(c);
    }
    const group = groupKey(e.record);
    if (group !== undefined) {
      const members = this.groups.get(group);
      members?.delete(jid);
      if (members?.size === 0) this.groups.delete(group);
    }
    const shared = this.features.get(e.featureKey);
    if (shared && --shared.refs === 0) this.features.delete(e.featureKey);
    return true;
  }

  /** The records sharing `jid`'s lease group (itself included); none when it named no group. */
  *groupOf(jid: string): IterableIterator<DirectoryRecord> {
    const r = this.entries.get(jid)?.record;
    const group = r && groupKey(r);
    if (group === undefined) return;
    for (const m of this.groups.get(group) ?? []) yield (this.entries.get(m) as Entry).record;
  }

  records(): IterableIterator<DirectoryRecord> {
    return (function* (entries) {
      for (const e of entries.values()) yield e.record;
    })(this.entries);
  }

  /**
   * The `k` best live, admitted agents offering `need` (of `role`, when given), best first, in
   * exactly the order of rankCandidates over all of them (ranking.ts).
   */
  top(need: string, hint: string | undefined, opts: { now: number; leaseMs: number; k: number; role?: string; admits: (jid: string) => boolean }): DirectoryRecord[] {
    const jids = this.byCapability.get(need);
    if (!jids || opts.k <= 0) return [];
    const prepared = prepareHint(hint);
    const scores = new Map<RankFeatures, number>();
    const kept: { r: DirectoryRecord; score: number }[] = [];
    for (const jid of jids) {
      const e = this.entries.get(jid) as Entry;
      const r = e.record;
      if (!isLive(r, opts.now, opts.leaseMs) || (opts.role !== undefined && r.profile.role !== opts.role)) continue;
      let score = scores.get(e.features);
      if (score === undefined) scores.set(e.features, (score = featureScore(e.features, prepared)));
      const c = { r, score };
      if (kept.length === opts.k && !ranksBefore(c, kept[kept.length - 1]!)) continue;
      if (!opts.admits(jid)) continue;
      // Binary search for the first kept entry that c ranks before.
      let lo = 0;
      let hi = kept.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (ranksBefore(c, kept[mid]!)) hi = mid;
        else lo = mid + 1;
      }
      kept.splice(lo, 0, c);
      if (kept.length > opts.k) kept.pop();
    }
    return kept.map((c) => c.r);
  }
}

/**
 * A group is scoped to the members' domain: only agents of one component (one operator's secret)
 * can share a lease, so an agent of another domain naming the same group renews none of them.
 */
function groupKey(r: DirectoryRecord): string | undefined {
  return r.lease_group === undefined ? undefined : `${r.profile.jid.slice(r.profile.jid.indexOf('@') + 1)}\n${r.lease_group}`;
}
