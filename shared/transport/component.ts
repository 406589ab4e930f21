// A XEP-0114 component transport: one process serves every JID under its domain (rooms.<domain>).
import { component } from '@xmpp/component';
import type { Logger } from '../log/index.js';
import { XmppTransport, type XmppEntity } from './xmpp-transport.js';

export interface ComponentTransportOptions {
  domain: string; // e.g. rooms.localhost
  password: string;
  host: string;
  port: number;
  /**
   * Every node's component port (shared/ejabberd/cluster.ts componentEndpoints): failover in
   * order. The first is the component's home node, where it starts and moves back to.
   */
  endpoints?: Array<{ host: string; port: number }>;
  /**
   * In a cluster, how often to check whether the home node is back (PARLEY_RETURN_HOME_MS); the
   * move is make-before-break (component-move.ts). 0 or absent: it stays where it failed over to.
   */
  returnHomeMs?: number;
  logger: Logger;
}

export function componentTransport(opts: ComponentTransportOptions): XmppTransport {
  const endpoints = (opts.endpoints && opts.endpoints.length > 1 ? opts.endpoints : [{ host: opts.host, port: opts.port }]).map((e) => `xmpp://${e.host}:${e.port}`);
  const entity = (service: string): XmppEntity => {
    const xmpp = component({ service, domain: opts.domain, password: opts.password });
    // XEP-0199: answer pings to the domain and to every JID under it (the reply is sent from the
    // pinged JID), so `npm run status` can tell a hosted room is alive.
    xmpp.iqCallee.get('urn:xmpp:ping', 'ping', () => ({}));
    return xmpp as unknown as XmppEntity;
  };
  return new XmppTransport({
    address: opts.domain, entity: entity(endpoints[0] as string), logger: opts.logger, endpoints,
    ...(opts.returnHomeMs ? { returnHomeMs: opts.returnHomeMs, spare: entity } : {}),
  });
}
