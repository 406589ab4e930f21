// Which virtual agents ejabberd routes to this process, when several host processes share one
// component domain (PARLEY_AGENTS_SHARDS > 1; docs/architecture.md "Scale-out").
//
// ejabberd 23.01 with `domain_balancing: {type: bare_destination, component_number: N}`
// (ejabberd_router:balancing_route, ejabberd_router_mnesia:register_route) keeps N slots for the
// domain; each component that logs in takes the first free one, in an order it does not choose,
// and a stanza goes to slot phash2({user, server, <<>>}, N) + 1 of its destination. So the
// destination, not the process, decides: a process cannot pick "its" agents by name. Every shard
// process therefore builds the same agents and asks ejabberd which are its own: it sends each
// agent a probe from that agent's own JID; ejabberd routes the probe exactly as it routes the
// agent's traffic, so the probes that come back name the agents whose stanzas reach this process.
// Those are the ones it registers with the DF (the Registry's REGISTERED goes the same way).
import { randomBytes } from 'node:crypto';
import xml from '@xmpp/xml';
import type { Logger } from '../log/index.js';
import type { InboundMessage, Transport } from '../transport/index.js';

export const SHARD_PROBE_NS = 'urn:parley:shard-probe:0';

export interface ShardClaimsOptions {
  /** The component transport (its `send` takes any `from` under the component's domain). */
  transport: Transport;
  logger: Logger;
  /** A JID's probe came back: ejabberd routes that agent here. Called once per JID. */
  onClaim: (jid: string) => void;
}

export class ShardClaims {
  /** Only this process knows it: a probe carrying it was sent by this process. */
  private readonly nonce = randomBytes(18).toString('base64url');
  private readonly claimed = new Set<string>();
  private readonly pending = new Set<string>();
  private lastChange = Date.now();
  private readonly waiters = new Set<() => void>();

  constructor(private readonly o: ShardClaimsOptions) {}

  get size(): number {
    return this.claimed.size;
  }

  has(jid: string): boolean {
    return this.claimed.has(jid.toLowerCase());
  }

  /** Sends one probe to each JID not claimed yet, from that JID (a headline: never stored offline). */
  probe(jids: readonly string[]): number {
    let sent = 0;
    for (const jid of jids) {
      const key = jid.toLowerCase();
      if (this.claimed.has(key)) continue;
      this.pending.add(key);
      this.o.transport.send({ from: jid, to: jid, type: 'headline', children: [xml('probe', { xmlns: SHARD_PROBE_NS, nonce: this.nonce })] });
      sent += 1;
    }
    this.lastChange = Date.now();
    return sent;
  }

  /**
   * True when `msg` is a probe (it is consumed, whoever sent it). It claims only when it is this
   * process's own: the nonce matches and it came from the JID it is addressed to. A client cannot
   * send from the component's domain (ejabberd's check_from) and does not know the nonce; another
   * shard's probe lands here when ejabberd routes that JID here, and it is that shard's business.
   */
  handle(msg: InboundMessage): boolean {
    const probe = msg.stanza.getChild('probe', SHARD_PROBE_NS);
    if (!probe) return false;
    const key = msg.toBare.toLowerCase();
    if (probe.attrs.nonce !== this.nonce || msg.fromBare.toLowerCase() !== key) {
      this.o.logger.debug({ from: msg.from, to: msg.to }, 'shard probe not ours: dropped');
      return true;
    }
    this.pending.delete(key);
    if (this.claimed.has(key)) return true;
    this.claimed.add(key);
    this.lastChange = Date.now();
    this.o.onClaim(key);
    if (this.pending.size === 0) this.wake();
    return true;
  }

  /**
   * Resolves when every probe sent came back, or when none came back for `quietMs`: the rest are
   * routed to other processes (or to a slot nobody holds). A late probe still claims its agent.
   */
  settled(quietMs: number): Promise<void> {
    return new Promise((resolve) => {
      const check = () => {
        if (this.pending.size === 0 || Date.now() - this.lastChange >= quietMs) {
          clearInterval(timer);
          this.waiters.delete(check);
          resolve();
        }
      };
      const timer = setInterval(check, Math.max(10, Math.min(250, quietMs / 4)));
      this.waiters.add(check);
      check();
    });
  }

  private wake(): void {
    for (const w of [...this.waiters]) w();
  }
}
