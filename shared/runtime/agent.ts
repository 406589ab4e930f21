// An agent = transport + the one inbound pipeline + the router, with one error boundary: nothing
// an inbound message does can throw into the socket; every envelope gets an answer or a
// recorded reason (docs/architecture.md).
import {
  type Envelope, makeEnvelope, errorContent, type ErrorCode, performativeFor, toParleyError,
  mayAnswerWithError, envelopeJson,
} from '../acl/index.js';
import type { Logger } from '../log/index.js';
import type { InboundMessage, Transport } from '../transport/index.js';
import { identify, type Identity, jidOfName } from './names.js';
import { ReplyAddresses } from './reply-address.js';
import { classify, type Rejection } from './pipeline.js';
import { Router } from './router.js';
import type { SignatureCheck, Signing } from './signing.js';
import { oversizedContent, standInFor } from './outbound-fit.js';
import { RepliesSent, RESEND_WINDOW_MS, SentLog, type SentRecord } from './sent-log.js';
import { preciseNow, type Telemetry } from './telemetry.js';
import { type AgentCounters, type AgentOptions, type OrphanHandler, rateLimitDetail, type SentObserver } from './agent-options.js';

export type { AgentCounters, AgentOptions, OrphanHandler, SentObserver } from './agent-options.js';

export class Agent {
  readonly self: Identity;
  readonly router: Router;
  readonly log: Logger;
  readonly counters: AgentCounters = { received: 0, sent: 0, rejected: {}, duplicates: 0, late: 0 };
  /** Unsigned envelopes waiting for the transport (see send). */
  private heldQueue: Array<{ envelope: Envelope; toJid: string | undefined }> = [];
  private started = false;
  private readonly sentObservers: SentObserver[] = [];
  /** What went out lately (see resendAtRisk). */
  private readonly recentlySent = new SentLog();
  /** Replies by the request they answer, to answer a retransmitted request again (RepliesSent). */
  private readonly repliesSent = new RepliesSent();
  private readonly replyAddresses: ReplyAddresses; // where envelopes go on the wire
  private atRisk: SentRecord[] = [];
  private offlineSince: number | undefined;
  private readonly orphans = new Map<string, OrphanHandler>();
  /** The pipeline's assigned-conversation check (policy.ts `assigned`); none = such kinds are refused. */
  assigned: ((jid: string, conversationId: string) => boolean) | undefined;

  constructor(private readonly opts: AgentOptions) {
    this.replyAddresses = new ReplyAddresses(opts.domain, opts.peerResource);
    this.self = identify(opts.jid, opts.domain);
    this.log = opts.logger;
    this.router = new Router({
      logger: opts.logger,
      clock: opts.clock,
      persist: opts.persist,
      send: (env) => this.send(env),
      note: (cid, decision, detail) => opts.telemetry.note(cid, decision, detail),
      crashed: (_key, request, err) => {
        if (request) this.answerError(request, 'INTERNAL_ERROR', toParleyError(err).detail);
      },
    });
    opts.transport.onMessage((msg) => this.receive(msg));
    // Absences: only what was signed while away may be older than 60 s (identity/offline-gaps.ts).
    opts.transport.on('offline', () => {
      opts.signing?.wentOffline();
      this.offlineSince = Date.now();
      // Nobody can answer us while we are cut off: our exchanges' timers stop until we are back.
      this.router.pauseTimers();
      this.atRisk = this.recentlySent.since(Date.now() - RESEND_WINDOW_MS);
    });
    opts.transport.on('online', () => {
      opts.signing?.cameOnline();
      // Nobody could answer us while we were cut off: our exchanges' timers go on from where they stopped.
      if (this.offlineSince !== undefined) {
        const outage = Date.now() - this.offlineSince;
        this.offlineSince = undefined;
        const moved = this.router.resumeTimers();
        if (moved > 0) this.log.info({ outage_ms: outage, timers: moved }, 'timers moved past the outage');
      }
      this.resendAtRisk();
      this.flushHeld();
    });
  }

  /** Envelopes waiting (unsigned) for the transport to come back. */
  get held(): number {
    return this.heldQueue.length;
  }

  get signing(): Signing | undefined {
    return this.opts.signing;
  }

  get name(): string {
    return this.self.name;
  }

  get transport(): Transport {
    return this.opts.transport;
  }

  get telemetry(): Telemetry {
    return this.opts.telemetry;
  }

  async start(): Promise<void> {
    await this.opts.transport.start();
    this.started = true;
    this.flushHeld();
  }

  async stop(): Promise<void> {
    this.started = false;
    if (this.heldQueue.length > 0) this.log.warn({ held: this.heldQueue.length }, 'stopping with envelopes never sent');
    this.heldQueue = [];
    this.router.stopAll();
    await this.opts.transport.stop();
    this.opts.signing?.close();
    this.opts.telemetry.close();
  }

