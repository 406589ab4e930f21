// Which OACoP exchange a scheduling command opens (the USER_MSG factory's hook). Reads the
// Coordinator's store synchronously (SQLite) so the machines stay pure: the meeting to cancel
// and the assignee's open task travel in their input. `undefined` → not ours (the expert flow).
import type { AskedBack } from './follow-up.js';
import { randomUUID } from 'node:crypto';
import type { AnyStateMachine } from 'xstate';
import type { CoordinatorInput } from '../envelopes.js';
import { userMsg } from '../envelopes.js';
import { agendaMachine, TASK_STATE, within } from './agenda.js';
import { cantMakeMachine } from './cant-make.js';
import { deadlineText, nameOf } from './texts.js';
import { type MeetingsDeps, pickInvited, pickMeeting } from './pick-meeting.js';
import { pickTask } from './pick-task.js';
import { assignMachine, taskAnswerMachine } from './tasks.js';
import { cancelMachine } from './cancel.js';
import type { SchedulingIntent } from './parse.js';
import type { FreeTimeQuestion } from './free-time.js';
import { freeTimeMachine } from './free-time-machine.js';
import { type MoveQuestion, moveTarget, unmovable } from './move.js';
import { moveMachine } from './move-machine.js';
import { scheduleMachine } from './schedule.js';
import type { TaskRecord } from './store.js';
import { usageMachine } from './usage.js';
import { zoneMachine } from './zone-machine.js';
import { DEFAULT_ZONE, type Zones } from './zones.js';

/** The store's meetings (pick-meeting.ts MeetingsDeps), tasks and zones, and the machines. */
export interface SchedulingDeps extends MeetingsDeps {
  oacopTimeoutMs: number;
  /** Every open task of the assignee, the last assigned first (an answer may name one: pick-task.ts). */
  openTasks(assignee: string): TaskRecord[];
  /** "my tasks": the open tasks given to or by the person; absent = none known. */
  tasksOf?(person: string): TaskRecord[];
  /** Every person's time zone (zones.ts); absent = everyone in UTC. */
  zones?(): Zones;
  /** The machines with their `save` actors provided (main.ts); defaults: the bare machines. */
  machines?: Partial<Record<'schedule' | 'cancel' | 'move' | 'assign' | 'answer' | 'zone', AnyStateMachine>>;
  now?: () => Date;
  newThreadId?: () => string;
  /** One change at a time per meeting (meeting-locks.ts): false while another move or cancel of it runs. */
  claim?(threadId: string): boolean;
  /** What was asked back of a person (follow-up.ts): the factory completes their next line with it. */
  askedBack?(person: string): AskedBack | undefined;
  saveAskedBack?(person: string, asked: AskedBack): void;
}

/** An open task `assigner` gave `assignee` (a name) under the same title, ignoring case and spaces. */
function sameOpenTask(tasks: readonly TaskRecord[], assigner: string, assignee: string, title: string): TaskRecord | undefined {
  const norm = (x: string) => x.trim().replace(/\s+/g, ' ').toLowerCase();
  return tasks.find((x) => x.assigner === assigner && norm(nameOf(x.assignee)) === norm(assignee) && norm(x.title) === norm(title));
}

const beingChanged = (title: string) => `"${title}" is being changed right now (a move or cancel of it is under way). Try again in a moment.`;

