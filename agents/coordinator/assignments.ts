// Least authority for delegation (docs/acl_contract.md "Role policy"): a specialist may send
// DELEGATE_TASK or QUERY_AGENTS only inside a conversation the Coordinator asked it to work on,
// i.e. one where the Coordinator sent it an ASK_EXPERT or an AGORA_ACCEPT. Remembered in memory
// for `ttlMs` after the last such envelope (work and its delegations end well before), bounded.
import type { Envelope } from '../../shared/acl/index.js';
import { RecentMap } from '../../shared/runtime/index.js';
import { bare } from '../../shared/transport/index.js';

/** The envelopes that hand a conversation's work to their receiver. */
export function isWorkAssignment(envelope: Envelope): boolean {
  const type = (envelope.content as { type?: unknown }).type;
  return (envelope.performative === 'REQUEST' && type === 'ASK_EXPERT')
    || (envelope.performative === 'ACCEPT-PROPOSAL' && type === 'AGORA_ACCEPT');
}

export class Assignments {
  private readonly until: RecentMap<number>;

  constructor(private readonly ttlMs: number, max = 100_000, private readonly now: () => number = Date.now) {
    this.until = new RecentMap(max);
  }

  /** Observes an outgoing envelope (Agent.onSent): records the assignment it makes, if any. */
  observe(envelope: Envelope, toJid: string): void {
    if (!isWorkAssignment(envelope)) return;
    const key = `${bare(toJid).toLowerCase()} ${envelope.conversation_id}`;
    this.until.set(key, this.now() + this.ttlMs);
  }

  /** Whether `jid` holds work in `conversationId` now. */
  allows(jid: string, conversationId: string): boolean {
    const key = `${bare(jid).toLowerCase()} ${conversationId}`;
    const until = this.until.get(key);
    if (until === undefined) return false;
    if (until > this.now()) return true;
    this.until.delete(key);
    return false;
  }
}
