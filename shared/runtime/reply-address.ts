// Where an envelope goes on the wire (docs/runtime.md "Session take-over"). An agent of the c2s
// domain is addressed at its fixed resource (names.ts addressOf), so that a killed agent's
// unacknowledged requests reach its restarted process. An answer goes to the very session its
// request came from when that is known: another session of the same account (a test peer, a
// person's second client) asked, and the answer is that session's, not the agent process's.
import { bare } from '../transport/index.js';
import { RecentMap } from './bounded.js';
import { addressOf } from './names.js';

/** Requests remembered (their stanza id = reply_with, seed contract §1); the oldest go first beyond it. */
const MAX_REMEMBERED = 5000;

export class ReplyAddresses {
  private readonly from = new RecentMap<string>(MAX_REMEMBERED);

  constructor(private readonly domain: string, private readonly resource: string | undefined) {}

  /** An inbound stanza `id` (the envelope's reply_with) came from the full JID `from`. */
  note(id: string | undefined, from: string): void {
    if (!id || !from.includes('/')) return;
    const key = keyOf(bare(from), id);
    this.from.set(key, from);
  }

  /** The wire address of an envelope for bare `to`; `inReplyTo`: the request it answers. */
  addressFor(to: string, inReplyTo: string | undefined): string {
    // Keyed by account too: a stanza id is the sender's to choose, so another account's id never redirects an answer.
    const asked = inReplyTo === undefined ? undefined : this.from.get(keyOf(bare(to), inReplyTo));
    return asked ?? addressOf(to, this.domain, this.resource);
  }
}

const keyOf = (account: string, id: string): string => `${account.toLowerCase()}\n${id}`;
