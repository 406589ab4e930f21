// Everything an OACoP handler of one person's calendar needs: the store, the ledger, the
// person's settings (re-read when the file changes, so `npm run calendar -- trust` applies to a
// running agent), the requester's identity and trust (oacop-rfc §6), time and randomness. A
// room's context extends it (agents/rooms/context.ts).
import type { Envelope } from '../acl/index.js';
import type { CalendarConfig } from '../calendar/config.js';
import {
  busyIntervals, type Interval, type Ledger, RateLimiter, type Rng, type CalendarStore,
} from '../calendar/index.js';
import type { Identity } from '../runtime/index.js';

export interface CalendarDeps {
  store: CalendarStore;
  ledger: Ledger;
  /** The person's settings; called per request (cheap: cached by the caller on file mtime). */
  config: () => CalendarConfig;
  /** Authenticated senders trusted when they act for themselves (the Coordinator's bare JID). */
  trustedSenders: readonly string[];
  /** This Parley's XMPP domain: its people (bare JIDs user@domain) are trusted when the config says so. */
  localDomain?: string;
  rng: Rng;
  now: () => number;
}

export class CalendarContext {
  private limiter: { key: string; limiter: RateLimiter } | null = null;

  constructor(readonly deps: CalendarDeps) {}

  get store(): CalendarStore {
    return this.deps.store;
  }

  get config(): CalendarConfig {
    return this.deps.config();
  }

  /**
   * Who the request is for (docs/oacop.md "On whose behalf"): content.sender (the Coordinator
   * relays the asking person's DID or JID), else the signed envelope's sender_did, else the
   * authenticated XMPP sender.
   */
  requesterOf(request: Envelope, from: Identity): string {
    const claimed = (request.content as { sender?: unknown }).sender;
    if (typeof claimed === 'string' && claimed.length > 0) return claimed;
    // The Coordinator acting for itself stays trusted even when it signs with its own DID.
    if (this.deps.trustedSenders.includes(from.jid)) return from.jid;
    return request.sender_did ?? from.jid;
  }

  isTrusted(id: string): boolean {
    const c = this.config;
    if (id === c.jid || id === c.did || c.trustList.includes(id) || this.deps.trustedSenders.includes(id)) return true;
    // People of this Parley (authenticated by its XMPP server, relayed by the Coordinator) are the "Web of Trust" (§6.2).
    return c.trustLocalDomain && this.deps.localDomain !== undefined && /^[^@/\s]+@[^@/\s]+$/.test(id) && id.endsWith(`@${this.deps.localDomain}`);
  }

  /** Counts one request of an untrusted requester; false when over the limit (oacop-rfc §6.1). */
  allowRate(id: string): boolean {
    const { max, windowMs } = this.config.rateLimit;
    const key = `${max}/${windowMs}`;
    if (this.limiter?.key !== key) this.limiter = { key, limiter: new RateLimiter(max, windowMs, this.deps.now) };
    return this.limiter.limiter.allow(id);
  }

  /** Busy time in the window, leaving out the collaboration's own event (a reschedule may reuse it). */
  busy(window: Interval, exceptUid?: string): Interval[] {
    const events = this.store.events().filter((e) => exceptUid === undefined || e.getFirstPropertyValue('uid') !== exceptUid);
    return busyIntervals(events, window, this.config.workingHours.timezone);
  }

  nowIso(): string {
    return new Date(this.deps.now()).toISOString();
  }
}
