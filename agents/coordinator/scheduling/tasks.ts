// Tasks (OACoP §4, docs/oacop.md), three small exchanges:
//   assign:  "assign 'Q1 report' to bob by Friday" → DESCRIBE CALENDAR → REQUEST AssignTask →
//            OACoPAck TASK_RECORDED → saved → bob told (NOTIFY_USER) → the assigner answered.
//   answer:  bob's "accept" / "50% draft started" / "done" → REQUEST TaskDecision → INFORM
//            TaskUpdate → saved → the assigner told → bob answered.
//   update:  a TaskUpdate a calendar opens on its own → saved → the assigner told.
import { assign, emit, enqueueActions, fromPromise, setup } from 'xstate';
import type { Envelope } from '../../../shared/acl/index.js';
import type { ChildSendEvent, ExchangeEmitted, ExchangeInput, InboundEvent } from '../../../shared/runtime/index.js';
import { type CoordinatorInput, isCancelOf, presenterReply } from '../envelopes.js';
import { forwardToLookup, lookupInput, REGISTRY_LOOKUP, registryLookupMachine, relayChildSend } from '../registry-lookup.js';
import { calendarOf, directoryProfiles, errorCode, isAck, notifyUser, oacop, personOfCalendar } from './oacop.js';
import type { TaskStatus } from './parse.js';
import type { TaskRecord } from './store.js';
import { deadlineText, directoryDownText, nameOf, taskUpdateText, unknownPeopleText } from './texts.js';
import { type Zones, zoneOf } from './zones.js';

const saveActor = fromPromise<void, TaskRecord>(async () => {
  throw new Error('provided by main.ts');
});
const reply = (request: Envelope, text: string, rich: object) => ({ type: 'send' as const, envelope: presenterReply(request, text, rich) });

export interface AssignInput extends CoordinatorInput {
  title: string;
  assignee: string;
  deadline: string;
  threadId: string;
  oacopTimeoutMs: number;
  zones?: Zones;
}

interface AssignCtx extends AssignInput {
  assigner: string;
  ask?: Envelope;
  agent?: string;
}

