// One transport for @xmpp/client and @xmpp/component (the style of xmpp.js: small parts wired
// together). It owns what agents must never think about: TCP_NODELAY (facts.md: 44 ms per round
// trip without it), reconnect with back-off, and an outbox so that nothing sent while the
// server is away is lost (stanzas the server never acknowledged are sent again on reconnect).
import { EventEmitter } from 'node:events';
import type { Element } from '@xmpp/xml';
import type { Logger } from '../log/index.js';
import { useChunkSafeParsers } from './chunk-safe-parser.js';
import { ComponentMove, drainQuietMs } from './component-move.js';
import { Endpoints } from './endpoints.js';
import { type HomeReturn, returnHome } from './home.js';
import { answerIq, type IqCaller, type IqHandler, type XmppEntity, type XmppTransportOptions } from './entity.js';
import { type BurstCommit, BurstSends } from './burst.js';
import { Inbox } from './inbox.js';
import { messageStanza } from './stanza.js';
import { useUtf8SafeReads } from './utf8-reads.js';
import { guardedSend } from './guarded-send.js';
import { ATTEMPT_DEADLINE_MS, ReconnectLoop } from './reconnect-loop.js';
import type { InboundMessage, OutboundMessage, Transport, TransportStatus } from './types.js';

export type { XmppEntity, XmppTransportOptions } from './entity.js';

export class XmppTransport implements Transport {
  readonly address: string;
  /** The connection in use; a component's move home replaces it (component-move.ts). */
  private entity: XmppEntity;
  private readonly log: Logger;
  private readonly events = new EventEmitter();
  private outbox: Element[] = [];
  /** Requeued by XEP-0198 'fail' since the last flush; flushed ahead of the outbox. */
  private unacked: Element[] = [];
  private _status: TransportStatus = 'offline';
  private stopping = false;
  /** Online at least once: a login refused before that fails start() (its caller says why), no retry here. */
  private wasOnline = false;
  private readonly reconnects: ReconnectLoop;
  /** Inbound stanzas, one per turn of the event loop (inbox.ts). */
  private readonly inbox: Inbox;
  private corked = false;
  private readonly endpoints: Endpoints;
  private readonly home: HomeReturn;
  private lastTrafficAt = 0;
  /** When each connection last received a stanza (two while a component moves home). */
  private readonly inboundAt = new WeakMap<XmppEntity, { at: number; count: number }>();
  private readonly iqHandlers: Array<[type: 'get' | 'set', ns: string, name: string, handler: IqHandler]> = [];
  private readonly mover: ComponentMove<XmppEntity> | undefined;
  /** Connections a component's move replaced (closing, or closed). */
  private readonly retired = new WeakSet<XmppEntity>();
  /** Group commit around each inbound burst (useGroupCommit): its sends wait there for the commit. */
  private readonly burst: BurstSends;

  constructor(private readonly opts: XmppTransportOptions) {
    this.address = opts.address;
    this.entity = opts.entity;
    this.endpoints = new Endpoints(opts.endpoints && opts.endpoints.length > 0 ? opts.endpoints : [opts.entity.options.service]);
    this.entity.options.service = this.endpoints.current;
    this.log = opts.logger;
    this.events.setMaxListeners(50);
    this.reconnects = new ReconnectLoop({
      entity: () => this.entity, endpoints: this.endpoints, logger: this.log, maxBackoffMs: opts.maxBackoffMs,
      stopping: () => this.stopping, online: () => this._status === 'online',
    });
    this.burst = new BurstSends(this.log, (stanza) => this.enqueue(stanza));
    this.inbox = new Inbox(this.events, opts.gate, this.burst);
    this.attach(this.entity);
    const spare = opts.spare;
    this.mover = spare && new ComponentMove<XmppEntity>({
      open: (service) => this.attach(spare(service)),
      current: () => this.entity,
      adopt: (fresh) => this.adopt(fresh),
      lastInbound: (c) => this.inboundAt.get(c)?.at ?? 0,
      inboundCount: (c) => this.inboundAt.get(c)?.count ?? 0,
      release: (c) => c.removeAllListeners().on('error', () => undefined),
    }, { deadlineMs: ATTEMPT_DEADLINE_MS, quietMs: drainQuietMs(opts.returnHomeMs ?? 0), logger: this.log });
    this.home = returnHome({
      endpoints: this.endpoints, everyMs: opts.returnHomeMs ?? 0, logger: this.log, mover: this.mover,
      online: () => this._status === 'online',
      settled: () => this.queued === 0 && this.inbox.idle && (opts.unackedOut?.() ?? 0) === 0,
      lastTrafficAt: () => this.lastTrafficAt,
      dropSocket: () => this.entity.socket?.destroy(),
    });
  }

