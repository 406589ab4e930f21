// Logical names (the envelope's sender/receiver, seed contract §1) and roles, derived from the
// authenticated XMPP address. Singletons keep the contract's names (Presenter, Coordinator,
// Registry, KB); every other agent is named by its account (specialist-math, calendar-bob) and
// each room by room-<name> (its JID is <name>@rooms.<domain>).
import { bare } from '../transport/stanza.js';

export type Role =
  | 'presenter' | 'coordinator' | 'registry' | 'kb' | 'specialist' | 'calendar' | 'room' | 'admin' | 'person' | 'foreign';

const SINGLETONS: Record<string, { name: string; role: Role }> = {
  presenter: { name: 'Presenter', role: 'presenter' },
  coordinator: { name: 'Coordinator', role: 'coordinator' },
  registry: { name: 'Registry', role: 'registry' },
  kb: { name: 'KB', role: 'kb' },
  admin: { name: 'admin', role: 'admin' },
};
const BY_NAME = new Map(Object.entries(SINGLETONS).map(([local, v]) => [v.name, local]));

export const roomsDomain = (domain: string) => `rooms.${domain}`;

export interface Identity {
  jid: string;
  name: string;
  role: Role;
}

/** Who a (full or bare) JID is, as far as this domain's naming scheme says. */
export function identify(jid: string, domain: string): Identity {
  const b = bare(jid);
  const at = b.indexOf('@');
  const local = at === -1 ? '' : b.slice(0, at);
  const host = at === -1 ? b : b.slice(at + 1);
  if (host === roomsDomain(domain) && local) return { jid: b, name: `room-${local}`, role: 'room' };
  if (host !== domain || !local) return { jid: b, name: b, role: 'foreign' };
  const single = SINGLETONS[local];
  if (single) return { jid: b, ...single };
  if (local.startsWith('specialist-')) return { jid: b, name: local, role: 'specialist' };
  if (local.startsWith('calendar-')) return { jid: b, name: local, role: 'calendar' };
  return { jid: b, name: local, role: 'person' };
}

/** The bare JID for a logical name (the receiver of an envelope). */
export function jidOfName(name: string, domain: string): string {
  if (name.includes('@')) return name;
  const single = BY_NAME.get(name);
  if (single) return `${single}@${domain}`;
  if (name.startsWith('room-')) return `${name.slice(5)}@${roomsDomain(domain)}`;
  return `${name}@${domain}`;
}

export function nameOfJid(jid: string, domain: string): string {
  return identify(jid, domain).name;
}