export function schedulingRoute(
  command: SchedulingIntent | FreeTimeQuestion | MoveQuestion, base: CoordinatorInput, deps: SchedulingDeps,
): { machine: AnyStateMachine; input: unknown } | undefined {
  const m = deps.machines ?? {};
  const now = (deps.now ?? (() => new Date()))();
  const threadId = (deps.newThreadId ?? (() => `urn:uuid:${randomUUID()}`))();
  const { user } = userMsg(base.request);
  const zones = deps.zones?.() ?? {};
  const t = { oacopTimeoutMs: deps.oacopTimeoutMs, now: now.toISOString(), zones };
  if (!user && command.kind !== 'scheduling-error') {
    return { machine: usageMachine, input: { ...base, detail: 'I can only schedule for a person I know (the message carried no user).' } };
  }
  switch (command.kind) {
    case 'scheduling-error':
      // A question asked back ("How long …?"): the person's next line may answer it (follow-up.ts).
      if (command.askBack && user) deps.saveAskedBack?.(user, { ...command.askBack, at: now.getTime() });
      return { machine: usageMachine, input: { ...base, detail: command.detail } };
    case 'set-zone':
    case 'show-zone':
      return {
        machine: m.zone ?? zoneMachine,
        input: { ...base, now: t.now, current: zones[user as string] ?? DEFAULT_ZONE, ...(command.kind === 'set-zone' ? { zone: command.zone } : {}) },
      };
    case 'schedule':
      // "schedule 30 min with alice" from alice booked "Meeting with alice", alice its only participant.
      // With a room it is a room booking ("book a room for 5 …"): the asker and the room.
      if (!command.room && command.participants.every((p) => p === (user as string).split('@')[0])) {
        return { machine: usageMachine, input: { ...base, detail: 'You are in every meeting you book: who else should come? Say e.g. "schedule 30 min with bob tomorrow afternoon".' } };
      }
      return { machine: m.schedule ?? scheduleMachine, input: { ...base, ...t, wish: command, threadId } };
    case 'move-meeting': {
      const zone = zones[user as string] ?? DEFAULT_ZONE;
      const picked = pickMeeting(command, user as string, deps, { now: t.now, zone, verb: 'move', rest: command.to ? `to ${command.to}` : 'to <new time>' });
      if ('detail' in picked) return { machine: usageMachine, input: { ...base, detail: picked.detail, ...(picked.choices ? { choices: picked.choices } : {}) } };
      const { meeting } = picked;
      const why = unmovable(meeting, t.now, zone);
      if (why !== undefined || !meeting) return { machine: usageMachine, input: { ...base, detail: why ?? 'You have no booked meeting to move.' } };
      const target = moveTarget(meeting, command.to, now, zone);
      if (!target.ok) return { machine: usageMachine, input: { ...base, detail: target.detail } };
      if (deps.claim && !deps.claim(meeting.threadId)) return { machine: usageMachine, input: { ...base, detail: beingChanged(meeting.title) } };
      return { machine: m.move ?? moveMachine, input: { ...base, ...t, meeting, window: target.window } };
    }
    case 'free-time':
      return { machine: freeTimeMachine, input: { ...base, question: command, threadId, oacopTimeoutMs: t.oacopTimeoutMs, zones } };
    case 'agenda': {
      const all = { meetings: deps.meetingsAhead?.(user as string, t.now) ?? [], tasks: deps.tasksOf?.(user as string) ?? [] };
      const spanned = command.within ? within(all, command.within.window) : all;
      const meetings = command.next ? spanned.meetings.slice(0, 1) : spanned.meetings;
      // The numbers shown are the ones "cancel meeting <n>" and "move meeting <n>" mean (numbered()).
      if (!command.within && command.part !== 'tasks') deps.saveListing?.(user as string, meetings.map((x) => x.threadId));
      return {
        machine: agendaMachine,
        input: {
          ...base, part: command.part, person: user, meetings, tasks: spanned.tasks, zone: zones[user as string] ?? DEFAULT_ZONE, now: t.now,
          ...(command.within ? { label: command.within.label } : {}), ...(command.next ? { next: true } : {}),
        },
      };
    }
    case 'cancel-meeting': {
      const picked = pickMeeting(command, user as string, deps, { now: t.now, zone: zones[user as string] ?? DEFAULT_ZONE, verb: 'cancel' });
      if ('detail' in picked) return { machine: usageMachine, input: { ...base, detail: picked.detail, ...(picked.choices ? { choices: picked.choices } : {}) } };
      const { meeting } = picked;
      // Only a cancel that will send anything claims the meeting (cancel.ts answers the others at once).
      const sends = meeting && meeting.status === 'CONFIRMED' && Date.parse(meeting.slot.end) > now.getTime();
      if (sends && deps.claim && !deps.claim(meeting.threadId)) return { machine: usageMachine, input: { ...base, detail: beingChanged(meeting.title) } };
      return { machine: m.cancel ?? cancelMachine, input: { ...base, ...t, ...(meeting ? { meeting } : {}) } };
    }
    case 'cant-make': {
      const zone = zones[user as string] ?? DEFAULT_ZONE;
      const picked = pickInvited(command, user as string, deps, { now: t.now, zone });
      if ('detail' in picked) return { machine: usageMachine, input: { ...base, detail: picked.detail } };
      const { meeting } = picked;
      return { machine: cantMakeMachine, input: { ...base, meeting, person: user, zone, organizerZone: zones[meeting.organizer] ?? DEFAULT_ZONE, ...(command.reason ? { reason: command.reason } : {}) } };
    }
    case 'assign': {
      // The same task given again (a line sent twice, or forgotten): said, nothing new sent (it was a second task).
      const same = sameOpenTask(deps.tasksOf?.(user as string) ?? [], user as string, command.assignee, command.title);
      if (same) {
        const zone = zones[user as string] ?? DEFAULT_ZONE;
        const state = same.progress !== undefined && same.status === 'IN_PROGRESS' ? `${same.progress}% done` : TASK_STATE[same.status] ?? same.status.toLowerCase();
        return { machine: usageMachine, input: { ...base, detail: `${command.assignee} already has "${same.title}" from you, due ${deadlineText(same.deadline, zone)} (${state}): nothing new was sent. To give a second one, name it differently.` } };
      }
      return { machine: m.assign ?? assignMachine, input: { ...base, ...t, threadId, title: command.title, assignee: command.assignee, deadline: command.deadline } };
    }
    case 'task-answer': {
      const picked = pickTask(deps.openTasks(user as string), command.comment, command.names);
      if (!picked) return undefined;
      if ('detail' in picked) return { machine: usageMachine, input: { ...base, detail: picked.detail } };
      return { machine: m.answer ?? taskAnswerMachine, input: { ...base, ...t, task: picked.task, status: command.status, progress: command.progress, comment: picked.comment } };
    }
  }
}