  /** Wires `e`'s events; only the connection in use drives the status and the reconnect loop. */
  private attach(e: XmppEntity): XmppEntity {
    // Our own reconnect loop replaces xmpp.js's, which gives up after one failed attempt.
    e.reconnect.stop();
    // ltx's parser is quadratic in a read that ends inside a large <body> (chunk-safe-parser.ts).
    useChunkSafeParsers(e);
    // xmpp.js decodes each read alone: a character split across two reads became U+FFFD (utf8-reads.ts).
    useUtf8SafeReads(e);
    for (const [type, ns, name, handler] of this.iqHandlers) answerIq(e, this.address, type, ns, name, handler);
    // Nothing that makes ejabberd end our stream leaves (guarded-send.ts). xmpp.js answers IQs
    // (iq-callee: ping) on the connection they came in on; one that came in on a replaced
    // connection, which is closing, is answered on the one in use.
    const own = e.send.bind(e);
    e.send = guardedSend(this.log, (el) => (this.retired.has(e) && this.entity.status === 'online' ? this.entity.send(el) : own(el)));
    e.on('error', (err: Error) => (e === this.entity ? this.failed(err) : this.log.debug({ err: err.message }, 'xmpp error on a connection being replaced')));
    e.on('status', (s: string) => {
      if (s === 'connect') e.socket?.setNoDelay(true);
    });
    e.on('online', () => e === this.entity && void this.onlineNow());
    e.on('disconnect', () => e === this.entity && this.lost());
    e.on('stanza', (stanza: Element) => {
      this.lastTrafficAt = Date.now();
      this.inboundAt.set(e, { at: this.lastTrafficAt, count: (this.inboundAt.get(e)?.count ?? 0) + 1 });
      this.inbox.dispatch(stanza);
    });
    return e;
  }

  /** A component's move home: `fresh` is online (its route registered), so outbound switches to it. */
  private adopt(fresh: XmppEntity): boolean {
    if (this.stopping || this._status !== 'online' || this.entity.status !== 'online') return false;
    this.retired.add(this.entity);
    this.entity = fresh;
    this.endpoints.arrivedHome();
    return true;
  }

  /** Where the connection in use goes (xmpp://host:port), for status and tests. */
  get service(): string {
    return this.entity.options.service;
  }

  get status(): TransportStatus {
    return this._status;
  }

  /**
   * Commits `group` once per inbound burst (shared/store/group-commit.ts): the stanzas of a burst
   * are acknowledged (XEP-0198), and the messages sent while it was handled leave, only after it.
   */
  useGroupCommit(group: BurstCommit): void {
    this.burst.use(group);
  }

  /** Stanzas waiting in the outbox for the next connection. */
  get queued(): number {
    return this.outbox.length + this.unacked.length + this.burst.size;
  }

  /**
   * Resolves once online *and* the online hook (presence) has run and the outbox is flushed.
   * A failed first connection rejects and leaves nothing retrying in the background.
   */
  async start(): Promise<void> {
    this.stopping = false;
    this.inbox.reopen();
    this._status = 'connecting';
    const ready = new Promise<void>((resolve) => this.events.once('online', resolve));
    // Several nodes: start on the first that accepts connections (endpoints.ts).
    if (this.endpoints.size > 1) this.entity.options.service = await this.endpoints.firstReachable();
    try {
      await this.entity.start();
    } catch (err) {
      await this.stop();
      throw err;
    }
    await ready;
    this.home.start();
  }

  async stop(): Promise<void> {
    this.inbox.close(); // what was handled is committed and answered before the stream closes; the rest comes again
    this.stopping = true;
    this.home.stop();
    await this.mover?.stop();
    this.reconnects.stop();
    if (this.entity.status !== 'offline') await this.entity.stop().catch(() => undefined);
    this._status = 'offline';
  }

  send(msg: OutboundMessage): void {
    this.enqueue(messageStanza(msg));
  }

  /**
   * Requeue stanzas the server did not acknowledge before the stream broke (XEP-0198 fail).
   * They were sent before anything queued while offline, so they go out first, in order.
   */
  requeue(stanzas: Element[]): void {
    this.unacked.push(...stanzas);
  }

  async sendRaw(el: Element): Promise<void> {
    if (this._status !== 'online') return;
    await this.entity.send(el);
  }

  onMessage(handler: (msg: InboundMessage) => void): void {
    this.events.on('message', handler);
  }

  onPresence(handler: (stanza: Element) => void): void {
    this.events.on('presence', handler);
  }

