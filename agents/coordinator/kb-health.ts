// Whether the KB has been keeping the facts it is sent (issue 15 "fewer hops where the contract
// allows: STORE_FACT need not hold up the PRESENTER_REPLY"). Seed contract §2.4: STORE_FACT is an
// INFORM, and §4: the person gets the answer whatever the KB says. While the KB has stored the
// last fact it was sent, the answer goes out right after its STORE_FACT (two hops and the KB's
// write off the person's wait); until then — at start, or once a store failed or timed out — the
// answer waits for STORED as before, so a KB that is down is still noted on the answer
// (rich.kb KB_UNAVAILABLE / KB_STORE_FAILED) rather than discovered afterwards. A circuit
// breaker in its plainest form: one outcome closes it, one failure opens it.
// Order stays as the contract writes it (§3 DONE: RESULT → STORE_FACT → PRESENTER_REPLY), and a
// recall right after the answer still finds the fact: the Coordinator's STORE_FACT and its
// GET_FACTS travel the same stream to the KB, which handles them in order (RFC 6120 §10.1).
import type { KbOutcome } from './replies.js';

export class KbHealth {
  private last: KbOutcome | undefined;

  /** The answer may go ahead of STORED: the KB stored the last fact the Coordinator heard back about. */
  healthy(): boolean {
    return this.last === 'stored';
  }

  /** What the KB did with a STORE_FACT (its STORED, an error answer, or silence until KB_TIMEOUT). */
  report(outcome: KbOutcome): void {
    this.last = outcome;
  }
}
