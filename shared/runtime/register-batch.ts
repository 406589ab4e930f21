// REGISTER_MANY on the host side (issue 14 §3): a host's virtual agents register through their
// own registration machines (df-registration.ts), each REGISTER signed by its own agent as ever;
// the host's transport holds the REGISTERs going to the Registry within one turn of the event
// loop and sends them as the entries of one REQUEST REGISTER_MANY (agents/registry/register-many.ts),
// from one of those agents. The Registry's INFORM REGISTERED_MANY (verified by that agent's
// pipeline like any reply) is handed to each agent's router as its own INFORM REGISTERED, in
// reply to its own REGISTER, so the machines, the gate and the lease group see what they always
// saw. Measured: one message instead of up to 64 for the Registry to parse, route, sign, store in
// telemetry and answer (docs/bench.md "Virtual agents").
// When the Registry refuses a batch (one entry failed: not enrolled, revoked, another key) or does
// not answer it, its agents register one REGISTER each from then on (their machines retry after
// GATED_RETRY), and each gets its own answer.
import { randomUUID } from 'node:crypto';
import type { Element } from '@xmpp/xml';
import { type AnyActorRef, assign, emit, setup, toPromise } from 'xstate';
import { type Envelope, envelopeJson, makeEnvelope } from '../acl/index.js';
import type { RegisteredManyContent } from '../contracts/index.js';
import type { Logger } from '../log/index.js';
import { bare, type InboundMessage, type OutboundMessage, type Transport } from '../transport/index.js';
import type { Agent } from './agent.js';
import type { ExchangeEmitted, InboundEvent } from './exchange.js';
import { identify } from './names.js';

/** contracts/register-many.json maxItems; and entries stay under the 64 kB content limit (seed contract §1). */
export const BATCH_MAX_ENTRIES = 64;
const BATCH_MAX_BYTES = 56 * 1024;
/** A batch unanswered this long: its agents register alone (their machines' own retry sends it). */
const BATCH_TIMEOUT_MS = 15_000;

/** One request, its first reply (or none after `timeoutMs`). */
const batchExchange = setup({
  types: {} as { input: { envelope: Envelope; timeoutMs: number }; context: { envelope: Envelope; timeoutMs: number; reply?: Envelope }; events: InboundEvent; emitted: ExchangeEmitted; output: { reply?: Envelope } },
  delays: { TIMEOUT: ({ context }) => context.timeoutMs },
}).createMachine({
  context: ({ input }) => ({ envelope: input.envelope, timeoutMs: input.timeoutMs }),
  entry: emit(({ context }) => ({ type: 'send' as const, envelope: context.envelope })),
  initial: 'waiting',
  states: {
    waiting: { on: { inbound: { target: 'done', actions: assign({ reply: ({ event }) => event.envelope }) } }, after: { TIMEOUT: 'done' } },
    done: { type: 'final' },
  },
  output: ({ context }) => (context.reply ? { reply: context.reply } : {}),
});

interface Held {
  envelope: Envelope;
  from: string;
  bytes: number;
}

export interface RegisterBatcherOptions {
  /** The component transport the host's agents share. */
  transport: Transport;
  /** The installation's domain (the Registry's JID and name resolve in it). */
  domain: string;
  registryJid: string;
  /** The hosted agent of a JID (the batch goes out as one of them, the replies go to each). */
  agentOf: (jid: string) => Agent | undefined;
  logger: Logger;
  timeoutMs?: number;
}

export class RegisterBatcher {
  /** What the ComponentHost sends through: everything passes, but REGISTERs to the Registry wait for the batch. */
  readonly transport: Transport;
  private held: Held[] = [];
  private scheduled = false;
  /** Agents whose batch was refused or unanswered: they register alone. */
  private readonly alone = new Set<string>();
  /** Batches sent, entries, refused or unanswered batches (tests, logs). */
  readonly stats = { batches: 0, entries: 0, failed: 0 };

  constructor(private readonly opts: RegisterBatcherOptions) {
    const inner = opts.transport;
    const divert = (msg: OutboundMessage) => this.divert(msg);
    this.transport = {
      get address() { return inner.address; },
      get status() { return inner.status; },
      start: () => inner.start(),
      stop: () => inner.stop(),
      send: (msg: OutboundMessage) => {
        if (!divert(msg)) inner.send(msg);
      },
      sendRaw: (el: Element) => inner.sendRaw(el),
      onMessage: (h: (msg: InboundMessage) => void) => inner.onMessage(h),
      onPresence: (h: (stanza: Element) => void) => inner.onPresence(h),
      on: (event: 'online' | 'offline', h: () => void) => inner.on(event, h),
    };
  }

