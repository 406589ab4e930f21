// Where an envelope goes on the wire (docs/runtime.md "Session take-over"). An agent of the c2s
// domain is addressed at its fixed resource (names.ts addressOf), so that a killed agent's
// unacknowledged requests reach its restarted process. An answer goes to the very session its
// request came from when that is known: another session of the same account (a test peer, a
// person's second client) asked, and the answer is that session's, not the agent process's.
import { bare } from '../transport/index.js';
import { addressOf } from './names.js';

/** Requests remembered (their stanza id = reply_with, seed contract §1); the oldest go first beyond it. */
const MAX_REMEMBERED = 5000;

export class ReplyAddresses {
  private readonly from = new Map<string, string>();

  constructor(private readonly domain: string, private readonly resource: string | undefined) {}

  /** An inbound stanza `id` (the envelope's reply_with) came from the full JID `from`. */
  note(id: string | undefined, from: string): void {
    if (!id || !from.includes('/')) return;
    this.from.delete(id);
    this.from.set(id, from);
    if (this.from.size > MAX_REMEMBERED) this.from.delete(this.from.keys().next().value as string);
  }

  /** The wire address of an envelope for bare `to`; `inReplyTo`: the request it answers. */
  addressFor(to: string, inReplyTo: string | undefined): string {
    const asked = inReplyTo === undefined ? undefined : this.from.get(inReplyTo);
    // Only the same account's session: a stanza id is the sender's to choose.
    if (asked !== undefined && bare(asked).toLowerCase() === bare(to).toLowerCase()) return asked;
    return addressOf(to, this.domain, this.resource);
  }
}
