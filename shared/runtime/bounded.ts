// Bounded memories that forget their oldest entries in O(1) (the router's duplicate and
// late-reply memory, the reply addresses, the rate limiter's buckets, the Coordinator's
// assignments, the Presenter's conversation ids).
//
// Why not a Map or Set that evicts `keys().next()`: V8 leaves a deleted entry as a hole in its
// ordered hash table until the next rehash, and iteration starts at the front, so once such a
// memory is full every eviction walks the holes its earlier evictions left (up to about a third
// of the capacity): 1.4 µs per insert at 4,096 entries, 21 µs at 50,000, 37 µs at 100,000, where
// these take under a microsecond (docs/bench.md "stop 33"). A long-running agent paid it for every
// envelope. lru-cache was measured too: it allocates its whole capacity up front (≈ 4 MB for the
// router's two memories), and every virtual agent of a specialist host has a router.

/** A set of at most `max` members; beyond it the oldest added goes first. `has` does not refresh. */
export class BoundedSet {
  private readonly items = new Set<string>();
  /** Members in the order they were added; once full, a ring whose oldest slot is `head`. */
  private readonly order: string[] = [];
  private head = 0;

  constructor(private readonly max: number) {
    if (!(max >= 1)) throw new RangeError('BoundedSet needs max ≥ 1');
  }

  get size(): number {
    return this.items.size;
  }

  has(k: string): boolean {
    return this.items.has(k);
  }

  add(k: string): void {
    if (this.items.has(k)) return;
    if (this.order.length < this.max) {
      this.order.push(k);
    } else {
      this.items.delete(this.order[this.head] as string);
      this.order[this.head] = k;
      this.head = (this.head + 1) % this.max;
    }
    this.items.add(k);
  }
}

/**
 * A map of at most `max` entries, least recently *set* first out: set() makes a key the newest,
 * get() does not (the Map-with-delete-then-set idiom these replace). Each set() queues (key, seq);
 * an eviction skips queue entries a later set() of the same key made stale, and the queue is
 * rebuilt from the live entries when stale or consumed ones outnumber them, so it stays within
 * about 2 × max + 1,024 entries.
 */
export class RecentMap<V> {
  private readonly map = new Map<string, { value: V; seq: number }>();
  private queue: Array<{ key: string; seq: number }> = [];
  private head = 0;
  private seq = 0;

  constructor(private readonly max: number) {
    if (!(max >= 1)) throw new RangeError('RecentMap needs max ≥ 1');
  }

  get size(): number {
    return this.map.size;
  }

  /** Queue entries held (live, stale and consumed): what compaction keeps bounded. */
  get backlog(): number {
    return this.queue.length;
  }

  get(key: string): V | undefined {
    return this.map.get(key)?.value;
  }

  has(key: string): boolean {
    return this.map.has(key);
  }

  set(key: string, value: V): void {
    const seq = ++this.seq;
    this.map.set(key, { value, seq });
    this.queue.push({ key, seq });
    while (this.map.size > this.max) this.evictOldest();
    const pending = this.queue.length - this.head;
    // Rebuilt when stale entries outnumber the live ones, or when the consumed front is the larger half.
    if (pending > 2 * this.map.size + 64 || (this.head > 1024 && this.head > pending)) this.compact();
  }

  delete(key: string): boolean {
    return this.map.delete(key);
  }

  private evictOldest(): void {
    while (this.head < this.queue.length) {
      const q = this.queue[this.head++] as { key: string; seq: number };
      if (this.map.get(q.key)?.seq === q.seq) {
        this.map.delete(q.key);
        return;
      }
    }
  }

  /** Drops the consumed front and the stale entries (a later set() or a delete() replaced them). */
  private compact(): void {
    const live: Array<{ key: string; seq: number }> = [];
    for (let i = this.head; i < this.queue.length; i++) {
      const q = this.queue[i] as { key: string; seq: number };
      if (this.map.get(q.key)?.seq === q.seq) live.push(q);
    }
    this.queue = live;
    this.head = 0;
  }
}
