// Restart delays for a crashed agent: exponential from `minMs`, capped at `maxMs`, and forgotten
// once the agent has stayed up `resetAfterMs` (a crash an hour later is not part of a loop).
export interface BackoffOptions {
  minMs: number;
  maxMs: number;
  resetAfterMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { minMs: 250, maxMs: 10000, resetAfterMs: 30000 };

export class Backoff {
  private attempt = 0;
  constructor(private readonly opts: BackoffOptions = DEFAULT_BACKOFF) {}

  /** The delay before the next start, given how long the process that just exited ran. */
  next(uptimeMs: number): number {
    if (uptimeMs >= this.opts.resetAfterMs) this.attempt = 0;
    const delay = Math.min(this.opts.maxMs, this.opts.minMs * 2 ** Math.min(this.attempt, 30));
    this.attempt += 1;
    return delay;
  }

  reset(): void {
    this.attempt = 0;
  }
}
