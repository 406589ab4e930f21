// Whether the KB has been keeping the facts it is sent (issue 15 "fewer hops where the contract
// allows: STORE_FACT need not hold up the PRESENTER_REPLY"). Seed contract §2.4: STORE_FACT is an
// INFORM, and §4: the person gets the answer whatever the KB says. While the KB has stored the
// last fact it was sent, the answer goes out right after its STORE_FACT (two hops and the KB's
// write off the person's wait); until then — at start, or once a store failed or timed out — the
// answer waits for STORED as before, so a KB that is down is still noted on the answer
// (rich.kb KB_UNAVAILABLE / KB_STORE_FAILED) rather than discovered afterwards. A circuit
// breaker in its plainest form: one outcome closes it, one failure opens it. And the KB's presence
// opens it at once: the KB sends the Coordinator directed presence when it comes online, so the
// server tells the Coordinator when the KB's session ends (RFC 6121 §4.6.3) — a KB stopped or
// killed is known before the next answer, not one answer late. (Presence is not signed; it only
// chooses between waiting for STORED and not, never what is stored or answered.)
// Order stays as the contract writes it (§3 DONE: RESULT → STORE_FACT → PRESENTER_REPLY), and a
// recall right after the answer still finds the fact: the Coordinator's STORE_FACT and its
// GET_FACTS travel the same stream to the KB, which handles them in order (RFC 6120 §10.1).
import type { KbOutcome } from './replies.js';

export class KbHealth {
  private last: KbOutcome | undefined;
  private gone = false;

  /** The answer may go ahead of STORED: the KB is online and stored the last fact the Coordinator heard back about. */
  healthy(): boolean {
    return !this.gone && this.last === 'stored';
  }

  /**
   * The KB's presence (its bare JID's): unavailable opens the breaker; available only lifts that,
   * the next answer still waits for a STORED (a restarted KB has not shown it stores yet).
   */
  presence(available: boolean): void {
    this.gone = !available;
    if (available && this.last === 'stored') this.last = undefined;
  }

  /** A presence handler that follows `kbJid`'s sessions (available / unavailable, from any resource). */
  watch(kbJid: string): (stanza: { attrs: Record<string, unknown> }) => void {
    return (stanza) => {
      if (String(stanza.attrs.from ?? '').split('/')[0] !== kbJid) return;
      const type = stanza.attrs.type;
      if (type === undefined || type === 'unavailable') this.presence(type === undefined);
    };
  }

  /** What the KB did with a STORE_FACT (its STORED, an error answer, or silence until KB_TIMEOUT). */
  report(outcome: KbOutcome): void {
    this.last = outcome;
  }
}
