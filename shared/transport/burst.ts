// The transport's side of a group commit (issue 15; shared/store/group-commit.ts): a transaction
// around each inbound burst (inbox.ts BurstHook). The messages sent while a burst is handled are
// held here and leave after its commit, so nothing leaves the process that a kill -9 could take
// back: before the commit nothing was sent and nothing acknowledged (XEP-0198), and ejabberd
// delivers the burst again.
import type { Element } from '@xmpp/xml';
import type { Logger } from '../log/index.js';
import type { BurstHook } from './inbox.js';

/** A group commit (GroupCommit): a transaction opened by begin(), ended by commit(). */
export interface BurstCommit {
  /** Opens it; false: nothing to commit (stanzas are then acknowledged one by one). */
  begin(): boolean;
  readonly active: boolean;
  /** Throws after rolling back when the commit fails. */
  commit(): void;
}

export class BurstSends implements BurstHook {
  private group: BurstCommit | undefined;
  private held: Element[] = [];
  private waiters: Array<() => void> = [];

  /** `send`: how a held stanza finally goes (the transport's outbox path). */
  constructor(private readonly log: Logger, private readonly send: (stanza: Element) => void) {}

  use(group: BurstCommit): void {
    this.group = group;
  }

  /** Messages sent and not yet out because their burst is still open. */
  get size(): number {
    return this.held.length;
  }

  /** True when `stanza` waits for the open burst's commit. */
  hold(stanza: Element): boolean {
    if (!this.group?.active) return false;
    this.held.push(stanza);
    return true;
  }

  /**
   * Resolves once the messages held now have gone out (at once when none are held). An IQ result
   * waits for it: a reply sent straight to the socket overtook the chat line the same handling
   * had sent into the burst (an ad-hoc command's answer reached the person after its IQ result).
   */
  afterHeld(): Promise<void> {
    if (this.held.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  begin(): boolean {
    try {
      return this.group?.begin() ?? false;
    } catch (err) {
      this.log.error({ err: (err as Error).message }, 'group commit: BEGIN failed; this burst commits envelope by envelope');
      return false;
    }
  }

  end(): void {
    try {
      this.group?.commit();
    } catch (err) {
      // The burst's writes are rolled back; what it sent still goes, as when one envelope's own
      // transaction failed: logged, and the process goes on.
      this.log.error({ err: (err as Error).message }, 'group commit: COMMIT failed; the burst was rolled back');
    }
    const out = this.held;
    this.held = [];
    for (const stanza of out) this.send(stanza);
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }
}
