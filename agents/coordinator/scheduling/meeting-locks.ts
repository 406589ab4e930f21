// One change at a time per booked meeting. Two moves (or a move and a cancel) of the same meeting
// at once both proposed revision n+1; the first confirmed n+2, the second's confirm was then
// stale and it "restored" the old slot everywhere, while the first had told everyone of the new
// one. The route claims the meeting before it starts a move or cancel, and the exchange lets it
// go when it ends (its `unclaim` action); a claim that was never let go lapses.
// With a `ClaimRows` (the scheduling store) the claims are on disk: a move restored after the
// Coordinator was killed mid-exchange still holds its meeting (in memory it was free at restart,
// and a second move could run beside the restored one), and its `unclaim` lets it go.

/** Durable claims: one row per meeting claimed until an epoch-ms time (store.ts). */
export interface ClaimRows {
  /** Claims `threadId` until `until` unless an unexpired claim (until > now) holds it: true when claimed. */
  claimRow(threadId: string, until: number, now: number): boolean;
  releaseRow(threadId: string): void;
}

export class MeetingLocks {
  private readonly until = new Map<string, number>();

  constructor(private readonly ttlMs: number, private readonly now: () => number = Date.now, private readonly rows?: ClaimRows) {}

  /** True when the meeting was free to change, and is now claimed. */
  claim(threadId: string): boolean {
    const t = this.now();
    if (this.rows) return this.rows.claimRow(threadId, t + this.ttlMs, t);
    if ((this.until.get(threadId) ?? 0) > t) return false;
    this.until.set(threadId, t + this.ttlMs);
    return true;
  }

  release(threadId: string): void {
    if (this.rows) this.rows.releaseRow(threadId);
    else this.until.delete(threadId);
  }
}
