// When an envelope older than Agora's 60 s (v1.0 §1) may still be accepted: only if it was signed
// while *this* agent was away (crashed, stopped, or cut off from the server) and the server held
// it meanwhile (offline storage, or the unacknowledged queue of a hibernated XEP-0198 session).
//
// The agent's own record of its absences decides, never a <delay/> stamp: ejabberd passes a
// client's <delay from='<domain>'> through unchanged, so a stamp proves nothing (issue "Close the
// perimeter" §5). A gap is [last moment known online, moment back online]; the start of a gap after
// a crash is the last heartbeat the replay ledger stored (replay-ledger.ts).
//
// Rules, for an envelope with timestamp ts arriving at `now`, and a gap [start, end]:
// - start − maxAge ≤ ts ≤ end: it was signed shortly before or during the absence;
// - now ≤ end + graceMs: the server hands over what it held right after we are back; later
//   arrivals are not held messages;
// - now − ts ≤ offlineMaxAge: a hard cap on how old anything may be (default 1 h).
// An envelope admitted this way stays in the replay window (and ledger) until end + graceMs, after
// which the rules above refuse it anyway: a copy is never accepted twice.

export interface OfflineGapsOptions {
  maxAgeMs: number;
  /** PARLEY_OFFLINE_MAX_AGE_MS: the oldest envelope a gap can admit (default 1 h). */
  offlineMaxAgeMs: number;
  /** PARLEY_OFFLINE_GRACE_MS: how long after coming back held envelopes are still expected (default 2 min). */
  graceMs: number;
}

interface Gap {
  start: number;
  end?: number;
}

export const DEFAULT_OFFLINE_GRACE_MS = 120_000;

export class OfflineGaps {
  private readonly gaps: Gap[] = [];

  constructor(readonly opts: OfflineGapsOptions) {}

  /** This agent has been away since `at` (a stream break now, or its last heartbeat before a restart). */
  opened(at: number): void {
    const open = this.gaps.at(-1);
    if (open && open.end === undefined) return; // still away: the earlier start stands
    this.gaps.push({ start: at });
  }

  /** Back online at `at`. */
  closed(at: number): void {
    const open = this.gaps.at(-1);
    if (open && open.end === undefined) open.end = Math.max(at, open.start);
  }

  /** Until when an envelope signed at `ts` is acceptable at `now` by the rules above; undefined = STALE. */
  acceptableUntil(ts: number, now: number): number | undefined {
    const { maxAgeMs, offlineMaxAgeMs, graceMs } = this.opts;
    this.forget(now);
    if (now - ts > offlineMaxAgeMs) return undefined;
    for (const g of this.gaps) {
      // Still open: the stream is back but the transport has not said so yet (the server hands
      // over held stanzas as soon as the session exists): the gap ends now.
      const end = g.end ?? now;
      if (ts >= g.start - maxAgeMs && ts <= end && now <= end + graceMs) return end + graceMs;
    }
    return undefined;
  }

  /** Gaps whose grace period is over admit nothing any more. */
  private forget(now: number): void {
    for (let first = this.gaps[0]; first?.end !== undefined && now > first.end + this.opts.graceMs; first = this.gaps[0]) this.gaps.shift();
  }

  get size(): number {
    return this.gaps.length;
  }
}
