// Convener authority (OAP RFC 0001 §3.6) over the admission ledger (§5.1): join needs a
// SessionAdmission, removing someone else a SessionRevocation, handoff a SessionHandoff, each
// signed by the current convener (credentials.ts). Leaving needs nothing; the convener hands off first.
import type { SessionCredential } from '../contracts/index.js';
import { type CredentialType, verifyCredential } from './credentials.js';
import { type Outcome, refuse } from './outcome.js';
import type { Actor, SessionService } from './service.js';
import type { SessionRow } from './store.js';

function checked(svc: SessionService, s: SessionRow, type: CredentialType, content: Record<string, unknown>): SessionCredential {
  const c = (content.credential as SessionCredential | undefined) ?? refuse('BAD_CREDENTIAL', `a ${type} signed by the convener is needed`);
  const r = verifyCredential(c, { type, sessionId: s.id, convener: s.convener, now: svc.now() });
  if (!r.ok) refuse(r.reason, r.detail);
  return c;
}

export function join(svc: SessionService, s: SessionRow, actor: Actor, content: Record<string, unknown>): Outcome {
  const c = checked(svc, s, 'SessionAdmission', content);
  // The subject presents its own admission, or the convener admits it directly.
  if (actor.did !== c.subject && actor.did !== s.convener) refuse('NOT_A_PARTICIPANT', `${actor.did} is neither the admitted ${c.subject} nor the convener`);
  svc.isOpen(s, 'join');
  if (svc.store.isParticipant(s.id, c.subject)) refuse('ALREADY_PARTICIPANT', `${c.subject} is already admitted to ${s.id}`);
  const count = svc.store.participants(s.id).length;
  if (count >= s.max_participants) refuse('SESSION_FULL', `${s.id} has ${count} participants (max_participants ${s.max_participants})`);
  svc.store.admit(s.id, { did: c.subject, name: actor.did === c.subject ? actor.name : null, admitted_at: svc.iso() });
  return svc.turn(s, actor.did, 'join', { subject: c.subject, credential: c });
}

export function leave(svc: SessionService, s: SessionRow, actor: Actor, content: Record<string, unknown>): Outcome {
  svc.isOpen(s, 'leave');
  const c = content.credential === undefined ? undefined : checked(svc, s, 'SessionRevocation', content);
  const subject = c?.subject ?? actor.did;
  if (subject === s.convener) refuse('CONVENER_MUST_HANDOFF', 'the convener cannot leave or be revoked: hand off first (SESSION_HANDOFF)');
  if (!svc.store.isParticipant(s.id, subject)) refuse('NOT_A_PARTICIPANT', `${subject} is not admitted to ${s.id}`);
  svc.store.remove(s.id, subject);
  return svc.turn(s, actor.did, 'leave', c ? { subject, credential: c } : { subject });
}

export function handoff(svc: SessionService, s: SessionRow, actor: Actor, content: Record<string, unknown>): Outcome {
  const c = checked(svc, s, 'SessionHandoff', content);
  svc.isOpen(s, 'handoff');
  if (!svc.store.isParticipant(s.id, c.subject)) refuse('NOT_A_PARTICIPANT', `the new convener ${c.subject} must be a participant first`);
  if (c.subject === s.convener) refuse('BAD_CREDENTIAL', `${c.subject} already is the convener`);
  // The new convener's quota takes the session over (a person's stays the person's).
  svc.store.patch(s.id, { convener: c.subject, ...(s.quota_key === s.convener ? { quota_key: c.subject } : {}) });
  return svc.turn(s, actor.did, 'handoff', { from: s.convener, to: c.subject, credential: c });
}
