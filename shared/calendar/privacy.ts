// oacop-rfc §6.1 against calendar scraping, for requesters outside the trust list: at most 3
// slots, each exactly the meeting's length at a random point of a free interval, its start
// jittered by up to ±5 min while staying inside that interval; and a rate limit per requester.
import type { Interval } from './expand.js';

/** Uniform [0, 1); injectable so tests are deterministic. */
export type Rng = () => number;

export const MAX_UNTRUSTED_SLOTS = 3;
export const JITTER_MS = 5 * 60_000;
const GRID_MS = 15 * 60_000;

const randInt = (rng: Rng, lo: number, hi: number): number => lo + Math.floor(rng() * (hi - lo + 1));

/** Up to 3 jittered slots of `durationMs`, each inside one of the free intervals, sorted by start. */
export function fuzzySlots(free: readonly Interval[], durationMs: number, rng: Rng, max = MAX_UNTRUSTED_SLOTS): Interval[] {
  const pool = free.filter((f) => f.end - f.start >= durationMs);
  const picked: Interval[] = [];
  while (picked.length < max && pool.length > 0) {
    const f = pool.splice(randInt(rng, 0, pool.length - 1), 1)[0] as Interval;
    const latest = f.end - durationMs;
    // A quarter-hour somewhere in the interval, then ±5 min where the interval allows it.
    const steps = Math.floor((latest - f.start) / GRID_MS);
    const base = f.start + randInt(rng, 0, steps) * GRID_MS;
    const jitter = randInt(rng, -5, 5) * 60_000;
    const start = Math.min(latest, Math.max(f.start, base + jitter));
    picked.push({ start, end: start + durationMs });
  }
  return picked.sort((a, b) => a.start - b.start);
}

/** Sliding-window counter per requester id (DID, else JID). Memory only: a restart forgives. */
export class RateLimiter {
  private readonly hits = new Map<string, number[]>();
  constructor(private readonly max: number, private readonly windowMs: number, private readonly now: () => number = Date.now) {}

  /** Counts one request; false when the requester is over the limit (the request is still counted). */
  allow(id: string): boolean {
    const t = this.now();
    const recent = (this.hits.get(id) ?? []).filter((h) => t - h < this.windowMs);
    recent.push(t);
    this.hits.set(id, recent);
    if (this.hits.size > 10_000) this.prune(t);
    return recent.length <= this.max;
  }

  private prune(t: number): void {
    for (const [id, hs] of this.hits) if (hs.every((h) => t - h >= this.windowMs)) this.hits.delete(id);
  }
}