export const assignMachine = setup({
  types: {} as { input: AssignInput; context: AssignCtx; events: InboundEvent | ChildSendEvent; emitted: ExchangeEmitted },
  actors: { save: saveActor, registryLookup: registryLookupMachine },
  delays: { OACOP_TIMEOUT: ({ context }) => context.oacopTimeoutMs },
  guards: { cancelled: ({ context, event }) => event.type === 'inbound' && isCancelOf(event, context.request) },
}).createMachine({
  id: 'coordinator-assign-task',
  context: ({ input }) => ({ ...input, assigner: String(input.request.content.user ?? '') }),
  on: { 'child.send': { actions: relayChildSend() } },
  initial: 'lookup',
  states: {
    // DESCRIBE CALENDAR through the shared DF-lookup child (registry-lookup.ts): any answer is read for the assignee's calendar.
    lookup: {
      invoke: {
        id: REGISTRY_LOOKUP, src: 'registryLookup',
        input: lookupInput(() => [{ type: 'DESCRIBE', capability: 'CALENDAR' }], (c: AssignCtx) => c.timeouts.registryTimeoutMs),
        onDone: [
          { guard: ({ event }) => event.output.timedOut, target: 'done', actions: emit(({ context }) => reply(context.request, directoryDownText, { kind: 'task', status: 'directory-unavailable' })) },
          {
            target: 'resolved',
            actions: assign(({ context, event }) => {
              const cal = calendarOf(directoryProfiles(event.output.answers[0] as Envelope) ?? [], context.assignee);
              return cal ? { agent: cal.name } : {};
            }),
          },
        ],
      },
      on: { inbound: [{ guard: 'cancelled', target: 'done' }, { actions: forwardToLookup() }] },
    },
    resolved: {
      always: [
        { guard: ({ context }) => context.agent === undefined, target: 'done', actions: emit(({ context }) => reply(context.request, unknownPeopleText([context.assignee]), { kind: 'task', status: 'unknown-assignee' })) },
        { target: 'assigning' },
      ],
    },
    assigning: {
      entry: [
        assign(({ context }) => ({
          ask: oacop({
            performative: 'REQUEST', self: context.self, to: context.agent as string, conversationId: context.request.conversation_id,
            content: { type: 'AssignTask', threadId: context.threadId, object: { type: 'Task', title: context.title }, deadline: context.deadline, revision: 1, sender: context.assigner },
          }),
        })),
        emit(({ context }) => ({ type: 'send' as const, envelope: context.ask as Envelope })),
      ],
      on: {
        inbound: [
          { guard: 'cancelled', target: 'done' },
          { guard: ({ context, event }) => event.envelope.in_reply_to === context.ask?.reply_with && isAck(event.envelope, 'TASK_RECORDED'), target: 'saving' },
          {
            guard: ({ context, event }) => event.envelope.in_reply_to === context.ask?.reply_with,
            target: 'done',
            actions: emit(({ context, event }) => reply(context.request, `${context.assignee}'s calendar did not take the task (${errorCode(event.envelope)}).`, { kind: 'task', status: 'refused', code: errorCode(event.envelope) })),
          },
        ],
      },
      after: { OACOP_TIMEOUT: { target: 'done', actions: emit(({ context }) => reply(context.request, `${context.assignee}'s calendar did not answer, so the task was not assigned.`, { kind: 'task', status: 'timeout' })) } },
    },
    saving: {
      invoke: {
        src: 'save',
        input: ({ context }) => ({
          threadId: context.threadId, assigner: context.assigner, assignee: personOfCalendar(context.agent as string, context.domain),
          agent: context.agent as string, title: context.title, deadline: context.deadline, status: 'ASSIGNED' as const,
        }),
        onDone: 'told',
        onError: { target: 'done', actions: emit(({ context }) => reply(context.request, 'The task was recorded in the calendar, but I could not keep track of it.', { kind: 'task', status: 'not-saved' })) },
      },
    },
    told: {
      entry: enqueueActions(({ context, enqueue }) => {
        const assignee = personOfCalendar(context.agent as string, context.domain);
        const due = deadlineText(context.deadline, zoneOf(context.zones, context.assigner));
        enqueue.emit({
          type: 'send',
          envelope: notifyUser(context.self, context.threadId, assignee,
            `${nameOf(context.assigner)} assigned you a task: "${context.title}", due ${deadlineText(context.deadline, zoneOf(context.zones, assignee))}.\nAnswer "accept", "decline", your progress (e.g. "50% draft started"), or "done"; with several tasks open, name this one (done "${context.title}").`,
            {
              kind: 'task', status: 'assigned', threadId: context.threadId, title: context.title, deadline: context.deadline, assigner: context.assigner,
              // Asked as a form where the client has forms (agents/presenter/choices.ts); the same words typed work everywhere.
              choices: [{ label: 'Accept', say: 'accept' }, { label: 'Decline', say: 'decline' }, { label: 'Done', say: 'done' }],
            }),
        });
        enqueue.emit(reply(context.request, `Assigned "${context.title}" to ${context.assignee}, due ${due}. I told ${context.assignee} and will let you know each time they report.`,
          { kind: 'task', status: 'assigned', threadId: context.threadId, assignee, deadline: context.deadline }));
      }),
      always: 'done',
    },
    done: { type: 'final' },
  },
});

export interface AnswerInput extends CoordinatorInput {
  /** The assignee's open task (the factory read it from the store). */
  task: TaskRecord;
  status: TaskStatus;
  progress?: number;
  comment?: string;
  oacopTimeoutMs: number;
}

interface AnswerCtx extends AnswerInput {
  ask?: Envelope;
  update?: { status: TaskStatus; progress?: number; comment?: string };
}

/** Tell the assigner of a TaskUpdate (also used by the calendar-opened TaskUpdate). */
function tellAssigner(self: string, task: TaskRecord, u: { status: string; progress?: number; comment?: string }): ExchangeEmitted {
  return {
    type: 'send',
    envelope: notifyUser(self, task.threadId, task.assigner, taskUpdateText({ subject: nameOf(task.assignee), title: task.title, ...u }),
      { kind: 'task', status: 'update', threadId: task.threadId, update: u }),
  };
}

function updateOf(env: Envelope): { status: TaskStatus; progress?: number; comment?: string } {
  const c = env.content as { status: TaskStatus; progress?: number; comment?: string };
  return { status: c.status, ...(typeof c.progress === 'number' ? { progress: c.progress } : {}), ...(typeof c.comment === 'string' && c.comment ? { comment: c.comment } : {}) };
}

