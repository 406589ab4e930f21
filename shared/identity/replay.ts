// Replay window (Agora v1.0 §1: timestamps > 60 s old are rejected "for replay protection"; inside
// those 60 s a copied message would still pass, so ids seen recently are remembered here).
//
// An id is remembered until its own message expires (message timestamp + maxAge): after that the
// timestamp check rejects a copy as STALE anyway. Ids sit in time buckets by expiry, so pruning
// drops whole buckets (no timers). Ids are stored as 128-bit SHA-256 prefixes of
// (sender_did, reply_with): fixed 22 characters whatever the sender sends.
// Memory bound: at most `maxEntries` ids; the default 200,000 measured ≈ 20 MB of heap (≈ 100
// bytes per id). At a sustained rate R of verified messages the window holds
// R × (maxAge + maxFuture) ids, so the default covers ≈ 3,000 msg/s with the 60 s + 5 s window.
// Above that the oldest bucket is evicted and its expiry becomes the *horizon*: messages expiring
// at or before it can no longer be vouched for and are refused ('beyond-horizon' → STALE). The
// window fails closed, never open.
import { hash } from 'node:crypto';

export type ReplayVerdict = 'fresh' | 'replay' | 'beyond-horizon';

export interface ReplayWindowOptions {
  /** How long after its timestamp a message is still accepted (the STALE limit). */
  maxAgeMs?: number;
  maxEntries?: number;
  bucketMs?: number;
  /** Injectable clock (ms since epoch) for tests. */
  now?: () => number;
}

export const DEFAULT_MAX_AGE_MS = 60_000;
export const DEFAULT_REPLAY_ENTRIES = 200_000;

export class ReplayWindow {
  readonly maxAgeMs: number;
  readonly maxEntries: number;
  private readonly bucketMs: number;
  private readonly now: () => number;
  /** key → expiry (ms). */
  private readonly expiries = new Map<string, number>();
  /** bucket index (floor(expiry / bucketMs)) → keys; pruned oldest first. */
  private readonly buckets = new Map<number, string[]>();
  private horizon = -Infinity;

  constructor(opts: ReplayWindowOptions = {}) {
    this.maxAgeMs = opts.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
    this.maxEntries = opts.maxEntries ?? DEFAULT_REPLAY_ENTRIES;
    this.bucketMs = opts.bucketMs ?? 1_000;
    this.now = opts.now ?? Date.now;
    if (!(this.maxEntries >= 1 && this.bucketMs >= 1 && this.maxAgeMs >= 0)) throw new RangeError('invalid ReplayWindow options');
  }

  /** The key the window uses for an envelope (seed contract §1: reply_with is unique per sender). */
  static keyOf(senderDid: string, replyWith: string): string {
    // One-shot crypto.hash (Node ≥ 20.12): the same bytes as createHash().update()… without a Hash object (≈ 1 µs less per envelope).
    return hash('sha256', `${senderDid}\n${replyWith}`, 'buffer').toString('base64url', 0, 16);
  }

  get size(): number {
    return this.expiries.size;
  }

  /**
   * Whether `key` (message timestamp `timestampMs`) may pass; does not record it. `expiryMs`: when
   * the message stops being acceptable, if later than its timestamp + maxAge (one delivered after
   * an offline gap, offline-gaps.ts).
   */
  check(key: string, timestampMs: number, expiryMs = timestampMs + this.maxAgeMs): ReplayVerdict {
    this.prune();
    const expiry = expiryMs;
    if (this.expiries.has(key)) return 'replay';
    if (expiry <= this.horizon) return 'beyond-horizon';
    return 'fresh';
  }

  /** Records `key`; call only after the signature verified, so forgeries cannot fill the window. */
  record(key: string, timestampMs: number, expiryMs = timestampMs + this.maxAgeMs): void {
    const expiry = expiryMs;
    if (expiry < this.now() || this.expiries.has(key)) return;
    this.expiries.set(key, expiry);
    const index = Math.floor(expiry / this.bucketMs);
    const bucket = this.buckets.get(index);
    if (bucket) bucket.push(key);
    else this.buckets.set(index, [key]);
    while (this.expiries.size > this.maxEntries) this.evictOldest();
  }

  /** check + record in one step: 'fresh' means it was recorded. */
  admit(key: string, timestampMs: number, expiryMs = timestampMs + this.maxAgeMs): ReplayVerdict {
    const verdict = this.check(key, timestampMs, expiryMs);
    if (verdict === 'fresh') this.record(key, timestampMs, expiryMs);
    return verdict;
  }

  private oldestIndex(): number | undefined {
    let min: number | undefined;
    for (const index of this.buckets.keys()) if (min === undefined || index < min) min = index;
    return min;
  }

  private dropBucket(index: number): void {
    for (const key of this.buckets.get(index) ?? []) this.expiries.delete(key);
    this.buckets.delete(index);
  }

  /** Drops buckets whose every expiry lies in the past. */
  private prune(): void {
    const current = this.now();
    for (let index = this.oldestIndex(); index !== undefined; index = this.oldestIndex()) {
      if ((index + 1) * this.bucketMs > current) return;
      this.dropBucket(index);
    }
  }

  private evictOldest(): void {
    const index = this.oldestIndex();
    if (index === undefined) return;
    this.dropBucket(index);
    this.horizon = Math.max(this.horizon, (index + 1) * this.bucketMs - 1);
  }
}
