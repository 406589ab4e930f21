// One XEP-0114 component process serving many agents (every room JID under rooms.<domain>).
// The runtime's Agent assumes one JID; here each hosted JID gets its own unchanged Agent
// (pipeline with `self` = the addressed JID, Router, telemetry file) over a *view* of the one
// component transport: the view receives only stanzas addressed to its JID and stamps `from`
// on what it sends. Stanzas for a JID nobody hosts still get a FIPA error (never silence).
import type { Element } from '@xmpp/xml';
import { envelopeJson, makeEnvelope, errorContent, performativeFor, mayAnswerWithError } from '../acl/index.js';
import type { Logger } from '../log/index.js';
import type { InboundMessage, OutboundMessage, Transport, TransportStatus } from '../transport/index.js';
import { Agent, type AgentOptions } from './agent.js';
import { identify } from './names.js';
import { classify } from './pipeline.js';
import type { Signing } from './signing.js';
import type { Telemetry } from './telemetry.js';

/** The component transport as seen by one hosted JID. start/stop belong to the host. */
class JidView implements Transport {
  readonly handlers: Array<(msg: InboundMessage) => void> = [];
  /** online/offline listeners, fanned out by the host (one listener on the transport, not one per JID). */
  readonly listeners = { online: [] as Array<() => void>, offline: [] as Array<() => void> };
  constructor(readonly address: string, private readonly inner: Transport) {}
  get status(): TransportStatus {
    return this.inner.status;
  }
  async start(): Promise<void> {}
  async stop(): Promise<void> {}
  send(msg: OutboundMessage): void {
    this.inner.send({ ...msg, from: this.address });
  }
  sendRaw(el: Element): Promise<void> {
    return this.inner.sendRaw(el);
  }
  onMessage(handler: (msg: InboundMessage) => void): void {
    this.handlers.push(handler);
  }
  onPresence(): void {}
  on(event: 'online' | 'offline', handler: () => void): void {
    this.listeners[event].push(handler);
  }
}

export interface ComponentHostOptions {
  /** The component transport (componentTransport() for rooms.<domain>). */
  transport: Transport;
  /** The XMPP domain of the installation (not the component's subdomain). */
  domain: string;
  logger: Logger;
  /** PARLEY_RESOURCE: the hosted agents address the c2s agents at that full JID (names.ts addressOf). */
  peerResource?: string;
}

export class ComponentHost {
  private readonly views = new Map<string, JidView>();
  private readonly agents = new Map<string, Agent>();
  private readonly interceptors: Array<(msg: InboundMessage) => boolean> = [];

  constructor(private readonly opts: ComponentHostOptions) {
    opts.transport.onMessage((msg) => this.dispatch(msg));
    for (const event of ['online', 'offline'] as const) {
      opts.transport.on(event, () => {
        for (const v of this.views.values()) for (const h of v.listeners[event]) h();
      });
    }
  }

  /** Hosts `jid` (bare, under the component's domain) as its own Agent; `persist`: a durable one (agents/calendar/host.ts). */
  host(jid: string, o: { telemetry: Telemetry; logger?: Logger; clock?: AgentOptions['clock']; signing?: Signing; persist?: AgentOptions['persist'] }): Agent {
    const key = jid.toLowerCase();
    if (this.agents.has(key)) throw new Error(`${jid} is hosted twice`);
    const view = new JidView(jid, this.opts.transport);
    const agent = new Agent({
      jid, domain: this.opts.domain, transport: view, logger: o.logger ?? this.opts.logger.child({ jid }), telemetry: o.telemetry,
      ...(o.clock ? { clock: o.clock } : {}),
      ...(o.signing ? { signing: o.signing } : {}),
      ...(o.persist ? { persist: o.persist } : {}),
      ...(this.opts.peerResource !== undefined ? { peerResource: this.opts.peerResource } : {}),
    });
    this.views.set(key, view);
    this.agents.set(key, agent);
    return agent;
  }

  /** Sees every stanza before the agents do; returning true consumes it (shard-claims.ts probes). */
  intercept(fn: (msg: InboundMessage) => boolean): void {
    this.interceptors.push(fn);
  }

  get hosted(): Agent[] {
    return [...this.agents.values()];
  }

  /** Connects the component, then marks every hosted agent started (signing holds while offline). */
  async start(): Promise<void> {
    await this.opts.transport.start();
    for (const a of this.agents.values()) await a.start();
  }

  async stop(): Promise<void> {
    for (const a of this.agents.values()) await a.stop().catch(() => undefined);
    await this.opts.transport.stop();
  }

  private dispatch(msg: InboundMessage): void {
    for (const fn of this.interceptors) if (fn(msg)) return;
    const view = this.views.get(msg.toBare.toLowerCase());
    if (view) {
      for (const h of view.handlers) h(msg);
      return;
    }
    try {
      this.answerUnknown(msg);
    } catch (err) {
      this.opts.logger.warn({ err: (err as Error).message, to: msg.to }, 'stanza for an unknown JID');
    }
  }

  /** Addressed to a JID we do not host: the pipeline's own error if the input is bad, else UNEXPECTED_MESSAGE. */
  private answerUnknown(msg: InboundMessage): void {
    const self = identify(msg.toBare, this.opts.domain);
    const c = classify(msg, { domain: this.opts.domain, self, readsChat: false });
    if (c.action === 'ignore' || c.action === 'chat') return;
    const env = c.envelope;
    const code = c.action === 'reject' ? c.code : 'UNEXPECTED_MESSAGE';
    const detail = c.action === 'reject' ? c.detail : `${self.jid} is not served here`;
    if (!mayAnswerWithError(env?.performative ?? (c.action === 'reject' ? c.performative : undefined))) return;
    this.opts.logger.info({ to: msg.toBare, from: msg.from, code }, 'message for an unknown JID');
    const reply = makeEnvelope({
      performative: performativeFor(code),
      sender: self.name,
      receiver: c.from.name,
      conversation_id: env?.conversation_id ?? msg.thread ?? 'unknown',
      ...(env ? { protocol: env.protocol } : {}),
      ...((env?.reply_with ?? msg.id) ? { in_reply_to: env?.reply_with ?? msg.id } : {}),
      content: errorContent(code, detail),
    });
    this.opts.transport.send({
      from: msg.toBare, to: c.from.jid, type: 'normal', id: reply.reply_with, thread: reply.conversation_id, body: envelopeJson(reply),
    });
  }
}