export const taskAnswerMachine = setup({
  types: {} as { input: AnswerInput; context: AnswerCtx; events: InboundEvent; emitted: ExchangeEmitted },
  actors: { save: saveActor },
  delays: { OACOP_TIMEOUT: ({ context }) => context.oacopTimeoutMs },
}).createMachine({
  id: 'coordinator-task-answer',
  context: ({ input }) => input,
  initial: 'deciding',
  states: {
    deciding: {
      entry: [
        assign(({ context }) => ({
          ask: oacop({
            performative: 'REQUEST', self: context.self, to: context.task.agent, conversationId: context.request.conversation_id,
            content: {
              type: 'TaskDecision', threadId: context.task.threadId, status: context.status,
              ...(context.progress !== undefined ? { progress: context.progress } : {}), ...(context.comment ? { comment: context.comment.slice(0, 2000) } : {}),
            },
          }),
        })),
        emit(({ context }) => ({ type: 'send' as const, envelope: context.ask as Envelope })),
      ],
      on: {
        inbound: [
          { guard: ({ context, event }) => isCancelOf(event, context.request), target: 'done' },
          {
            guard: ({ context, event }) => event.envelope.in_reply_to === context.ask?.reply_with && event.envelope.content.type === 'TaskUpdate',
            target: 'saving',
            actions: assign(({ event }) => ({ update: updateOf(event.envelope) })),
          },
          {
            guard: ({ context, event }) => event.envelope.in_reply_to === context.ask?.reply_with,
            target: 'done',
            actions: emit(({ context, event }) => reply(context.request, `Your calendar could not record that (${errorCode(event.envelope)}).`, { kind: 'task', status: 'refused', code: errorCode(event.envelope) })),
          },
        ],
      },
      after: { OACOP_TIMEOUT: { target: 'done', actions: emit(({ context }) => reply(context.request, 'Your calendar did not answer, so I could not record that. Please try again.', { kind: 'task', status: 'timeout' })) } },
    },
    saving: {
      invoke: {
        src: 'save',
        input: ({ context }) => {
          const u = context.update as NonNullable<AnswerCtx['update']>;
          return { ...context.task, status: u.status, ...(u.progress !== undefined ? { progress: u.progress } : {}) };
        },
        onDone: 'told',
        onError: { target: 'told', actions: emit(({ event }) => ({ type: 'note' as const, decision: 'task-not-saved', detail: { err: String(event.error) } })) },
      },
    },
    told: {
      entry: enqueueActions(({ context, enqueue }) => {
        const u = context.update as NonNullable<AnswerCtx['update']>;
        enqueue.emit(tellAssigner(context.self, context.task, u));
        enqueue.emit(reply(context.request, `Noted: ${taskUpdateText({ subject: 'you', title: context.task.title, ...u })} I told ${nameOf(context.task.assigner)}.`,
          { kind: 'task', status: 'updated', threadId: context.task.threadId, update: u }));
      }),
      always: 'done',
    },
    done: { type: 'final' },
  },
});

export interface UpdateInput extends ExchangeInput {
  task?: TaskRecord;
}

/** INFORM TaskUpdate opened by a calendar: the assigner is told; an unknown thread is refused. */
export const taskUpdateMachine = setup({
  types: {} as { input: UpdateInput; context: UpdateInput; emitted: ExchangeEmitted },
  actors: { save: saveActor },
}).createMachine({
  id: 'coordinator-task-update',
  context: ({ input }) => input,
  initial: 'checking',
  states: {
    checking: {
      always: [
        {
          guard: ({ context }) => context.task === undefined || context.task.agent !== context.from.name,
          target: 'done',
          actions: emit(({ context }) => ({
            type: 'send' as const,
            envelope: oacop({
              performative: 'FAILURE', self: context.self, to: context.request.sender, conversationId: context.request.conversation_id, inReplyTo: context.request.reply_with,
              content: { type: 'OACoPError', code: 'OACOP_STALE_REVISION', message: `no task ${String(context.request.content.threadId)} assigned to ${context.from.name} here`, threadId: String(context.request.content.threadId).slice(0, 300) },
            }),
          })),
        },
        { target: 'saving' },
      ],
    },
    saving: {
      invoke: {
        src: 'save',
        input: ({ context }) => {
          const u = updateOf(context.request);
          return { ...(context.task as TaskRecord), status: u.status, ...(u.progress !== undefined ? { progress: u.progress } : {}) };
        },
        onDone: { target: 'done', actions: emit(({ context }) => tellAssigner(context.self, context.task as TaskRecord, updateOf(context.request))) },
        onError: { target: 'done', actions: emit(({ context }) => tellAssigner(context.self, context.task as TaskRecord, updateOf(context.request))) },
      },
    },
    done: { type: 'final' },
  },
});
