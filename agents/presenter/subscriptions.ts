// Who may talk to the Presenter, and how it answers presence subscriptions (RFC 6121 §3).
// PARLEY_PRESENTER_ALLOW is a comma list of domains and/or bare JIDs (default: our domain).
// Pure decisions; main.ts turns them into <presence/> stanzas.
import { bare } from '../../shared/transport/index.js';

export interface AllowList {
  domains: Set<string>;
  jids: Set<string>;
}

/** JIDs are case-insensitive in their local and domain parts (RFC 7622 §3.2, §3.3). */
export function allowList(entries: readonly string[]): AllowList {
  const list: AllowList = { domains: new Set(), jids: new Set() };
  for (const raw of entries) {
    const e = raw.trim().toLowerCase();
    if (e === '') continue;
    if (e.includes('@')) list.jids.add(bare(e));
    else list.domains.add(e);
  }
  return list;
}

export function isAllowed(list: AllowList, jid: string): boolean {
  const b = bare(jid).toLowerCase();
  const at = b.indexOf('@');
  if (at <= 0) return false; // servers and components are not people
  return list.jids.has(b) || list.domains.has(b.slice(at + 1));
}

/** A presence stanza to send: `to` is always a bare JID. */
export interface PresenceReply {
  to: string;
  type: 'subscribed' | 'subscribe' | 'unsubscribed';
}

/**
 * RFC 6121 §3.1.4/§3.1.5: approve an allowed `subscribe` and subscribe back (so the person sees
 * the Presenter online and the Presenter sees them); deny anyone else with `unsubscribed`.
 * An `unsubscribe` is acknowledged; everything else needs no answer.
 */
export function onPresenceStanza(list: AllowList, type: string | undefined, from: string): PresenceReply[] {
  const to = bare(from);
  switch (type) {
    case 'subscribe':
      return isAllowed(list, to)
        ? [{ to, type: 'subscribed' }, { to, type: 'subscribe' }]
        : [{ to, type: 'unsubscribed' }];
    case 'unsubscribe':
      return [{ to, type: 'unsubscribed' }];
    default:
      return [];
  }
}
