// What an agent sent lately (shared/runtime/agent.ts resendAtRisk): after the server went away,
// envelopes sent just before are sent again, because a stopping ejabberd acknowledges stanzas it
// then drops. Bounded by time, not count; compacted now and then instead of shifted per send.
import type { Envelope } from '../acl/index.js';

/** How far back before a disconnect sent envelopes are sent again after it (resendAtRisk). */
export const RESEND_WINDOW_MS = 5000;

export interface SentRecord {
  at: number;
  envelope: Envelope;
  toJid: string | undefined;
}

/** What was sent in the last RESEND_WINDOW_MS, oldest first (envelopes; the Presenter's lines to people). */
export class SentLog<T extends { at: number } = SentRecord> {
  private items: T[] = [];
  private head = 0;

  add(r: T): void {
    this.items.push(r);
    const cutoff = r.at - RESEND_WINDOW_MS;
    while (this.head < this.items.length && (this.items[this.head] as T).at < cutoff) this.head += 1;
    // Compact now and then instead of shifting per send.
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
  }

  since(at: number): T[] {
    return this.items.slice(this.head).filter((r) => r.at >= at);
  }
}

/** How long a reply is kept to answer a retransmitted request with it again (RepliesSent). */
export const REPLY_MEMORY_MS = 60000;
const REPLY_MEMORY_MAX = 50000;

/**
 * The replies this agent sent lately, by the reply_with they answer. A request that arrives again
 * after it was handled (the requester restarted and resent what it had sent just before its crash,
 * or XEP-0198 redelivery) is not acted on twice (the replay ledger drops it), but its requester
 * may never have received our answer: the answer goes out again, unchanged in content and
 * reply_with, so a requester that had it drops the copy (issue 12: a Coordinator killed between
 * its QUERY-REF and the DF's answer lost the answer and timed out).
 */
export class RepliesSent {
  private readonly byRequest = new Map<string, SentRecord & { resentAt?: number }>();

  add(r: SentRecord): void {
    const key = r.envelope.in_reply_to;
    if (!key) return;
    this.byRequest.delete(key); // re-insert: the Map stays in time order
    this.byRequest.set(key, r);
    const cutoff = r.at - REPLY_MEMORY_MS;
    for (const [k, v] of this.byRequest) {
      if (v.at >= cutoff && this.byRequest.size <= REPLY_MEMORY_MAX) break;
      this.byRequest.delete(k);
    }
  }

  /** The reply to `replyWith` from `senderJid`'s request, once per 2 s (a copy storm resends it once). */
  againFor(replyWith: string, senderName: string, now = Date.now()): SentRecord | undefined {
    const r = this.byRequest.get(replyWith);
    if (!r || r.envelope.receiver !== senderName || now - r.at > REPLY_MEMORY_MS) return undefined;
    if (r.resentAt !== undefined && now - r.resentAt < 2000) return undefined;
    r.resentAt = now;
    return r;
  }
}