  /**
   * Answers IQ `type` requests whose child is `name` in `ns` (disco, XEP-0050 ad-hoc commands):
   * the handler's element is the result's child, an <error/> element makes an error reply
   * (xmpp.js iq-callee; unhandled IQs still get service-unavailable).
   */
  onIq(type: 'get' | 'set', ns: string, name: string, handler: IqHandler): void {
    // The result leaves after the messages its handling sent into an open burst (burst.ts afterHeld).
    const ordered: IqHandler = async (stanza, child) => {
      const result = await handler(stanza, child);
      await this.burst.afterHeld();
      return result;
    };
    answerIq(this.entity, this.address, type, ns, name, ordered);
    this.iqHandlers.push([type, ns, name, ordered]); // and on the connections a move opens
  }


  /** Sends an IQ request (get/set) and resolves with the result stanza (xmpp.js iq-caller); rejects on an error reply, a timeout or offline. */
  async iq(el: Element, timeoutMs = 10000): Promise<Element> {
    const caller = (this.entity as XmppEntity & { iqCaller?: IqCaller }).iqCaller;
    if (!caller) throw new Error(`${this.address}: this transport sends no IQs`);
    if (this._status !== 'online') throw new Error(`${this.address}: offline`);
    return caller.request(el, timeoutMs);
  }

  on(event: 'online' | 'offline', handler: () => void): void {
    this.events.on(event, handler);
  }

  /**
   * Stanzas sent in one turn of the event loop leave in one write: the socket is corked at the
   * first and uncorked after the turn (setImmediate, after xmpp.js's async middleware wrote
   * them). One syscall per stanza was the largest single cost of a busy agent (npm run bench
   * full-flow, --cpu-prof); a lone stanza waits only for the rest of its turn.
   */
  private corkTurn(): void {
    const socket = this.entity.socket;
    if (this.corked || !socket) return;
    this.corked = true;
    socket.cork();
    setImmediate(() => {
      this.corked = false;
      socket.uncork();
    });
  }

  private enqueue(stanza: Element): void {
    this.lastTrafficAt = Date.now();
    if (this.burst.hold(stanza)) return;
    if (this._status === 'online' && this.outbox.length === 0) {
      this.corkTurn();
      this.entity.send(stanza).catch((err: Error) => {
        this.log.debug({ err: err.message }, 'send failed; queued for reconnect');
        this.outbox.unshift(stanza);
      });
      return;
    }
    this.outbox.push(stanza);
    const max = this.opts.maxQueued ?? 100000;
    if (this.outbox.length > max) {
      this.outbox.shift();
      this.log.warn({ max }, 'outbox full while offline: dropped the oldest stanza');
    }
  }

  /**
   * XEP-0198 resumption: xmpp.js sets status online without an 'online' event, so the client
   * transport calls this on the stream manager's 'resumed'. The server kept our session
   * (presence included), so only the outbox needs flushing.
   */
  resumed(): void {
    void this.onlineNow(false);
  }

  private async onlineNow(runHook = true): Promise<void> {
    this.reconnects.succeeded();
    this._status = 'online';
    this.wasOnline = true;
    if (runHook) {
      try {
        await this.opts.onOnline?.(this);
      } catch (err) {
        this.log.warn({ err: (err as Error).message }, 'online hook failed');
      }
    }
    await this.flush();
    this.log.debug({ queued: this.outbox.length }, 'online');
    this.events.emit('online');
  }

  private async flush(): Promise<void> {
    if (this.unacked.length > 0) {
      this.outbox = [...this.unacked, ...this.outbox];
      this.unacked = [];
    }
    while (this.outbox.length > 0 && this._status === 'online') {
      const stanza = this.outbox.shift() as Element;
      try {
        await this.entity.send(stanza);
      } catch {
        this.outbox.unshift(stanza);
        return;
      }
    }
  }

  /**
   * xmpp.js reports a refused login as an 'error' and leaves the socket open and idle until the
   * server's timeout (30 s or more). While reconnecting, drop it and retry with back-off: after a
   * server crash the account may need re-provisioning (mnesia can lose a fresh registration).
   */
  private failed(err: Error): void {
    this.log.debug({ err: err.message }, 'xmpp error');
    // RFC 6120 §4.9.3.3 <conflict/>: a newer process of this account took our resource (a restart
    // after a crash). It owns the session now; reconnecting would kick it back out, forever.
    if ((err as { condition?: string }).condition === 'conflict' && !this.stopping) {
      this.log.error('replaced by a newer session of this account (stream conflict): not reconnecting');
      this.stopping = true;
      return;
    }
    if (err.name !== 'SASLError' || this.stopping || this._status === 'offline' || !this.wasOnline) return;
    this.log.warn({ err: err.message }, 'login refused while reconnecting; retrying');
    this.entity.disconnect?.().catch(() => undefined);
  }

  private lost(): void {
    this.inbox.drainNow();
    if (this._status === 'online') this.events.emit('offline');
    this._status = this.stopping ? 'offline' : 'connecting';
    if (!this.stopping) this.reconnects.schedule();
  }
}