  /**
   * Sends an envelope to its receiver; <thread> = conversation_id, id = reply_with. With signing,
   * the timestamp is stamped and the envelope signed here, at send time. While the transport is
   * down (after start) envelopes are held unsigned and signed when it is back: a queued signed
   * envelope would be STALE (> 60 s, Agora §1) after a long outage. Only stanzas already handed to
   * the socket and resent after a stream break (XEP-0198) keep their first signature.
   */
  send(envelope: Envelope, toJid?: string): void {
    if (this.opts.signing && this.started && (this.opts.transport.status !== 'online' || this.heldQueue.length > 0)) {
      this.heldQueue.push({ envelope, toJid });
      const max = this.opts.maxHeld ?? 100000;
      if (this.heldQueue.length > max) {
        this.heldQueue.shift();
        this.log.warn({ max }, 'held envelopes over the limit while offline: dropped the oldest');
      }
      return;
    }
    this.transmit(envelope, toJid);
  }

  private flushHeld(): void {
    if (this.opts.transport.status !== 'online') return;
    const held = this.heldQueue;
    this.heldQueue = [];
    for (const h of held) this.transmit(h.envelope, h.toJid);
  }

  /** See OrphanHandler: how replies of `kind` that answer no open exchange are answered. */
  onOrphan(kind: string, handler: OrphanHandler): void {
    this.orphans.set(kind, handler);
  }

  onSent(observer: SentObserver): void {
    this.sentObservers.push(observer);
  }

  /**
   * After the server went away: envelopes sent just before are sent again. A server that stops
   * (ejabberd stop) acknowledges stanzas it then drops with the sessions it closes; ours had no
   * way to know. Receivers drop a copy of what they already had by (sender DID, reply_with):
   * the replay window and ledger, and the router's dedupe, so this costs a few stanzas, never a
   * second answer (issue "Keep every conversation through any single crash").
   */
  private resendAtRisk(): void {
    const atRisk = this.atRisk;
    this.atRisk = [];
    if (atRisk.length === 0) return;
    this.log.info({ envelopes: atRisk.length }, 'resending what was sent just before the server went away');
    for (const r of atRisk) this.transmit(r.envelope, r.toJid, true);
  }

  /**
   * `again`: a copy (resendAtRisk, answerAgain), not recorded as a send, so the resend window
   * counts from the first send; recorded copies made each reconnect resend the last one's copies
   * (a storm: 441 → 2,339 envelopes over one ejabberd stop/start; docs/architecture.md).
   */
  private transmit(unsigned: Envelope, toJid?: string, again = false): void {
    const envelope = this.opts.signing ? this.opts.signing.sign(unsigned) : unsigned;
    const body = envelopeJson(envelope);
    const oversized = oversizedContent(unsigned, body);
    const standIn = oversized === undefined ? undefined : standInFor(unsigned, oversized);
    if (oversized !== undefined) this.log.error({ to: unsigned.receiver, performative: unsigned.performative, bytes: oversized, replaced: !!standIn }, 'an envelope over 64 kB of content (seed contract §1)');
    if (standIn) {
      this.transmit(standIn, toJid, again);
      return;
    }
    if (!again) {
      const record = { at: Date.now(), envelope: unsigned, toJid };
      this.recentlySent.add(record);
      if (unsigned.in_reply_to) this.repliesSent.add(record);
    }
    this.counters.sent += 1;
    this.opts.telemetry.envelope('out', envelope, 'sent', body);
    const to = toJid ?? jidOfName(envelope.receiver, this.opts.domain);
    for (const observe of this.sentObservers) observe(envelope, to);
    this.opts.transport.send({
      to: this.replyAddresses.addressFor(to, envelope.in_reply_to),
      type: 'normal',
      id: envelope.reply_with,
      thread: envelope.conversation_id,
      body,
    });
  }

  /** Answers `request` with the performative the catalogue assigns to `code`. */
  answerError(request: Envelope, code: ErrorCode, detail?: string): void {
    if (!mayAnswerWithError(request.performative)) return;
    this.send(
      makeEnvelope({
        performative: performativeFor(code),
        sender: this.self.name,
        receiver: request.sender,
        conversation_id: request.conversation_id,
        protocol: request.protocol,
        in_reply_to: request.reply_with,
        content: errorContent(code, detail),
      }),
    );
  }

  /** The error boundary: whatever happens below is caught, answered and counted. */
  receive(msg: InboundMessage): void {
    this.counters.received += 1;
    try {
      this.process(msg);
    } catch (err) {
      const e = toParleyError(err);
      this.log.error({ err: e.message, from: msg.from }, 'inbound handling failed');
      this.opts.telemetry.envelope('in', null, `failure:INTERNAL_ERROR`, msg.body);
      this.reject({
        action: 'reject', code: 'INTERNAL_ERROR', detail: e.detail, from: identify(msg.from, this.opts.domain),
        conversation_id: msg.thread ?? 'unknown', in_reply_to: msg.id,
      });
    }
  }

