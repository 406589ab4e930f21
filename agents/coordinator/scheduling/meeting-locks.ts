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

/** Claims held in memory only (tests; the Coordinator claims on disk, store.ts). */
class MemoryClaims implements ClaimRows {
  private readonly until = new Map<string, number>();

  claimRow(threadId: string, until: number, now: number): boolean {
    if ((this.until.get(threadId) ?? 0) > now) return false;
    this.until.set(threadId, until);
    return true;
  }

  releaseRow(threadId: string): void {
    this.until.delete(threadId);
  }
}

export class MeetingLocks {
  constructor(private readonly ttlMs: number, private readonly now: () => number = Date.now, private readonly rows: ClaimRows = new MemoryClaims()) {}

  /** True when the meeting was free to change, and is now claimed. */
  claim(threadId: string): boolean {
    const t = this.now();
    return this.rows.claimRow(threadId, t + this.ttlMs, t);
  }

  release(threadId: string): void {
    this.rows.releaseRow(threadId);
  }
}
