// What a room answers (OACoP §8.2, docs/oacop.md "Rooms"): like a calendar, but bookings are
// accepted automatically when the slot is free and the room's constraints hold. minDuration is
// checked first (OACOP_UNSUPPORTED_CONSTRAINT), the cleaning gap through RoomContext.busy (a
// booking inside it → OACOP_CONFLICT). AssignTask books [startDate, endDate] (or the `duration`
// before the deadline) and answers TaskUpdate ACCEPTED.
import { Duration } from 'luxon';
import type { Envelope } from '../../shared/acl/index.js';
import type {
  AssignTask, CancelCollaboration, ConfirmCollaboration, OACoPObject, ProposeCollaboration,
} from '../../shared/contracts/index.js';
import type { Identity } from '../../shared/runtime/index.js';
import { cancel, confirm, durationMs, OACoPFailure, oacopError, type Outcome, propose } from '../../shared/oacop/index.js';
import type { RoomContext } from './context.js';

export const ROOM_KINDS = ['ProposeCollaboration', 'ConfirmCollaboration', 'CancelCollaboration', 'AssignTask'] as const;
export type RoomKind = (typeof ROOM_KINDS)[number];

const minutes = (ms: number) => Math.round(ms / 60000);

/** OACOP_UNSUPPORTED_CONSTRAINT when the booking is shorter than the room's minDuration. */
function checkMinDuration(ctx: RoomContext, ms: number, threadId: string): Outcome | undefined {
  const min = ctx.room.constraints.minDurationMin;
  if (min === undefined || ms >= min * 60000) return undefined;
  return oacopError('OACOP_UNSUPPORTED_CONSTRAINT', `room ${ctx.room.name} takes bookings of at least ${min} minutes (minDuration PT${min}M); asked for ${minutes(ms)}`, threadId);
}

function slotMs(slot: { start: string; end: string }): number {
  return Date.parse(slot.end) - Date.parse(slot.start);
}

/** AssignTask as a booking: the task's own slot, else `duration` ending at the deadline. */
function bookingOf(msg: AssignTask): { start: string; end: string } | undefined {
  const o = msg.object as OACoPObject & { title: string };
  if (o.startDate && o.endDate) return { start: o.startDate, end: o.endDate };
  if (!o.duration) return undefined;
  const d = Duration.fromISO(o.duration);
  if (!d.isValid) return undefined;
  return { start: new Date(Date.parse(msg.deadline) - d.toMillis()).toISOString(), end: msg.deadline };
}

function assignBooking(ctx: RoomContext, msg: AssignTask, requester: string): Outcome {
  const slot = bookingOf(msg);
  if (!slot || !(Date.parse(slot.end) > Date.parse(slot.start))) {
    return oacopError('OACOP_UNSUPPORTED_CONSTRAINT', 'a room booking needs object.startDate and object.endDate (or object.duration before the deadline)', msg.threadId);
  }
  const tooShort = checkMinDuration(ctx, slotMs(slot), msg.threadId);
  if (tooShort) return tooShort;
  const o = msg.object as OACoPObject & { title: string };
  const booked = confirm(ctx, {
    type: 'ConfirmCollaboration', threadId: msg.threadId, revision: msg.revision ?? 1, finalSlot: slot,
    object: { type: 'Event', title: o.title, ...(o.description ? { description: o.description } : {}) },
  }, requester);
  if (booked.performative !== 'INFORM') return booked;
  return {
    performative: 'INFORM',
    content: { type: 'TaskUpdate', threadId: msg.threadId, status: 'ACCEPTED', progress: 0, person: ctx.room.name, comment: `booked ${slot.start} – ${slot.end}` },
    note: { decision: 'booking: accepted', detail: slot },
  };
}

/** The answer to `request`, or null when none is due (REJECT-PROPOSAL). */
export function handleRoom(ctx: RoomContext, kind: RoomKind, request: Envelope, from: Identity): Outcome | null {
  const requester = ctx.requesterOf(request, from);
  try {
    switch (kind) {
      case 'ProposeCollaboration': {
        const msg = request.content as unknown as ProposeCollaboration;
        return checkMinDuration(ctx, durationMs(msg.object, msg.threadId), msg.threadId) ?? propose(ctx, msg, requester);
      }
      case 'ConfirmCollaboration': {
        const msg = request.content as unknown as ConfirmCollaboration;
        return checkMinDuration(ctx, slotMs(msg.finalSlot), msg.threadId) ?? confirm(ctx, msg, requester);
      }
      case 'CancelCollaboration':
        return cancel(ctx, request.content as unknown as CancelCollaboration, requester, request.performative === 'CANCEL');
      case 'AssignTask':
        return assignBooking(ctx, request.content as unknown as AssignTask, requester);
    }
  } catch (err) {
    if (err instanceof OACoPFailure) return err.outcome;
    throw err;
  }
}
