// A short-lived memory of the DF's answers (seed contract §2.2 stays the source): the candidate
// list for a question is reused for `ttlMs` by questions of the same shape (same words, any
// numbers: "what is 17 * 23?" and "what is 6 * 7?"), saving the QUERY-REF round trip on busy
// paths. A turn that ends badly (REFUSE, timeout, FAILURE) forgets the entry, so the next
// question asks the DF again; empty lists are never kept (a specialist may be registering).
// Refreshed ahead: before its ttl ends ONE question asks the DF anew (its answer renews the entry)
// while the others keep the list, still fresh. Without that, every question that came between the
// expiry and the DF's answer asked the DF too: with 100 in flight, 668 QUERY-REFs for 1,120
// conversations (issue 15, docs/bench.md "stop 31"). The refresh starts in the last third of the
// ttl, or earlier by 1.5 × the last refresh's round trip when the DF answers slowly (156 ms at
// that load): the entry then never runs out while the Coordinator is busy. The ttl is also how
// soon the DF's turn-taking among equal agents shows (ranking.ts): the lists rotate at least once
// per ttl, so a longer one would send one agent all the work (sharded-agents.test).
export class CandidateCache {
  private readonly entries = new Map<string, { jids: string[]; until: number; refreshAt: number; refreshing: boolean }>();
  /** When the refresh of a key began (kept past the entry's expiry, to time a slow DF). */
  private readonly refreshStarted = new Map<string, number>();
  /** The last refresh's round trip (get → put), ms. */
  private lastRefreshMs = 0;

  constructor(readonly ttlMs: number, private readonly now: () => number = Date.now, private readonly maxEntries = 1000) {}

  /** Questions that differ only in their numbers share an entry. */
  static keyOf(hint: string): string {
    return hint.toLowerCase().replace(/\d+(?:[.,]\d+)*/g, '#').replace(/\s+/g, ' ').trim();
  }

  get(hint: string): string[] | undefined {
    if (this.ttlMs <= 0) return undefined;
    const key = CandidateCache.keyOf(hint);
    const e = this.entries.get(key);
    if (!e) return undefined;
    const now = this.now();
    if (now >= e.until) {
      this.entries.delete(key);
      return undefined;
    }
    if (!e.refreshing && now >= e.refreshAt) {
      e.refreshing = true;
      this.refreshStarted.set(key, now);
      return undefined;
    }
    return e.jids;
  }

  put(hint: string, jids: unknown): void {
    if (this.ttlMs <= 0 || !Array.isArray(jids) || jids.length === 0 || !jids.every((j) => typeof j === 'string')) return;
    const key = CandidateCache.keyOf(hint);
    const now = this.now();
    const started = this.refreshStarted.get(key);
    if (started !== undefined) {
      this.lastRefreshMs = now - started;
      this.refreshStarted.delete(key);
    }
    this.entries.delete(key);
    const lead = Math.max(this.ttlMs / 3, 1.5 * this.lastRefreshMs);
    this.entries.set(key, { jids: [...(jids as string[])], until: now + this.ttlMs, refreshAt: Math.max(now, now + this.ttlMs - lead), refreshing: false });
    if (this.refreshStarted.size > this.maxEntries) this.refreshStarted.delete(this.refreshStarted.keys().next().value as string);
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
  }

  forget(hint: string): void {
    this.entries.delete(CandidateCache.keyOf(hint));
    this.refreshStarted.delete(CandidateCache.keyOf(hint));
  }

  /** The DF said its answers changed (df-changed.ts): every list goes. */
  clear(): void {
    this.entries.clear();
    this.refreshStarted.clear();
  }
}

/**
 * A fresh proposal (issue #3): after a negotiation, the winner for a question shape among the
 * same candidates, for as long as its offer was valid (its ttl). Within that time another CFP
 * round would only repeat the same pick, so PARLEY_NEGOTIATE=auto sends the question straight to
 * the winner (the direct flow, the others as fallbacks). Any other set of candidates (one joined
 * or left) or a turn that ends badly (forget) means negotiating again.
 */
export class WinnerMemory {
  private readonly entries = new Map<string, { set: string; winner: string; until: number; refreshAt: number; refreshing: boolean }>();

  constructor(private readonly now: () => number = Date.now, private readonly maxEntries = 1000) {}

  private static setOf(candidates: readonly string[]): string {
    return [...candidates].sort().join(',');
  }

  get(hint: string, candidates: readonly string[]): string | undefined {
    const key = CandidateCache.keyOf(hint);
    const e = this.entries.get(key);
    if (!e) return undefined;
    const now = this.now();
    if (now >= e.until) {
      this.entries.delete(key);
      return undefined;
    }
    if (e.set !== WinnerMemory.setOf(candidates)) return undefined;
    // Refresh ahead: in the last third of the offer's ttl ONE caller negotiates anew (its put()
    // renews the entry) while the others keep the still-valid winner. Without this every
    // conversation in flight opened a CFP round at the same moment of expiry (docs/bench.md).
    if (!e.refreshing && now >= e.refreshAt) {
      e.refreshing = true;
      return undefined;
    }
    return e.winner;
  }

  put(hint: string, candidates: readonly string[], winner: string, ttlMs: number): void {
    if (!(ttlMs > 0) || !candidates.includes(winner)) return;
    const key = CandidateCache.keyOf(hint);
    this.entries.delete(key);
    const now = this.now();
    this.entries.set(key, { set: WinnerMemory.setOf(candidates), winner, until: now + ttlMs, refreshAt: now + (ttlMs * 2) / 3, refreshing: false });
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
  }

  forget(hint: string): void {
    this.entries.delete(CandidateCache.keyOf(hint));
  }
}
