// A plain @xmpp/client session as a person's client or an attacker's opens one (no Parley
// transport, no fixes of ours unless the test adds them): SASL PLAIN on the instance's c2s port,
// xmpp.js's own reconnect stopped so a closed stream stays closed. Not started.
import { client } from '@xmpp/client';
import type { ParleyConfig } from '../../shared/config/index.js';

export type RawClient = ReturnType<typeof client>;

export function rawClient(cfg: ParleyConfig, jid: string, password: string, resource: string): RawClient {
  const username = jid.split('@')[0] as string;
  const xmpp = client({
    service: `xmpp://${cfg.host}:${cfg.c2sPort}`, domain: cfg.domain, resource,
    credentials: (auth, mechs) => auth({ username, password }, mechs.includes('PLAIN') ? 'PLAIN' : (mechs[0] as string)),
  });
  xmpp.reconnect.stop();
  return xmpp;
}
