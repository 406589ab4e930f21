// "my meetings", "my tasks", "agenda": what lies ahead of a person, read from the Coordinator's
// own store (the meetings it booked, the tasks it carried, store.ts) by the route, and answered
// at once. Calendars are not asked: a meeting booked by another client is not in this list, and
// the reply says "I booked" to make that plain.
import { emit, setup } from 'xstate';
import type { ExchangeEmitted } from '../../../shared/runtime/index.js';
import { type CoordinatorInput, presenterReply } from '../envelopes.js';
import { displayName, personOfCalendar } from './oacop.js';
import type { MeetingRecord, TaskRecord } from './store.js';
import { deadlineText, when } from './texts.js';

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
}

const TASK_STATE: Record<string, string> = {
  ASSIGNED: 'not answered yet', ACCEPTED: 'accepted', IN_PROGRESS: 'in progress', BLOCKED: 'blocked',
};

const local = (jid: string) => jid.split('@')[0] ?? jid;

function meetingLines(i: AgendaInput): string[] {
  if (i.meetings.length === 0) return ['You have no meetings ahead that I booked.'];
  return ['Meetings ahead that I booked:', ...i.meetings.map((m) => {
    const people = m.participants.map((p) => local(personOfCalendar(p, i.domain))).join(', ');
    return `• ${m.title}: ${when(m.slot, i.zone)} (${people}${m.room ? `; room ${displayName(m.room)}` : ''})`;
  })];
}

function taskLines(i: AgendaInput): string[] {
  const line = (t: TaskRecord, who: string) =>
    `• "${t.title}" ${who}, due ${deadlineText(t.deadline, i.zone)}${Date.parse(t.deadline) < Date.parse(i.now) ? ' (overdue)' : ''}: ${TASK_STATE[t.status] ?? t.status.toLowerCase()}${t.progress !== undefined && t.status === 'IN_PROGRESS' ? ` (${t.progress}%)` : ''}`;
  const mine = i.tasks.filter((t) => t.assignee === i.person);
  const given = i.tasks.filter((t) => t.assigner === i.person && t.assignee !== i.person);
  if (mine.length === 0 && given.length === 0) return ['You have no open tasks.'];
  return [
    ...(mine.length ? ['Your tasks:', ...mine.map((t) => line(t, `from ${local(t.assigner)}`))] : []),
    ...(given.length ? ['Tasks you gave:', ...given.map((t) => line(t, `to ${local(t.assignee)}`))] : []),
  ];
}

export function agendaText(i: AgendaInput): string {
  const parts = [
    ...(i.part !== 'tasks' ? [meetingLines(i).join('\n')] : []),
    ...(i.part !== 'meetings' ? [taskLines(i).join('\n')] : []),
  ];
  return parts.join('\n\n');
}

export const agendaMachine = setup({
  types: {} as { input: AgendaInput; context: AgendaInput; emitted: ExchangeEmitted },
}).createMachine({
  id: 'coordinator-agenda',
  context: ({ input }) => input,
  initial: 'done',
  states: {
    done: {
      type: 'final',
      entry: emit(({ context }) => ({
        type: 'send' as const,
        envelope: presenterReply(context.request, agendaText(context), {
          kind: 'agenda', meetings: context.meetings.map((m) => ({ threadId: m.threadId, title: m.title, slot: m.slot })),
          tasks: context.tasks.map((t) => ({ threadId: t.threadId, title: t.title, status: t.status, deadline: t.deadline })),
        }),
      })),
    },
  },
});
