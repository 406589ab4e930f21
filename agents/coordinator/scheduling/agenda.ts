// "my meetings", "my tasks", "agenda": what lies ahead of a person, read from the Coordinator's
// own store (the meetings it booked, the tasks it carried, store.ts) by the route, and answered
// at once. Calendars are not asked: a meeting booked by another client is not in this list, and
// the reply says "I booked" to make that plain.
import type { CoordinatorInput } from '../envelopes.js';
import { displayName, personOfCalendar } from './oacop.js';
import { oneReplyMachine } from './one-reply.js';
import type { Window } from './slots.js';
import type { MeetingRecord, TaskRecord } from './store.js';
import { deadlineText, nameOf, when } from './texts.js';

export type AgendaPart = 'meetings' | 'tasks' | 'both';

export interface AgendaInput extends CoordinatorInput {
  part: AgendaPart;
  /** Bare JID of the person asking. */
  person: string;
  meetings: MeetingRecord[];
  tasks: TaskRecord[];
  zone: string;
  /** ISO instant: a task due before it is marked overdue. */
  now: string;
  /** "tomorrow", "this week", "Friday"…: the meetings are those days', the tasks those due by their end. */
  label?: string;
  /** "when is my next meeting?": `meetings` holds the next one only (or none). */
  next?: boolean;
}

/** The meetings that overlap `window`, and the tasks due by its end (overdue ones included). */
export function within(a: { meetings: MeetingRecord[]; tasks: TaskRecord[] }, window: Window): { meetings: MeetingRecord[]; tasks: TaskRecord[] } {
  const [lo, hi] = [Date.parse(window.start), Date.parse(window.end)];
  return {
    meetings: a.meetings.filter((m) => Date.parse(m.slot.end) > lo && Date.parse(m.slot.start) < hi),
    tasks: a.tasks.filter((t) => Date.parse(t.deadline) <= hi),
  };
}

export const TASK_STATE: Record<string, string> = {
  ASSIGNED: 'not answered yet', ACCEPTED: 'accepted', IN_PROGRESS: 'in progress', BLOCKED: 'blocked',
};

/** " tomorrow", " this week", " on Friday" (agenda-parse.ts labels a weekday by its name). */
const spanText = (label: string | undefined) => (!label ? ' ahead' : /^[A-Z]/.test(label) ? ` on ${label}` : ` ${label}`);

function meetingLines(i: AgendaInput): string[] {
  const span = spanText(i.label);
  if (i.meetings.length === 0) return [`You have no meetings${span} that I booked.`];
  // Numbered for "cancel meeting <n>" and "move meeting <n>" (route.ts), which take the list last shown: the whole one only.
  const lines = i.meetings.map((m, n) => {
    const people = m.participants.map((p) => nameOf(personOfCalendar(p, i.domain))).join(', ');
    return `${i.label ? '•' : `${n + 1}.`} ${m.title}: ${when(m.slot, i.zone)} (${people}${m.room ? `; room ${displayName(m.room)}` : ''})`;
  });
  const own = i.meetings.findIndex((m) => m.organizer === i.person);
  if (i.next) {
    const move = own === 0 ? ' To move or cancel it, say e.g. "move meeting 1 to 3pm" or "cancel meeting 1".' : '';
    return [`Your next meeting that I booked: ${(lines[0] as string).replace(/^1\. /, '')}.${move}`];
  }
  const hint = own >= 0 && !i.label ? [`To cancel or move one you booked, say e.g. "cancel meeting ${own + 1}" or "move meeting ${own + 1} to 3pm".`] : [];
  return [`Meetings${span} that I booked:`, ...lines, ...hint];
}

function taskLines(i: AgendaInput): string[] {
  const line = (t: TaskRecord, who: string) =>
    `• "${t.title}" ${who}, due ${deadlineText(t.deadline, i.zone)}${Date.parse(t.deadline) < Date.parse(i.now) ? ' (overdue)' : ''}: ${TASK_STATE[t.status] ?? t.status.toLowerCase()}${t.progress !== undefined && t.status === 'IN_PROGRESS' ? ` (${t.progress}%)` : ''}`;
  const mine = i.tasks.filter((t) => t.assignee === i.person);
  const given = i.tasks.filter((t) => t.assigner === i.person && t.assignee !== i.person);
  const due = i.label ? ` due by the end of ${i.label}` : '';
  if (mine.length === 0 && given.length === 0) return [`You have no open tasks${due}.`];
  return [
    ...(mine.length ? [`Your tasks${due}:`, ...mine.map((t) => line(t, `from ${nameOf(t.assigner)}`))] : []),
    ...(given.length ? [`Tasks you gave${due}:`, ...given.map((t) => line(t, `to ${nameOf(t.assignee)}`))] : []),
  ];
}

export function agendaText(i: AgendaInput): string {
  const parts = [
    ...(i.part !== 'tasks' ? [meetingLines(i).join('\n')] : []),
    ...(i.part !== 'meetings' ? [taskLines(i).join('\n')] : []),
  ];
  return parts.join('\n\n');
}

export const agendaMachine = oneReplyMachine<AgendaInput>('coordinator-agenda', (i) => ({
  text: agendaText(i),
  rich: {
    kind: 'agenda', meetings: i.meetings.map((m) => ({ threadId: m.threadId, title: m.title, slot: m.slot })),
    tasks: i.tasks.map((t) => ({ threadId: t.threadId, title: t.title, status: t.status, deadline: t.deadline })),
  },
}));
