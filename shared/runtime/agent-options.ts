// What an Agent is made with and what it counts (agent.ts): its options, the hooks a role adds,
// its counters, and the wording of a rate-limit refusal.
import type { Envelope } from '../acl/index.js';
import type { Logger } from '../log/index.js';
import type { InboundMessage, Transport } from '../transport/index.js';
import type { Identity } from './names.js';
import type { RateLimiter } from './rate-limit.js';
import type { RouterOptions } from './router.js';
import type { Signing } from './signing.js';
import type { Telemetry } from './telemetry.js';

export interface AgentOptions {
  /** Bare JID of this agent (for rooms: the component serves many; see ComponentAgent). */
  jid: string;
  domain: string;
  transport: Transport;
  logger: Logger;
  telemetry: Telemetry;
  readsChat?: boolean;
  onChat?: (msg: InboundMessage, from: Identity) => void;
  clock?: RouterOptions['clock'];
  persist?: RouterOptions['persist'];
  /** Signs every envelope sent and verifies every one received (signing.ts); absent = off. */
  signing?: Signing;
  /** Token bucket per sender DID (Agora §5 429); absent = no limit. */
  rateLimit?: RateLimiter;
  /** Envelopes held while the transport is down, signed when it is back (oldest dropped beyond). */
  maxHeld?: number;
  /** The resource agents log in with (PARLEY_RESOURCE): envelopes to accounts of `domain` go to that full JID (names.ts addressOf). */
  peerResource?: string;
}

/**
 * Answers a reply of one content kind whose in_reply_to matches no open exchange, instead of the
 * generic NOT-UNDERSTOOD BROKEN_CORRELATION (e.g. a restarted specialist: an ACCEPT for an offer it
 * no longer holds gets a retryable FAILURE). Undefined = the generic answer.
 */
export type OrphanHandler = (envelope: Envelope, from: Identity) => Envelope | undefined;

/** Sees every envelope as it goes out (the Coordinator records which conversations it assigned to whom). */
export type SentObserver = (envelope: Envelope, toJid: string) => void;

export interface AgentCounters {
  received: number;
  sent: number;
  rejected: Record<string, number>;
  duplicates: number;
  late: number;
}

export function rateLimitDetail(limiter: RateLimiter, key: string): string {
  const { perSecond, burst } = limiter.opts;
  return `over ${perSecond}/s (burst ${burst}) from ${key}; retry in ${limiter.retryAfterMs(key)} ms (Agora 429)`;
}
