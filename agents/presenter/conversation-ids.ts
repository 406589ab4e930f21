// conversation_id per person (seed contract §1: assigned by the Presenter, = XMPP <thread>,
// unchanged along the whole path). A client that sends its own <thread> (XEP-0201) keeps it;
// otherwise each person has one conversation, renewed after idleMs of silence or on "new".
// Pure bookkeeping: time comes in as `now`, ids from an injectable generator.
import { newConversationId } from '../../shared/acl/index.js';
import { RecentMap } from '../../shared/runtime/index.js';
import type { ThreadOwners } from './thread-owners.js';

export interface ConversationRef {
  /** conversation_id of the envelopes. */
  conversationId: string;
  /** <thread> on the lines the person reads: their own thread when they sent one. */
  thread: string;
  /** True when this message started a new conversation. */
  fresh: boolean;
}

interface Slot {
  id: string;
  lastAt: number;
}

// contracts/common.json ConversationId: 1..200 characters, no whitespace.
const USABLE_THREAD = /^\S{1,200}$/;

export class ConversationIds {
  // Bounded (bounded.ts RecentMap): the entry set longest ago goes first; set() refreshes, get() does not.
  /** person bare JID → their threadless conversation. */
  private readonly current: RecentMap<Slot>;
  /** person bare JID + client thread → conversation (the thread itself, unless renewed). */
  private readonly threads: RecentMap<Slot>;
  /** client thread → the person who used it first: one person's thread never joins another's conversation. */
  private readonly owners: RecentMap<string>;

  constructor(
    private readonly idleMs: number,
    private readonly newId: () => string = newConversationId,
    maxEntries = 100000,
    /** Durable record of owners (thread-owners.ts): the map above is its cache. */
    private readonly durable?: ThreadOwners,
  ) {
    this.current = new RecentMap(maxEntries);
    this.threads = new RecentMap(maxEntries);
    this.owners = new RecentMap(maxEntries);
  }

  /** The conversation for a message from `person` (bare JID) carrying `clientThread`. */
  resolve(person: string, clientThread: string | undefined, now: number): ConversationRef {
    if (clientThread !== undefined && clientThread !== '') {
      const key = `${person} ${clientThread}`;
      const slot = this.threads.get(key);
      if (slot) {
        slot.lastAt = now;
        return { conversationId: slot.id, thread: clientThread, fresh: false };
      }
      const id = this.claim(person, clientThread) ? clientThread : this.mint(person);
      this.threads.set(key, { id, lastAt: now });
      return { conversationId: id, thread: clientThread, fresh: true };
    }
    const slot = this.current.get(person);
    if (slot && now - slot.lastAt < this.idleMs) {
      slot.lastAt = now;
      return { conversationId: slot.id, thread: slot.id, fresh: false };
    }
    const id = this.mint(person);
    this.current.set(person, { id, lastAt: now });
    return { conversationId: id, thread: id, fresh: true };
  }

  /** "new": the next message starts a new conversation (in this client thread, or threadless). */
  renew(person: string, clientThread: string | undefined, now: number): ConversationRef {
    const id = this.mint(person);
    if (clientThread !== undefined && clientThread !== '') {
      this.threads.set(`${person} ${clientThread}`, { id, lastAt: now });
      return { conversationId: id, thread: clientThread, fresh: true };
    }
    this.current.set(person, { id, lastAt: now });
    return { conversationId: id, thread: id, fresh: true };
  }

  /** A fresh id, owned by `person` so no one else's client can echo it into their chat. */
  private mint(person: string): string {
    const id = this.newId();
    this.own(id, person);
    return id;
  }

  private claim(person: string, thread: string): boolean {
    if (!USABLE_THREAD.test(thread)) return false;
    const owner = this.owners.get(thread) ?? this.durable?.get(thread);
    if (owner !== undefined) {
      this.owners.set(thread, owner);
      return owner === person;
    }
    this.own(thread, person);
    return true;
  }

  private own(thread: string, person: string): void {
    this.owners.set(thread, person);
    this.durable?.set(thread, person);
  }
}
