// Rate limiting per sender DID (Agora v1.0 §5, 429 Too Many Requests): one token bucket per
// authenticated sender, checked in the inbound pipeline right after the signature stage, so
// only a verified DID (or, with signing off, the from-JID) can spend its own tokens. An envelope
// over the limit is answered REFUSE RATE_LIMITED and goes no further; the agent keeps serving.
// Memory is bounded: at most `maxKeys` buckets, the least recently used forgotten first (a
// forgotten bucket comes back full, which is what an idle sender's bucket would be anyway).
import { envNumber } from '../config/index.js';
import { RecentMap } from './bounded.js';

export interface RateLimitOptions {
  /** Tokens added per second (sustained envelopes/s per sender). */
  perSecond: number;
  /** Bucket size (the largest burst). */
  burst: number;
  /** Buckets kept (LRU); default 10,000. */
  maxKeys?: number;
  /** Milliseconds, monotonic; default performance.now (tests inject a fake). */
  now?: () => number;
}

interface Bucket {
  tokens: number;
  at: number;
}

export class RateLimiter {
  /** Least recently used first out (bounded.ts: no walk over a full Map's holes per new key). */
  private readonly buckets: RecentMap<Bucket>;
  private readonly now: () => number;

  constructor(readonly opts: RateLimitOptions) {
    if (!(opts.perSecond > 0) || !(opts.burst >= 1)) throw new Error('rate limit: perSecond must be > 0 and burst ≥ 1');
    this.buckets = new RecentMap(opts.maxKeys ?? 10000);
    this.now = opts.now ?? (() => performance.now());
  }

  /** Spends one token of `key`; false when its bucket is empty (answer RATE_LIMITED). */
  take(key: string): boolean {
    const now = this.now();
    const b = this.buckets.get(key);
    let tokens = this.opts.burst;
    if (b) {
      tokens = Math.min(this.opts.burst, b.tokens + ((now - b.at) / 1000) * this.opts.perSecond);
    }
    const ok = tokens >= 1;
    this.buckets.set(key, { tokens: ok ? tokens - 1 : tokens, at: now }); // set() makes it the newest
    return ok;
  }

  get size(): number {
    return this.buckets.size;
  }

  /** Milliseconds until `key` has a token again (for the REFUSE detail). */
  retryAfterMs(key: string): number {
    const b = this.buckets.get(key);
    if (!b || b.tokens >= 1) return 0;
    return Math.ceil(((1 - b.tokens) / this.opts.perSecond) * 1000);
  }
}

/** PARLEY_RATE_LIMIT_PER_S (default 2000; 0 = off) and PARLEY_RATE_LIMIT_BURST (default 2 × rate). */
export function rateLimitFromEnv(env: NodeJS.ProcessEnv): RateLimitOptions | undefined {
  const perSecond = envNumber('PARLEY_RATE_LIMIT_PER_S', env);
  if (perSecond === 0) return undefined;
  return { perSecond, burst: Math.max(1, envNumber('PARLEY_RATE_LIMIT_BURST', env, perSecond * 2)) };
}
