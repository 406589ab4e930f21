// One change at a time per booked meeting. Two moves (or a move and a cancel) of the same meeting
// at once both proposed revision n+1; the first confirmed n+2, the second's confirm was then
// stale and it "restored" the old slot everywhere, while the first had told everyone of the new
// one. The route claims the meeting before it starts a move or cancel, and the exchange lets it
// go when it ends (its `unclaim` action); a claim that was never let go (a crash) lapses.
export class MeetingLocks {
  private readonly until = new Map<string, number>();

  constructor(private readonly ttlMs: number, private readonly now: () => number = Date.now) {}

  /** True when the meeting was free to change, and is now claimed. */
  claim(threadId: string): boolean {
    const t = this.now();
    if ((this.until.get(threadId) ?? 0) > t) return false;
    this.until.set(threadId, t + this.ttlMs);
    return true;
  }

  release(threadId: string): void {
    this.until.delete(threadId);
  }
}
