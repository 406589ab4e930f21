// The Coordinator's OACoP envelopes (docs/oacop.md table): ontology 'OACoP', the §7 message as
// content, content.sender = the person on whose behalf we ask. Reading answers back: slots of a
// PROPOSE, the OACoPError code of a FAILURE. Pure helpers.
import { type Envelope, makeEnvelope, type Performative } from '../../../shared/acl/index.js';
import type { AgentProfile, DirectoryEntry } from '../../../shared/contracts/index.js';
import { calendarsDomain } from '../../../shared/runtime/index.js';
import { isoDuration, type Window } from './slots.js';

export const ONTOLOGY = 'OACoP';

export function oacop(o: { performative: Performative; self: string; to: string; conversationId: string; content: object; inReplyTo?: string }): Envelope {
  return makeEnvelope({
    performative: o.performative, sender: o.self, receiver: o.to, conversation_id: o.conversationId, ontology: ONTOLOGY, content: o.content,
    ...(o.inReplyTo !== undefined ? { in_reply_to: o.inReplyTo } : {}),
  });
}

export interface Meeting {
  threadId: string;
  title: string;
  durationMin: number;
  window: Window;
  /** Bare JID of the person who asked (content.sender). */
  requester: string;
}

export function propose(m: Meeting, revision: number, o: { participants: string[]; required: string[]; room?: string }): object {
  return {
    type: 'ProposeCollaboration', threadId: m.threadId, revision, sender: m.requester,
    object: { type: 'Event', title: m.title, duration: isoDuration(m.durationMin) },
    constraints: { timeWindow: m.window, participants: o.participants, requiredParticipants: o.required, ...(o.room ? { room: o.room } : {}) },
  };
}

export function confirm(m: Meeting, revision: number, slot: Window, location?: string): object {
  return {
    type: 'ConfirmCollaboration', threadId: m.threadId, revision, finalSlot: slot, sender: m.requester,
    object: { type: 'Event', title: m.title, duration: isoDuration(m.durationMin), startDate: slot.start, endDate: slot.end, ...(location ? { location } : {}) },
  };
}

export function cancel(threadId: string, revision: number, reason: string, requester: string): object {
  return { type: 'CancelCollaboration', threadId, revision, reason: reason.slice(0, 500), sender: requester };
}

/** Slots of a PROPOSE ProposalResponse (INTERESTED/TENTATIVE); [] for anything else. */
export function offeredSlots(env: Envelope): Window[] | undefined {
  const c = env.content as { type?: unknown; status?: unknown; availableSlots?: unknown };
  if (env.performative !== 'PROPOSE' || c.type !== 'ProposalResponse' || c.status === 'DECLINED') return undefined;
  return Array.isArray(c.availableSlots) ? (c.availableSlots as Window[]) : [];
}

/** OACOP_CONFLICT, OACOP_STALE_REVISION…, a FIPA reason, or the performative. */
export function errorCode(env: Envelope): string {
  const c = env.content as { code?: unknown; reason?: unknown; status?: unknown };
  if (typeof c.code === 'string') return c.code;
  if (typeof c.reason === 'string') return c.reason;
  if (typeof c.status === 'string') return c.status;
  return env.performative;
}

export const isAck = (env: Envelope, status: string) =>
  env.performative === 'INFORM' && env.content.type === 'OACoPAck' && env.content.status === status;

/** Profiles out of an INFORM DIRECTORY, or undefined when the answer is something else. */
export function directoryProfiles(env: Envelope): AgentProfile[] | undefined {
  if (env.performative !== 'INFORM' || env.content.type !== 'DIRECTORY') return undefined;
  return ((env.content.agents ?? []) as DirectoryEntry[]).map((a) => a.profile);
}

/** "bob" → the calendar agent whose topics name bob (docs/oacop.md) or that is called calendar-bob. */
export function calendarOf(profiles: readonly AgentProfile[], person: string): AgentProfile | undefined {
  const p = person.toLowerCase();
  return profiles.find((x) => x.name === `calendar-${p}`) ?? profiles.find((x) => (x.topics ?? []).some((t) => t.toLowerCase() === p));
}

/**
 * The person a calendar agent belongs to: calendar-bob (a calendar process) and
 * bob@calendars.<domain> (a virtual calendar of the calendar host) → bob@<domain>.
 */
export function personOfCalendar(name: string, domain: string): string {
  const virtual = `@${calendarsDomain(domain)}`;
  if (name.endsWith(virtual)) return `${name.slice(0, -virtual.length)}@${domain}`;
  return `${name.replace(/^calendar-/, '')}@${domain}`;
}

/** What people read for an agent: bob for calendar-bob and bob@calendars.<domain>, atlas for room-atlas. */
export const displayName = (agent: string) => agent.replace(/^calendar-/, '').replace(/^room-/, '').replace(/@calendars\..+$/, '');

/** INFORM NOTIFY_USER to the Presenter: a line for a person who did not ask (contracts/notify-user.json). */
export function notifyUser(self: string, conversationId: string, user: string, text: string, rich?: object): Envelope {
  return makeEnvelope({
    performative: 'INFORM', sender: self, receiver: 'Presenter', conversation_id: conversationId,
    content: { type: 'NOTIFY_USER', user, text: text.slice(0, 32000), ...(rich ? { rich } : {}) },
  });
}
