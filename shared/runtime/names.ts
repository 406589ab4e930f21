// Logical names (the envelope's sender/receiver, seed contract §1) and roles of authenticated XMPP
// addresses. Singletons keep the contract's names (Presenter, Coordinator, Registry, KB, Sessions); every
// other agent is named by its account (specialist-math, calendar-bob) and each room by
// room-<name> (its JID is <name>@rooms.<domain>). A virtual specialist (one of many served by a
// host process's component, agents.<domain>) is named by its bare JID: name@agents.<domain>;
// so is a virtual calendar of the calendar host (agents/calendar/host.ts): person@calendars.<domain>.
// Roles: the core accounts are pinned at provisioning, rooms are the component's (its secret),
// virtual specialists are the agents component's (its secret) *and* enrolled (shared/identity/
// roster.ts; an un-enrolled JID there is nobody: role foreign), and a specialist or calendar is one only because the operator enrolled it (the RoleBook: the
// enrolment roster, shared/identity/roster.ts). An account's name never makes it an agent: an
// un-enrolled account, whatever it is called, is a person.
import { bare } from '../transport/index.js';

import { CORE_AGENTS, type Role } from '../contracts/index.js';

export type { Role };

// The core agents (roles.ts CORE_AGENTS: account = role, with its logical name) and the admin.
const SINGLETONS: Record<string, { name: string; role: Role }> = {
  ...Object.fromEntries(Object.entries(CORE_AGENTS).map(([role, name]) => [role, { name, role: role as Role }])),
  admin: { name: 'admin', role: 'admin' },
};
const BY_NAME = new Map(Object.entries(SINGLETONS).map(([local, v]) => [v.name, local]));

export const roomsDomain = (domain: string) => `rooms.${domain}`;
/** The component of the specialist host processes (agents/specialist/host.ts): name@agents.<domain>. */
export const agentsDomain = (domain: string) => `agents.${domain}`;
/** The calendar host's component (agents/calendar/host.ts): person@calendars.<domain>. */
export const calendarsDomain = (domain: string) => `calendars.${domain}`;

/** Enrolled roles by bare JID; one per process (the installation's roster), installed at boot. */
export interface RoleBook {
  roleOf(bareJid: string): Role | undefined;
}

let book: RoleBook | undefined;

/** Whether a RoleBook is installed in this process. */
export function hasRoleBook(): boolean {
  return book !== undefined;
}

/** Installs the process's RoleBook (createAgent; tests install their own). Returns the previous one. */
export function useRoleBook(next: RoleBook | undefined): RoleBook | undefined {
  const previous = book;
  book = next;
  return previous;
}

export interface Identity {
  jid: string;
  name: string;
  role: Role;
}

/** Who a (full or bare) JID is: its logical name, and its role (core, room, enrolled, else person). */
export function identify(jid: string, domain: string, roles: RoleBook | undefined = book): Identity {
  const b = bare(jid);
  const at = b.indexOf('@');
  const local = at === -1 ? '' : b.slice(0, at);
  const host = at === -1 ? b : b.slice(at + 1);
  if (host === roomsDomain(domain) && local) return { jid: b, name: `room-${local}`, role: 'room' };
  if (host === agentsDomain(domain) && local) {
    // Only the holder of the component secret can send from this domain; the operator's enrolment
    // (never the name) makes a JID there a specialist.
    return { jid: b, name: b, role: roles?.roleOf(b) === 'specialist' ? 'specialist' : 'foreign' };
  }
  if (host === calendarsDomain(domain) && local) {
    // The same for the calendar host's component: a calendar only when enrolled as one.
    return { jid: b, name: b, role: roles?.roleOf(b) === 'calendar' ? 'calendar' : 'foreign' };
  }
  if (host !== domain || !local) return { jid: b, name: b, role: 'foreign' };
  const single = SINGLETONS[local];
  if (single) return { jid: b, ...single };
  const enrolled = roles?.roleOf(b);
  // Only the enrollable roles: a roster can never make an account a core agent or a room.
  if (enrolled === 'specialist' || enrolled === 'calendar') return { jid: b, name: local, role: enrolled };
  return { jid: b, name: local, role: 'person' };
}

/**
 * The local parts of a host's generated agents (`--host NAME --count N`): NAME-0001 … NAME-N,
 * zero-padded to at least four digits, as the specialist and calendar hosts name them.
 */
export function generatedLocals(host: string, count: number): string[] {
  const width = Math.max(4, String(count).length);
  return Array.from({ length: count }, (_, i) => `${host}-${String(i + 1).padStart(width, '0')}`);
}

/** The bare JID for a logical name (the receiver of an envelope). */
export function jidOfName(name: string, domain: string): string {
  if (name.includes('@')) return name;
  const single = BY_NAME.get(name);
  if (single) return `${single}@${domain}`;
  if (name.startsWith('room-')) return `${name.slice(5)}@${roomsDomain(domain)}`;
  return `${name}@${domain}`;
}

/**
 * Where a stanza for `jid` goes: an account of the c2s `domain` (every agent logs in with the one
 * fixed `resource`, PARLEY_RESOURCE) is addressed at that full JID. ejabberd 23.01 hands a message
 * for a full JID to the session bound there even before its initial presence, and sends it on as to
 * the bare JID (RFC 6121 §8.5.3.2.1) when no such session exists. The bare JID lost requests: a
 * killed agent's unacknowledged stanzas, re-routed when its restarted process binds and replaces the
 * session (mod_stream_mgmt route_unacked_stanzas), found no available resource yet and went to
 * offline storage, where the new session's first presence had already looked (docs/runtime.md).
 */
export function addressOf(jid: string, domain: string, resource: string | undefined): string {
  if (!resource || jid.includes('/')) return jid;
  return jid.slice(jid.indexOf('@') + 1).toLowerCase() === domain.toLowerCase() ? `${jid}/${resource}` : jid;
}

export function nameOfJid(jid: string, domain: string): string {
  return identify(jid, domain).name;
}
