// A client transport (agents and test people): SASL PLAIN over loopback (facts.md: SCRAM costs
// ~300 ms per login in xmpp.js), initial presence so bare-JID messages reach us, stream
// management with a large ack window that acknowledges only handled stanzas, and our reconnect loop.
import { client, xml } from '@xmpp/client';
import type { Element } from '@xmpp/xml';
import type { Logger } from '../log/index.js';
import { envNumber } from '../config/index.js';
import { startIndex } from '../ejabberd/index.js';
import { askAckEvery, type CountingStreamManager, fixInboundCounter, NS_SM } from './sm-fix.js';
import { XmppTransport, type XmppEntity, type XmppTransportOptions } from './xmpp-transport.js';
import { useFastJidLocal } from './fast-jid.js';

export interface ClientTransportOptions {
  jid: string; // bare JID: name@domain
  password: string;
  host: string;
  port: number;
  /**
   * Every node of an ejabberd cluster (shared/ejabberd/cluster.ts c2sEndpoints): the account
   * starts on the one its name hashes to (agents spread over the nodes) and moves on to the
   * next when its stream breaks. host/port are ignored when there are several.
   */
  endpoints?: Array<{ host: string; port: number }>;
  logger: Logger;
  resource?: string;
  /** Presence priority; agents use 1 so bare-JID messages reach them (RFC 6121 §8.5.2). */
  priority?: number;
  /** Extra children for the initial presence (e.g. a status text). */
  presence?: Element[];
  /**
   * Bare JIDs sent directed presence on every (re)connect (RFC 6121 §4.6): without a roster
   * subscription they learn that this agent is online, and its server tells them when its
   * session ends (§4.6.3: unavailable to every recipient of directed presence).
   */
  presenceTo?: string[];
  /**
   * How long after a burst of stanzas the XEP-0198 ack request <r/> goes out (xmpp.js: 250 ms).
   * What the server has not acknowledged when the stream breaks is sent again after reconnect, so
   * for lines to people, who cannot drop a copy, this window is where duplicates come from.
   */
  ackDebounceMs?: number;
}

/** The endpoints as services, rotated to start at the one `jid` hashes to. */
function services(opts: ClientTransportOptions): string[] {
  const all = (opts.endpoints && opts.endpoints.length > 1 ? opts.endpoints : [{ host: opts.host, port: opts.port }])
    .map((e) => `xmpp://${e.host}:${e.port}`);
  const at = startIndex(opts.jid, all.length);
  return [...all.slice(at), ...all.slice(0, at)];
}

/** The part of xmpp.js's stream manager (@xmpp/stream-management 0.14) the waits below read. */
interface StreamManagerState {
  enabled: boolean;
  outbound_q: unknown[];
}

/** Resolves true once `check()` holds, false after `timeoutMs` (checked every 5 ms). */
async function within(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, 5));
  }
  return true;
}

/**
 * A client's transport, with the XEP-0198 state a short-lived client (a person asking:
 * shared/trace/ask.ts, test people) waits on instead of sleeping.
 */
export class ClientTransport extends XmppTransport {
  constructor(opts: XmppTransportOptions, private readonly sm: StreamManagerState) {
    super(opts);
  }

  /**
   * Until XEP-0198 is enabled on this stream. xmpp.js goes 'online' at resource binding and sends
   * <enable/> after it: a stanza sent in between is neither acknowledged nor sent again after a
   * break. False after `timeoutMs` (a server without XEP-0198).
   */
  streamManaged(timeoutMs = 5000): Promise<boolean> {
    return within(() => this.sm.enabled, timeoutMs);
  }

  /**
   * Until the server has acknowledged every stanza we sent (XEP-0198 §4: our <r/> now, not after
   * the 250 ms debounce): it has then handled them, e.g. our unavailable presence before we close.
   * False after `timeoutMs` or without XEP-0198.
   */
  async acknowledged(timeoutMs = 5000): Promise<boolean> {
    if (!this.sm.enabled) return false;
    if (this.sm.outbound_q.length > 0) await this.sendRaw(xml('r', { xmlns: NS_SM })).catch(() => undefined);
    return within(() => this.sm.outbound_q.length === 0 && this.queued === 0, timeoutMs);
  }

  /** Our stanzas the server has not acknowledged yet (XEP-0198). */
  get awaitingAck(): number {
    return this.sm.outbound_q.length;
  }
}

export function clientTransport(opts: ClientTransportOptions): ClientTransport {
  useFastJidLocal(); // @xmpp/jid's escaping check on every JID parsed (fast-jid.ts)
  const [username, domain] = opts.jid.split('@') as [string, string];
  const endpoints = services(opts);
  const xmpp = client({
    service: endpoints[0] as string,
    domain,
    resource: opts.resource ?? 'agent',
    credentials: (authenticate, mechanisms) => {
      // PLAIN is safe here: the socket never leaves loopback.
      const mech = mechanisms.includes('PLAIN') ? 'PLAIN' : (mechanisms[0] as string);
      return authenticate({ username, password: opts.password }, mech);
    },
  });
  xmpp.streamManagement.preferredMaximum = 300;
  if (opts.ackDebounceMs !== undefined) xmpp.streamManagement.requestAckDebounce = opts.ackDebounceMs;
  // XEP-0198 h counts stanzas handled, not parsed (sm-fix.ts): a kill -9 loses nothing acked.
  // Its answers to ejabberd's <r/> wait PARLEY_SM_ACK_DELAY_MS, so that one covers many stanzas.
  const gate = fixInboundCounter(xmpp, xmpp.streamManagement as unknown as CountingStreamManager, envNumber('PARLEY_SM_ACK_DELAY_MS'));
  const sm = xmpp.streamManagement as unknown as StreamManagerState;
  // The library asks for acks only after a 250 ms pause in sending: a busy agent asks every 100.
  askAckEvery(xmpp as unknown as Parameters<typeof askAckEvery>[0], sm as StreamManagerState & CountingStreamManager);
  const transport = new ClientTransport({
    address: opts.jid,
    entity: xmpp as unknown as XmppEntity,
    logger: opts.logger,
    gate,
    endpoints,
    returnHomeMs: envNumber('PARLEY_RETURN_HOME_MS'),
    unackedOut: () => sm.outbound_q.length,
    onOnline: async (t) => {
      await t.sendRaw(xml('presence', {}, xml('priority', {}, String(opts.priority ?? 1)), ...(opts.presence ?? [])));
      for (const to of opts.presenceTo ?? []) await t.sendRaw(xml('presence', { to }));
    },
  }, sm);
  // Stanzas the server never acknowledged on a stream that could not be resumed: send again.
  xmpp.streamManagement.on('fail', (stanza: Element) => transport.requeue([stanza]));
  // A resumed stream emits no 'online' (xmpp.js sets the status silently): flush the outbox here.
  xmpp.streamManagement.on('resumed', () => transport.resumed());
  return transport;
}
