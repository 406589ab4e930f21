// The task flow at a worker's calendar (oacop-rfc §4): AssignTask is stored as a VTODO
// NEEDS-ACTION and acknowledged (TASK_RECORDED) — the person, not the agent, decides; the
// decision arrives later as REQUEST TaskDecision from the Coordinator (docs/oacop.md) and is
// answered with INFORM TaskUpdate (§4.2). Each change raises the task's revision (= SEQUENCE).
import { describeItem, todoComponent, type NewTodo } from '../../shared/calendar/index.js';
import type { AssignTask, TaskDecision } from '../../shared/contracts/index.js';
import { type CalendarContext, checkBurn, oacopError, parleyError, type Outcome } from '../../shared/oacop/index.js';

type Status = TaskDecision['status'];

/** OACoP status → RFC 5545 VTODO STATUS; ACCEPTED/BLOCKED have none and travel as X-OACOP-STATUS. */
const VTODO_STATUS: Record<Status, NewTodo['status']> = {
  ACCEPTED: 'NEEDS-ACTION',
  DECLINED: 'CANCELLED',
  IN_PROGRESS: 'IN-PROCESS',
  COMPLETED: 'COMPLETED',
  BLOCKED: 'IN-PROCESS',
};

interface TaskObject {
  title: string;
  deadline: string;
  description?: string;
  parentTaskId?: string;
}

export function assignTask(ctx: CalendarContext, msg: AssignTask, requester: string): Outcome {
  const trusted = ctx.isTrusted(requester);
  if (!trusted && !ctx.allowRate(requester)) return parleyError('RATE_LIMITED', `too many requests from ${requester}; try later (oacop-rfc §6.1)`);
  const revision = msg.revision ?? 1;
  const local = ctx.store.thread(msg.threadId);
  if (local && revision <= local.revision) {
    return oacopError('OACOP_STALE_REVISION', `task revision ${revision} is not newer than ${local.revision}`, msg.threadId, local.revision);
  }
  if (!trusted) checkBurn(ctx, msg.proofOfBurn?.txId, requester, msg.threadId);
  const object: TaskObject = {
    title: msg.object.title,
    deadline: msg.deadline,
    ...(msg.object.description !== undefined ? { description: msg.object.description } : {}),
    ...(msg.object.parentTaskId !== undefined ? { parentTaskId: msg.object.parentTaskId } : {}),
  };
  writeTodo(ctx, msg.threadId, revision, object, { status: 'NEEDS-ACTION' });
  ctx.store.saveThread({ threadId: msg.threadId, revision, status: 'TASK', requester, object: { ...object }, slot: null, updated: ctx.nowIso() });
  return {
    performative: 'INFORM',
    content: { type: 'OACoPAck', threadId: msg.threadId, status: 'TASK_RECORDED', revision, uid: msg.threadId, person: ctx.config.person },
    note: { decision: 'task: recorded NEEDS-ACTION', detail: { title: object.title, deadline: object.deadline } },
  };
}

export function decideTask(ctx: CalendarContext, msg: TaskDecision): Outcome {
  const local = ctx.store.thread(msg.threadId);
  if (local?.status !== 'TASK') return parleyError('INVALID_ARGS', `no task ${msg.threadId} in ${ctx.config.person}'s calendar`);
  const revision = local.revision + 1;
  const object = local.object as unknown as TaskObject;
  const progress = msg.status === 'COMPLETED' ? 100 : msg.progress;
  writeTodo(ctx, msg.threadId, revision, object, {
    status: VTODO_STATUS[msg.status],
    ...(progress !== undefined ? { percent: progress } : {}),
    ...(msg.status === 'ACCEPTED' || msg.status === 'BLOCKED' ? { oacopStatus: msg.status } : {}),
    ...(msg.comment !== undefined ? { comment: msg.comment } : {}),
  });
  ctx.store.saveThread({ ...local, revision, updated: ctx.nowIso() });
  return {
    performative: 'INFORM',
    content: {
      type: 'TaskUpdate', threadId: msg.threadId, status: msg.status, person: ctx.config.person,
      ...(progress !== undefined ? { progress } : {}),
      ...(msg.comment !== undefined ? { comment: msg.comment } : {}),
    },
    note: { decision: `task: ${msg.status}`, detail: { revision } },
  };
}

function writeTodo(ctx: CalendarContext, uid: string, sequence: number, object: TaskObject, state: Pick<NewTodo, 'status' | 'percent' | 'oacopStatus' | 'comment'>): void {
  const comp = todoComponent({
    uid, sequence, summary: object.title, due: object.deadline, ...state,
    ...(object.description !== undefined ? { description: object.description } : {}),
    ...(object.parentTaskId !== undefined ? { relatedTo: object.parentTaskId } : {}),
  });
  ctx.store.upsert(describeItem(comp), { force: true });
}
