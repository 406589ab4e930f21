// Which booked meeting "cancel …" / "move …" means: the asker's last booked one, the n-th of the
// "my meetings" list they were last shown ("cancel meeting 2"), or the one described ("cancel my
// meeting with bob", "my 3pm meeting", "tomorrow's meeting": meeting-ref.ts; several → they are
// listed, numbered, to pick one; none → said so, never the last booked instead). Reads the
// Coordinator's store through the route's deps; only the person who booked a meeting may change it.
import { hasRef, type MeetingRef, refMatcher, refText } from './meeting-ref.js';
import type { MeetingRecord } from './store.js';
import { nameOf, when } from './texts.js';

export interface MeetingsDeps {
  lastMeeting(organizer: string): MeetingRecord | undefined;
  /** "my meetings": the meetings not yet over that the person booked or attends, soonest first; absent = none known. */
  meetingsAhead?(person: string, now: string): MeetingRecord[];
  /** The numbered list of meetings last shown to the person, and saving it; a meeting by thread. */
  listing?(person: string): string[] | undefined;
  saveListing?(person: string, threadIds: string[]): void;
  meeting?(threadId: string): MeetingRecord | undefined;
}

export type Picked = { meeting: MeetingRecord | undefined } | { detail: string; choices?: Array<{ label: string; say: string }> };

export interface Which extends MeetingRef {
  index?: number;
  /** The meeting by its thread (the strict line behind a choice, move.ts strictMove). */
  thread?: string;
}

export function pickMeeting(which: Which, user: string, deps: MeetingsDeps, o: { now: string; zone: string; verb: 'cancel' | 'move'; rest?: string }): Picked {
  if (which.thread !== undefined) return byThread(which.thread, user, deps, o.now, o.verb);
  if (which.index !== undefined) return numbered(which.index, user, deps, o.now, o.verb);
  if (hasRef(which)) return described(which, user, deps, o);
  return { meeting: deps.lastMeeting(user) };
}

/** Why a meeting can no longer be changed: 'cancelled', 'over', or undefined while it is ahead. */
const goneAs = (m: MeetingRecord, now: string): 'cancelled' | 'over' | undefined =>
  (m.status === 'CANCELLED' ? 'cancelled' : Date.parse(m.slot.end) <= Date.parse(now) ? 'over' : undefined);

/**
 * "cancel meeting 2", "move meeting 2 …": the second meeting of the "my meetings" list the asker
 * was last shown (agenda.ts numbers them; a meeting ending or booked since does not shift the
 * numbers), else of that list as it is now.
 */
function numbered(index: number, user: string, deps: MeetingsDeps, now: string, verb: string): Picked {
  const shown = deps.listing?.(user);
  const meetings = shown ? shown.flatMap((id) => deps.meeting?.(id) ?? []) : deps.meetingsAhead?.(user, now) ?? [];
  const meeting = meetings[index - 1];
  if (!meeting) {
    return { detail: meetings.length === 0 ? 'You have no meetings ahead that I booked.' : `There is no meeting ${index}: say "my meetings" to see them (1 to ${meetings.length}).` };
  }
  const gone = goneAs(meeting, now);
  if (gone) return { detail: `Meeting ${index} ("${meeting.title}") is already ${gone}. Say "my meetings" for the list as it is now.` };
  if (meeting.organizer !== user) return { detail: `Only ${nameOf(meeting.organizer)}, who booked "${meeting.title}", can ${verb} it.` };
  return { meeting };
}

/** A meeting named by its thread: only its organizer may change it, and only while it is ahead. */
function byThread(threadId: string, user: string, deps: MeetingsDeps, now: string, verb: string): Picked {
  const meeting = deps.meeting?.(threadId);
  if (!meeting || meeting.organizer !== user) return { detail: `You booked no such meeting. "my meetings" lists the ones you can ${verb}.` };
  const gone = goneAs(meeting, now);
  return gone ? { detail: `"${meeting.title}" is already ${gone}. Say "my meetings" for the ones ahead.` } : { meeting };
}

/** The person's meetings ahead (booked or attended) that `ref` describes, soonest first. */
const fitting = (ref: MeetingRef, user: string, deps: MeetingsDeps, o: { now: string; zone: string }): MeetingRecord[] =>
  (deps.meetingsAhead?.(user, o.now) ?? []).filter(refMatcher(ref, new Date(o.now), o.zone));

/** The asker's meetings ahead that fit the description: one is it; several are listed to pick from. */
function described(ref: MeetingRef, user: string, deps: MeetingsDeps, o: { now: string; zone: string; verb: string; rest?: string }): Picked {
  const fits = fitting(ref, user, deps, o);
  const mine = fits.filter((m) => m.organizer === user);
  const what = refText(ref);
  if (mine.length === 0) {
    const other = fits[0];
    if (other) return { detail: `Only ${nameOf(other.organizer)}, who booked "${other.title}" (${when(other.slot, o.zone)}), can ${o.verb} it.` };
    return { detail: `You have no meeting ahead${what ? ` ${what}` : ''} that you booked. "my meetings" lists the ones you have.` };
  }
  // "my next meeting": the soonest (meetingsAhead lists them soonest first).
  if (mine.length === 1 || ref.next) return { meeting: mine[0] };
  deps.saveListing?.(user, mine.map((m) => m.threadId));
  const rest = o.rest ? ` ${o.rest}` : '';
  // With nothing left to ask (a cancel, or a move with its new time), each meeting is a choice: "2" picks it.
  const whole = !rest.includes('<');
  return {
    detail: [
      `You have ${mine.length} meetings ahead${what ? ` ${what}` : ''}:`,
      ...mine.map((m, i) => `${i + 1}. ${m.title}: ${when(m.slot, o.zone)}`),
      whole ? `Which one? Reply its number, or say e.g. "${o.verb} meeting 1${rest}".` : `Which one? Say e.g. "${o.verb} meeting 1${rest}".`,
    ].join('\n'),
    ...(whole ? { choices: mine.map((m, i) => ({ label: `${m.title}: ${when(m.slot, o.zone)}`, say: `${o.verb} meeting ${i + 1}${rest}` })) } : {}),
  };
}

/**
 * "I can't make the meeting on monday" (cant-make.ts): the one meeting ahead, booked by someone
 * else, that the line describes; several, none, or one the person booked themselves are said.
 */
export function pickInvited(ref: MeetingRef, user: string, deps: MeetingsDeps, o: { now: string; zone: string }): { meeting: MeetingRecord } | { detail: string } {
  const fits = fitting(ref, user, deps, o);
  const theirs = fits.filter((m) => m.organizer !== user);
  if (theirs.length === 1) return { meeting: theirs[0] as MeetingRecord };
  const what = refText(ref);
  if (theirs.length > 1) {
    return {
      detail: [`You are in ${theirs.length} meetings ahead${what ? ` ${what}` : ''} that others booked:`,
        ...theirs.map((m, i) => `${i + 1}. ${m.title}: ${when(m.slot, o.zone)} (booked by ${nameOf(m.organizer)})`),
        'Which one? Say it with its day or time, e.g. "I can\'t make the meeting on friday at 10".'].join('\n'),
    };
  }
  if (fits.length > 0) return { detail: 'You booked that meeting yourself: "cancel meeting 1" or "move meeting 1 to 3pm" ("my meetings" lists them).' };
  return { detail: `You are in no meeting ahead${what ? ` ${what}` : ''} that someone else booked. "my meetings" lists the ones you have.` };
}
