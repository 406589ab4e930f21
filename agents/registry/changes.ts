// The DF tells the Coordinator when its answers go stale (issue 15 "the DF answer cached by lease,
// invalidated by the DF"): after a registration is added, withdrawn, expired or no longer
// admitted, one INFORM DF_CHANGED (contracts/df-changed.json) carries the agents that changed.
// Changes are coalesced for `delayMs`, so a host's thousands of REGISTER_MANY entries or one
// sweep make one message, not one each. The Coordinator then forgets its cached candidate lists
// (agents/coordinator/df-changed.ts); its cache's TTL bounds what a lost message could leave.
import { randomUUID } from 'node:crypto';
import { makeEnvelope } from '../../shared/acl/index.js';
import type { Envelope } from '../../shared/acl/index.js';

/** More changed agents than this: the message names none (the contract's maxItems), meaning "any". */
const MAX_NAMED = 100;

export class DirectoryChanges {
  private readonly changed = new Set<string>();
  /** Some change named no agent (the Registry's start): the message names none. */
  private any = false;
  private timer: NodeJS.Timeout | undefined;

  /** `send`: the agent's send (Agent.send); `self`: the Registry's name. */
  constructor(private readonly self: string, private readonly send: (envelope: Envelope) => void, private readonly delayMs = 20) {}

  /** `jids` changed (none given: the whole directory may have, e.g. at start). */
  note(jids: readonly string[] = []): void {
    if (jids.length === 0) this.any = true;
    for (const j of jids) this.changed.add(j);
    this.timer ??= setTimeout(() => this.flush(), this.delayMs);
  }

  /** Sends what is pending now. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.changed.size === 0 && !this.any) return;
    const jids = this.any || this.changed.size > MAX_NAMED ? undefined : [...this.changed];
    this.changed.clear();
    this.any = false;
    this.send(makeEnvelope({
      performative: 'INFORM', sender: this.self, receiver: 'Coordinator', conversation_id: `df-${randomUUID()}`,
      content: { type: 'DF_CHANGED', ...(jids ? { jids } : {}) },
    }));
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
