// A XEP-0114 component connection moves back to its home node make-before-break (issue #14 §1,
// docs/cluster.md "Back home"). XEP-0114 has no stream resumption: closing the connection first
// would leave the domain without a route for the reconnect's duration, and ejabberd would bounce
// (an error reply) or drop what is routed to it meanwhile. ejabberd 23.01 lets a second
// connection authenticate as the same domain: ejabberd_service:handle_auth_success calls
// ejabberd_router:register_route, which (without domain_balancing for the domain) adds a route
// next to the first one. From then on each stanza goes through one of the two: balancing_route
// prefers a route whose process runs on the node routing the stanza, so what enters on the old
// node still goes through the old connection. Both connections belong to this process and feed the
// same handlers, so it does not matter which one a stanza takes.
//
// The steps: open a connection to the home node; once it is authenticated (ejabberd has added its
// route), outbound stanzas go through it; the old one stays open until nothing has arrived on it
// for `quietMs`, then it is closed with </stream:stream>, and what still arrives on it until the
// server's own </stream:stream> is handled as usual. The server sends that only from
// ejabberd_service:terminate, after it deleted the old route. What remains is ejabberd's: from
// the moment it reads our </stream:stream> until the route is deleted, a stanza routed to the old
// connection is dropped without an error (xmpp_stream_in puts the stream in state disconnected
// and ejabberd_service:handle_info's send fails). The quiet period is what makes that unlikely;
// the time it takes is logged as route_gap_ms.
import type { EventEmitter } from 'node:events';
import type { Logger } from '../log/index.js';

/** The part of an xmpp.js component entity the move drives. */
export interface MovableConnection extends EventEmitter {
  status: string;
  start(): Promise<unknown>;
  stop(): Promise<unknown>;
}

export interface MoveHost<C extends MovableConnection> {
  /** A new connection to `service`, not started; its inbound stanzas already go to the same handlers. */
  open(service: string): C;
  /** The connection outbound stanzas use now. */
  current(): C;
  /** Outbound stanzas and the reconnect loop go to `fresh` from now on; false if that is no longer right (offline, stopping, already replaced). */
  adopt(fresh: C): boolean;
  /** When the last inbound stanza arrived on `c` (epoch ms; 0: none yet). */
  lastInbound(c: C): number;
  /** How many inbound stanzas arrived on `c` so far. */
  inboundCount(c: C): number;
  /** `c` is closed for good: drop its listeners. */
  release(c: C): void;
}

export interface MoveOptions {
  /** How long opening the new connection may take. */
  deadlineMs: number;
  /** Nothing arrived on the old connection for this long: close it. */
  quietMs: number;
  logger: Logger;
}

export type MoveResult = { moved: true; drainMs: number; routeGapMs: number; oldInbound: number } | { moved: false; reason: string };

/**
 * How long nothing must arrive on the old connection before it is closed: a quarter of the
 * return-home period (the c2s agents' quiet), at most a second, so that a heartbeat reply every
 * few seconds cannot keep it open forever; a second of silence means no exchange runs through it.
 */
export const drainQuietMs = (returnHomeMs: number) => Math.min(returnHomeMs / 4, 1000);

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

export class ComponentMove<C extends MovableConnection> {
  private busy = false;
  private stopped = false;
  private draining: C | undefined;

  constructor(private readonly host: MoveHost<C>, private readonly o: MoveOptions) {}

  /** A move is under way (opening, or the old connection not yet closed). */
  get moving(): boolean {
    return this.busy;
  }

  /** Moves to `service`; the old connection is closed before this resolves. */
  async to(service: string): Promise<MoveResult> {
    if (this.busy) return { moved: false, reason: 'a move is under way' };
    this.busy = true;
    this.stopped = false;
    try {
      return await this.run(service);
    } finally {
      this.busy = false;
    }
  }

  /** The transport stops: an old connection still open is closed too. */
  async stop(): Promise<void> {
    this.stopped = true;
    const d = this.draining;
    if (d) await d.stop().catch(() => undefined);
  }

  private async run(service: string): Promise<MoveResult> {
    const old = this.host.current();
    const fresh = this.host.open(service);
    const opened = await this.start(fresh);
    if (opened !== undefined || this.stopped || !this.host.adopt(fresh)) {
      await fresh.stop().catch(() => undefined);
      this.host.release(fresh);
      const reason = opened ?? 'the transport went offline or stopped while the new connection opened';
      this.o.logger.warn({ service, reason }, 'home node back, but the second component connection failed: staying');
      return { moved: false, reason };
    }
    // Both routes are registered; outbound goes through `fresh`. Close `old` at a quiet moment.
    this.draining = old;
    const countAtSwitch = this.host.inboundCount(old);
    const t0 = Date.now();
    let told = false;
    while (!this.stopped && old.status === 'online') {
      const idle = Date.now() - this.host.lastInbound(old);
      if (idle >= this.o.quietMs) break;
      // Stanzas that enter on the old node keep taking the old route; both connections serve them.
      if (!told && Date.now() - t0 > 20 * this.o.quietMs) {
        told = true;
        this.o.logger.info({ service, quiet_ms: this.o.quietMs }, 'the old component connection still receives stanzas: it closes at the first quiet spell');
      }
      await sleep(Math.min(this.o.quietMs, this.o.quietMs - idle));
    }
    const drainMs = Date.now() - t0;
    const t1 = Date.now();
    // xmpp.js: </stream:stream>, then wait for the server's (it comes after the route is deleted).
    await old.stop().catch(() => undefined);
    const routeGapMs = Date.now() - t1;
    this.draining = undefined;
    // Handled like any other: what ejabberd still routed through the old connection after the switch.
    const oldInbound = this.host.inboundCount(old) - countAtSwitch;
    this.host.release(old);
    this.o.logger.info({ service, drain_ms: drainMs, route_gap_ms: routeGapMs, old_inbound: oldInbound }, 'component connection moved home (make-before-break)');
    return { moved: true, drainMs, routeGapMs, oldInbound };
  }

  /** Starts `c`; undefined once online, else why not (an error, or the deadline). */
  private start(c: C): Promise<string | undefined> {
    return new Promise((resolve) => {
      const done = (why: string | undefined) => {
        clearTimeout(timer);
        c.off('error', onError);
        resolve(why);
      };
      const onError = (err: Error) => done(err.message);
      const timer = setTimeout(() => done(`not online within ${this.o.deadlineMs} ms`), this.o.deadlineMs);
      c.on('error', onError);
      c.start().then(() => done(undefined), (err: Error) => done(err.message));
    });
  }
}
