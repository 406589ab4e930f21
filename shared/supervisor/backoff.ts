// Restart delays for a crashed agent: exponential from `minMs`, capped at `maxMs`, and forgotten
// once the agent has stayed up `resetAfterMs` (a crash an hour later is not part of a loop).
export interface BackoffOptions {
  minMs: number;
  maxMs: number;
  resetAfterMs: number;
  /**
   * Exits in a row before the agent ever became ready after which it is not started again
   * (status `failed`, reported by `npm run status`): a specialist with a broken skill or
   * configuration is not restarted forever (issue 16). An agent that once became ready is
   * restarted with back-off as before.
   */
  maxFailedStarts?: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { minMs: 250, maxMs: 10000, resetAfterMs: 30000, maxFailedStarts: 5 };

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
