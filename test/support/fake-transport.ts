// An in-memory Transport for unit tests: records what an agent sends and lets a test deliver
// stanzas as if ejabberd had stamped their `from`. `link()` wires two fake agents together.
import type { Element } from '@xmpp/xml';
import type { Envelope } from '../../shared/acl/index.js';
import { silentLogger } from '../../shared/log/index.js';
import { Agent, type AgentOptions, MemoryTelemetry } from '../../shared/runtime/index.js';
import {
  bare, messageStanza, readMessage, type InboundMessage, type OutboundMessage, type Transport,
  type TransportStatus,
} from '../../shared/transport/index.js';
import { signAs, testSigning } from './signing.js';

export const DOMAIN = 'localhost';

export class FakeTransport implements Transport {
  readonly sent: OutboundMessage[] = [];
  status: TransportStatus = 'offline';
  private readonly handlers: Array<(msg: InboundMessage) => void> = [];
  /** Called for every sent message (after recording it), e.g. to forward it to a peer. */
  onSend?: (msg: OutboundMessage) => void;

  constructor(readonly address: string) {}

  async start(): Promise<void> {
    this.status = 'online';
  }
  async stop(): Promise<void> {
    this.status = 'offline';
  }
  send(msg: OutboundMessage): void {
    this.sent.push(msg);
    this.onSend?.(msg);
  }
  async sendRaw(_el: Element): Promise<void> {}
  onMessage(handler: (msg: InboundMessage) => void): void {
    this.handlers.push(handler);
  }
  onPresence(): void {}
  private readonly statusHandlers: Array<{ event: 'online' | 'offline'; handler: () => void }> = [];
  on(event: 'online' | 'offline', handler: () => void): void {
    this.statusHandlers.push({ event, handler });
  }

  /** Simulates a connection drop or comeback (emits 'offline'/'online' like XmppTransport). */
  setStatus(status: TransportStatus): void {
    this.status = status;
    if (status === 'connecting') return;
    for (const h of this.statusHandlers) if (h.event === status) h.handler();
  }

  /** Delivers a stanza to the agent, as ejabberd would (from = authenticated full JID). */
  deliver(msg: InboundMessage): void {
    for (const h of this.handlers) h(msg);
  }

  /** The envelopes sent so far (bodies parsed). */
  envelopes(): Envelope[] {
    return this.sent.map((m) => JSON.parse(m.body ?? 'null') as Envelope);
  }
}

export interface StanzaOpts {
  thread?: string;
  id?: string;
  type?: string;
  to?: string;
  /** Leave an object body unsigned (default: signed with the sender JID's test key). */
  unsigned?: boolean;
}

/**
 * An inbound message carrying `body` (string) or an envelope (serialised, thread/id from it).
 * An object body without a signature is signed with the test key of `fromJid` (signing.ts).
 */
export function inbound(fromJid: string, body: string | Envelope | object, opts: StanzaOpts = {}): InboundMessage {
  const env = typeof body === 'string' ? undefined : (body as Partial<Envelope>);
  const signed = env && !opts.unsigned && env.signature === undefined ? signAs(fromJid, env as Envelope) : body;
  const text = typeof signed === 'string' ? signed : JSON.stringify(signed);
  const from = fromJid.includes('/') ? fromJid : `${fromJid}/agent-1`;
  const stanza = messageStanza({
    to: opts.to ?? `someone@${DOMAIN}`,
    from,
    id: opts.id ?? env?.reply_with,
    thread: 'thread' in opts ? opts.thread : env?.conversation_id,
    body: text,
  });
  if (opts.type) stanza.attrs.type = opts.type;
  return readMessage(stanza);
}

export interface TestAgent {
  agent: Agent;
  transport: FakeTransport;
  telemetry: MemoryTelemetry;
}

export function testAgent(localpart: string, extra: Partial<AgentOptions> = {}): TestAgent {
  const jid = `${localpart}@${DOMAIN}`;
  const transport = new FakeTransport(jid);
  const telemetry = new MemoryTelemetry();
  // Signed and verifying like a real agent (test keys); pass `signing: undefined` to turn it off.
  const agent = new Agent({ jid, domain: DOMAIN, transport, logger: silentLogger(), telemetry, signing: testSigning(jid, DOMAIN), ...extra });
  return { agent, transport, telemetry };
}

/** Forwards each agent's sent messages to the other (synchronously, or queued on a microtask). */
export function link(a: TestAgent, b: TestAgent, { async = false } = {}): void {
  const wire = (from: TestAgent, to: TestAgent) => {
    from.transport.onSend = (msg) => {
      if (bare(msg.to) !== to.agent.self.jid) return;
      const stanza = messageStanza({ ...msg, from: `${from.agent.self.jid}/agent-1` });
      const deliver = () => to.transport.deliver(readMessage(stanza));
      if (async) queueMicrotask(deliver);
      else deliver();
    };
  };
  wire(a, b);
  wire(b, a);
}
