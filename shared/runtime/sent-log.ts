// What an agent sent lately (shared/runtime/agent.ts resendAtRisk): after the server went away,
// envelopes sent just before are sent again, because a stopping ejabberd acknowledges stanzas it
// then drops. Bounded by time, not count; compacted now and then instead of shifted per send.
import type { Envelope } from '../acl/envelope.js';

/** How far back before a disconnect sent envelopes are sent again after it (resendAtRisk). */
export const RESEND_WINDOW_MS = 5000;

export interface SentRecord {
  at: number;
  envelope: Envelope;
  toJid: string | undefined;
}

/** The envelopes sent in the last RESEND_WINDOW_MS, oldest first. */
export class SentLog {
  private items: SentRecord[] = [];
  private head = 0;

  add(r: SentRecord): void {
    this.items.push(r);
    const cutoff = r.at - RESEND_WINDOW_MS;
    while (this.head < this.items.length && (this.items[this.head] as SentRecord).at < cutoff) this.head += 1;
    // Compact now and then instead of shifting per send.
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
  }

  since(at: number): SentRecord[] {
    return this.items.slice(this.head).filter((r) => r.at >= at);
  }
}