  private process(msg: InboundMessage): void {
    const signing = this.opts.signing;
    let accepted: SignatureCheck | undefined;
    try {
      this.handle(msg, signing ? (env, from, kind) => (accepted = signing.check(env, from, kind)) : undefined);
    } finally {
      // Durable only once handled: a kill before this line leaves the server's redelivery
      // acceptable (at-least-once); after it, a copy is refused even after a restart.
      if (accepted) signing?.commit(accepted);
    }
  }

  private handle(msg: InboundMessage, verify: ((env: Envelope, from: Identity, kind: string) => SignatureCheck) | undefined): void {
    const signing = this.opts.signing;
    const limiter = this.opts.rateLimit;
    const c = classify(msg, {
      domain: this.opts.domain, self: this.self, readsChat: this.opts.readsChat ?? false,
      ...(verify ? { verify } : {}),
      ...(limiter ? { rateLimit: (key: string) => limiter.take(key) || rateLimitDetail(limiter, key) } : {}),
      ...(this.assigned ? { assigned: this.assigned } : {}),
    });
    // The session that sent it gets the answer or the error (reply-address.ts).
    if (c.action === 'deliver' || c.action === 'reject') this.replyAddresses.note(c.action === 'deliver' ? c.envelope.reply_with : c.in_reply_to, msg.from);
    switch (c.action) {
      case 'ignore':
        return;
      case 'chat':
        this.opts.onChat?.(c.msg, c.from);
        return;
      case 'reject':
        this.opts.telemetry.envelope('in', c.envelope ?? null, `rejected:${c.code}`, msg.body);
        this.reject(c);
        return;
      case 'deliver': {
        const at = preciseNow();
        signing?.learnFrom(c.envelope, c.from);
        const r = this.router.deliver(c.envelope, c.kind.kind, c.from);
        this.opts.telemetry.envelope('in', c.envelope, r.outcome, msg.body, at);
        // A reply to an exchange that is over (late) or unknown (broken): the role's onOrphan answer.
        const orphan = r.outcome === 'late' || r.outcome === 'broken' ? this.orphans.get(c.kind.kind)?.(c.envelope, c.from) : undefined;
        if (r.outcome === 'late') this.counters.late += 1;
        if (orphan) this.send(orphan, c.from.jid);
        else if (r.outcome === 'duplicate') {
          this.counters.duplicates += 1;
          this.answerAgain(c.envelope);
        }
        else if (r.outcome === 'broken') {
          this.reject({ ...this.rejection(c.envelope, c.from), code: 'BROKEN_CORRELATION', detail: `in_reply_to ${c.envelope.in_reply_to} answers no message of ours` });
        } else if (r.outcome === 'unhandled') {
          this.reject({ ...this.rejection(c.envelope, c.from), code: 'UNEXPECTED_MESSAGE', detail: `${this.self.name} does not handle ${c.kind.kind} in ${c.envelope.performative}` });
        }
        return;
      }
    }
  }

  private rejection(env: Envelope, from: Identity): Omit<Rejection, 'code' | 'detail'> {
    return { action: 'reject', from, envelope: env, conversation_id: env.conversation_id, in_reply_to: env.reply_with };
  }

  /**
   * A request that arrived again after it was handled: its requester may have lost our answer
   * (it crashed before reading it), so the answer goes out again (RepliesSent). The requester's
   * own dedupe drops it when it had it; the request is never acted on twice.
   */
  private answerAgain(request: Envelope): void {
    if (!mayAnswerWithError(request.performative)) return; // only requests have answers to repeat
    const again = this.repliesSent.againFor(request.reply_with, request.sender);
    if (!again) return;
    this.log.info({ to: request.sender, in_reply_to: request.reply_with }, 'answering a retransmitted request again');
    this.transmit(again.envelope, again.toJid, true);
  }

  /** Error reply to whatever arrived; never answers an error with an error (no ping-pong). */
  private reject(r: Rejection): void {
    const name = `rejected:${r.code}`;
    this.counters.rejected[r.code] = (this.counters.rejected[r.code] ?? 0) + 1;
    this.log.info({ code: r.code, from: r.from.jid, detail: r.detail }, name);
    if (r.code === 'REPLAYED' && r.envelope) this.answerAgain(r.envelope);
    if (r.quiet || !mayAnswerWithError(r.envelope?.performative ?? r.performative)) return;
    const reply = makeEnvelope({
      performative: performativeFor(r.code),
      sender: this.self.name,
      receiver: r.from.name,
      conversation_id: r.conversation_id,
      ...(r.envelope ? { protocol: r.envelope.protocol } : {}),
      ...(r.in_reply_to ? { in_reply_to: r.in_reply_to } : {}),
      content: errorContent(r.code, r.detail, r.errors),
    });
    this.send(reply, r.from.jid);
  }
}
