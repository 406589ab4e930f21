// A XEP-0114 component transport: one process serves every JID under its domain (rooms.<domain>).
import { component } from '@xmpp/component';
import type { Logger } from '../log/index.js';
import { XmppTransport, type XmppEntity } from './xmpp-transport.js';

export interface ComponentTransportOptions {
  domain: string; // e.g. rooms.localhost
  password: string;
  host: string;
  port: number;
  /** Every node's component port (shared/ejabberd/cluster.ts componentEndpoints): failover in order. */
  endpoints?: Array<{ host: string; port: number }>;
  logger: Logger;
}

export function componentTransport(opts: ComponentTransportOptions): XmppTransport {
  const endpoints = (opts.endpoints && opts.endpoints.length > 1 ? opts.endpoints : [{ host: opts.host, port: opts.port }]).map((e) => `xmpp://${e.host}:${e.port}`);
  const xmpp = component({ service: endpoints[0] as string, domain: opts.domain, password: opts.password });
  // XEP-0199: answer pings to the domain and to every JID under it (the reply is sent from the
  // pinged JID), so `npm run status` can tell a hosted room is alive.
  xmpp.iqCallee.get('urn:xmpp:ping', 'ping', () => ({}));
  return new XmppTransport({ address: opts.domain, entity: xmpp as unknown as XmppEntity, logger: opts.logger, endpoints });
}