  /** Holds a REGISTER of a hosted agent for the next batch; false = send it as it is. */
  private divert(msg: OutboundMessage): boolean {
    // A component addresses its peers by full JID (ComponentHost peerResource): compare the bare one.
    if (bare(msg.to) !== this.opts.registryJid || msg.from === undefined || msg.body === undefined || !msg.body.includes('"REGISTER"')) return false;
    if (this.alone.has(msg.from) || this.opts.transport.status !== 'online') return false;
    let envelope: Envelope;
    try {
      envelope = JSON.parse(msg.body) as Envelope;
    } catch {
      return false;
    }
    if (envelope.performative !== 'REQUEST' || (envelope.content as { type?: unknown }).type !== 'REGISTER') return false;
    this.held.push({ envelope, from: msg.from, bytes: msg.body.length });
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
    return true;
  }

  private flush(): void {
    this.scheduled = false;
    const held = this.held;
    this.held = [];
    let batch: Held[] = [];
    let bytes = 0;
    for (const h of held) {
      if (batch.length === BATCH_MAX_ENTRIES || (batch.length > 0 && bytes + h.bytes > BATCH_MAX_BYTES)) {
        this.send(batch);
        batch = [];
        bytes = 0;
      }
      batch.push(h);
      bytes += h.bytes;
    }
    if (batch.length > 0) this.send(batch);
  }

  private send(batch: Held[]): void {
    const sender = this.opts.agentOf(batch[0]!.from);
    if (!sender) {
      for (const h of batch) this.opts.transport.send({ to: this.opts.registryJid, from: h.from, type: 'normal', id: h.envelope.reply_with, thread: h.envelope.conversation_id, body: envelopeJson(h.envelope) });
      return;
    }
    this.stats.batches += 1;
    this.stats.entries += batch.length;
    const key = `regmany-${randomUUID()}`;
    const envelope = makeEnvelope({
      performative: 'REQUEST', sender: sender.name, receiver: batch[0]!.envelope.receiver, conversation_id: key,
      content: { type: 'REGISTER_MANY', entries: batch.map((h) => h.envelope) } as never,
    });
    const actor: AnyActorRef = sender.router.start(key, batchExchange, { envelope, timeoutMs: this.opts.timeoutMs ?? BATCH_TIMEOUT_MS }, undefined, { ephemeral: true });
    void toPromise(actor).then((out) => this.answered(batch, (out as { reply?: Envelope }).reply), () => this.answered(batch, undefined));
  }

  private answered(batch: Held[], reply: Envelope | undefined): void {
    const content = reply?.content as Partial<RegisteredManyContent> | undefined;
    if (reply?.performative !== 'INFORM' || content?.type !== 'REGISTERED_MANY' || !Array.isArray(content.registered)) {
      // Refused (one entry failed) or unanswered: each registers alone, and gets its own answer.
      this.stats.failed += 1;
      for (const h of batch) this.alone.add(h.from);
      this.opts.logger.warn({ agents: batch.length, answer: reply ? `${reply.performative} ${JSON.stringify(reply.content).slice(0, 300)}` : 'none' }, 'REGISTER_MANY not accepted: these agents register one by one');
      return;
    }
    const byReply = new Map(batch.map((h) => [h.envelope.reply_with, h]));
    const registry = identify(this.opts.registryJid, this.opts.domain);
    for (const r of content.registered) {
      const h = byReply.get(r.in_reply_to);
      const agent = h && this.opts.agentOf(h.from);
      if (!h || !agent || identify(r.jid, this.opts.domain).jid !== identify(h.from, this.opts.domain).jid) continue;
      // The agent's own INFORM REGISTERED, in reply to its own REGISTER (the batch's reply was verified as it arrived).
      const own = makeEnvelope({
        performative: 'INFORM', sender: reply.sender, receiver: h.envelope.sender, conversation_id: h.envelope.conversation_id,
        in_reply_to: h.envelope.reply_with, content: { type: 'REGISTERED', jid: r.jid, lease_ms: r.lease_ms },
      });
      const routed = agent.router.deliver(own, 'REGISTERED', registry);
      agent.telemetry.envelope('in', own, routed.outcome);
    }
  }
}
