// Which key a REGISTER may carry (docs/architecture.md "Identities and trust"): the DID the
// operator bound to the JID, by enrolment (specialists, calendars: shared/identity/enrolment.ts)
// or by provisioning's pin (core agents, rooms). Never the first key a JID shows (no TOFU): a JID
// with no such binding is refused, and another key needs the operator (`npm run enrol -- issue`,
// `npm run keys -- rotate`).
import { bare } from '../../shared/transport/index.js';

export type BindOutcome =
  | { ok: true; jid: string; did: string; source: 'enrolled' | 'pinned' }
  /** bound: the operator's DID for the JID; undefined when it has none (not enrolled). */
  | { ok: false; jid: string; bound?: string };

/** Decides a REGISTER's DID against the enrolled and the pinned DID of the JID (pure). */
export function decideBinding(jid: string, did: string, enrolled: string | undefined, pinned: string | undefined): BindOutcome {
  const key = bare(jid);
  if (enrolled !== undefined) return enrolled === did ? { ok: true, jid: key, did, source: 'enrolled' } : { ok: false, jid: key, bound: enrolled };
  if (pinned !== undefined) return pinned === did ? { ok: true, jid: key, did, source: 'pinned' } : { ok: false, jid: key, bound: pinned };
  return { ok: false, jid: key };
}
