// A short-lived memory of the DF's answers (seed contract §2.2 stays the source): the candidate
// list for a question is reused for `ttlMs` by questions of the same shape (same words, any
// numbers: "what is 17 * 23?" and "what is 6 * 7?"), saving the QUERY-REF round trip on busy
// paths. A turn that ends badly (REFUSE, timeout, FAILURE) forgets the entry, so the next
// question asks the DF again; empty lists are never kept (a specialist may be registering).
// Refreshed ahead: before its ttl ends ONE question asks the DF anew (its answer renews the entry)
// while the others keep the list, still fresh. Without that, every question that came between the
// expiry and the DF's answer asked the DF too: with 100 in flight, 668 QUERY-REFs for 1,120
// conversations (issue 15, docs/bench.md "stop 31"). The refresh starts in the last third of the
// ttl, or earlier by 1.5 × the recent refreshes' round trip when the DF answers slowly (156 ms at
// that load); past its ttl the first question refreshes and the list serves on, stale, while
// that refresh is on the way (get), for at most maxStaleMs. The ttl is also how
// soon the DF's turn-taking among equal agents shows (ranking.ts): the lists rotate at least once
// per ttl, so a longer one would send one agent all the work (sharded-agents.test).
export class CandidateCache {
  /** `refreshingSince`: when the question now asking the DF anew took the refresh (get). */
  private readonly entries = new Map<string, { jids: string[]; lead: number; turn: number; until: number; refreshAt: number; refreshingSince?: number }>();
  /** The recent refreshes' round trip (get → put), ms. */
  private lastRefreshMs = 0;

  /** How long past its TTL a list may serve while its refresh is on the way (the DF unanswering). */
  readonly maxStaleMs: number;

  constructor(readonly ttlMs: number, private readonly now: () => number = Date.now, private readonly maxEntries = 1000) {
    this.maxStaleMs = Math.max(5000, 20 * ttlMs);
  }

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
    if (now >= e.until + this.maxStaleMs) {
      this.entries.delete(key);
      return undefined;
    }
    // Due (in the last part of its TTL, or past it): this question asks the DF anew.
    if (e.refreshingSince === undefined && now >= e.refreshAt) {
      e.refreshingSince = now;
      return undefined;
    }
    // Past its TTL while the refresh is on the way: served stale. The bench's 100 questions come
    // in waves (all answered, then all asked again), so an entry expired between two waves and the
    // next wave asked the DF 100 times at once. A change of the directory is told at once
    // (DF_CHANGED), and a turn that ends badly still forgets the list.
    return this.turnOf(e);
  }

  /**
   * The list with its `lead` (the head agents the DF ranks alike) rotated one place per use: the
   * DF lets them take turns across queries (ranking.ts step 2), and a reused answer must spread
   * the work the same way, not send it all to one of them.
   */
  private turnOf(e: { jids: string[]; lead: number; turn: number }): string[] {
    if (e.lead < 2) return e.jids;
    const t = e.turn++ % e.lead;
    return t === 0 ? e.jids : [...e.jids.slice(t, e.lead), ...e.jids.slice(0, t), ...e.jids.slice(e.lead)];
  }

  /** `ahead`: how many at the head the DF ranks alike (its answer's `lead`), rotated per use. */
  put(hint: string, jids: unknown, ahead?: unknown): void {
    if (this.ttlMs <= 0 || !Array.isArray(jids) || jids.length === 0 || !jids.every((j) => typeof j === 'string')) return;
    const key = CandidateCache.keyOf(hint);
    const now = this.now();
    const started = this.entries.get(key)?.refreshingSince;
    // The slowest recent refresh, forgotten slowly: one quick answer must not make the next refresh late.
    if (started !== undefined) this.lastRefreshMs = Math.max(now - started, 0.8 * this.lastRefreshMs);
    this.entries.delete(key);
    const early = Math.max(this.ttlMs / 3, 1.5 * this.lastRefreshMs);
    const lead = typeof ahead === 'number' && Number.isInteger(ahead) ? Math.min(Math.max(ahead, 1), jids.length) : 1;
    this.entries.set(key, { jids: [...(jids as string[])], lead, turn: 1, until: now + this.ttlMs, refreshAt: Math.max(now, now + this.ttlMs - early) });
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
  }

  forget(hint: string): void {
    this.entries.delete(CandidateCache.keyOf(hint));
  }

  /** The DF said its answers changed (df-changed.ts): every list goes. */
  clear(): void {
    this.entries.clear();
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
