// The scheduling flow at a participant's calendar (oacop-rfc §3): ProposeCollaboration →
// ProposalResponse with free slots only (§1.1, §6.1), ConfirmCollaboration → VEVENT with
// SEQUENCE = revision or OACOP_CONFLICT, CancelCollaboration; revision rule §3.4.
import { Duration } from 'luxon';
import {
  freeIntervals, isFree, isoSlot, describeItem, eventComponent, IcalError, outsideHoursComment, parseComponent,
  type Component, fuzzySlots, type ThreadState,
} from '../calendar/index.js';
import type {
  CancelCollaboration, ConfirmCollaboration, OACoPObject, ProposeCollaboration,
} from '../contracts/index.js';
import type { CalendarContext } from './context.js';
import { fail, oacopError, parleyError, type Outcome } from './outcome.js';
import { checkBurn } from './trust.js';

const MAX_WINDOW_MS = 62 * 86_400_000;
const MAX_TRUSTED_SLOTS = 50;
const DEFAULT_DURATION_MS = 30 * 60_000;

export function durationMs(object: OACoPObject | undefined, threadId: string): number {
  if (object?.duration === undefined) return DEFAULT_DURATION_MS;
  const d = Duration.fromISO(object.duration);
  const ms = d.isValid ? d.toMillis() : NaN;
  if (!Number.isFinite(ms) || ms <= 0) fail('OACOP_UNSUPPORTED_CONSTRAINT', `duration ${object.duration} is not a positive ISO 8601 duration`, threadId);
  return ms;
}

function interval(slot: { start: string; end: string } | undefined, what: string, threadId: string): { start: number; end: number } {
  if (!slot) return fail('OACOP_UNSUPPORTED_CONSTRAINT', `${what} is required`, threadId);
  const start = Date.parse(slot.start);
  const end = Date.parse(slot.end);
  if (!(end > start)) fail('OACOP_UNSUPPORTED_CONSTRAINT', `${what} must end after it starts`, threadId);
  return { start, end };
}

/** object.icalComponent must parse (oacop-rfc §5 OACOP_INVALID_ICAL). */
export function templateOf(object: OACoPObject | Record<string, unknown> | undefined, threadId: string): Component | undefined {
  const text = object?.icalComponent;
  if (typeof text !== 'string') return undefined;
  try {
    return parseComponent(text);
  } catch (err) {
    return fail('OACOP_INVALID_ICAL', err instanceof IcalError ? err.message : `icalComponent: ${(err as Error).message}`, threadId);
  }
}

function stale(threadId: string, incoming: number, local: ThreadState): Outcome {
  return oacopError('OACOP_STALE_REVISION', `revision ${incoming} is not newer than ${local.revision} (${local.status}); nothing changed`, threadId, local.revision);
}

export function propose(ctx: CalendarContext, msg: ProposeCollaboration, requester: string): Outcome {
  const trusted = ctx.isTrusted(requester);
  if (!trusted && !ctx.allowRate(requester)) return parleyError('RATE_LIMITED', `too many requests from ${requester}; try later (oacop-rfc §6.1)`);
  const local = ctx.store.thread(msg.threadId);
  // §3.4: lower is stale; equal is a repeated question while still negotiating, stale once decided.
  if (local && (msg.revision < local.revision || (msg.revision === local.revision && local.status !== 'PROPOSED'))) return stale(msg.threadId, msg.revision, local);
  const window = interval(msg.constraints?.timeWindow, 'constraints.timeWindow', msg.threadId);
  if (window.end - window.start > MAX_WINDOW_MS) fail('OACOP_UNSUPPORTED_CONSTRAINT', 'timeWindow longer than 62 days', msg.threadId);
  const dur = durationMs(msg.object, msg.threadId);
  templateOf(msg.object, msg.threadId);
  if (!trusted) checkBurn(ctx, msg.proofOfBurn?.txId, requester, msg.threadId);

  const free = freeIntervals(ctx.config.workingHours, window, ctx.busy(window, msg.threadId), dur);
  const slots = trusted ? free.slice(0, MAX_TRUSTED_SLOTS) : fuzzySlots(free, dur, ctx.deps.rng);
  ctx.store.saveThread({
    threadId: msg.threadId, revision: msg.revision, status: 'PROPOSED', requester,
    object: msg.object as Record<string, unknown>, slot: local?.slot ?? null, updated: ctx.nowIso(),
  });
  const status = slots.length > 0 ? 'INTERESTED' : 'DECLINED';
  // A trusted requester learns why when the window holds no working time at all (a Sunday):
  // "busy" would be untrue, and the hours are no secret to the people who book them.
  const comment = status === 'DECLINED' && trusted ? outsideHoursComment(ctx.config.workingHours, window) : undefined;
  return {
    performative: status === 'INTERESTED' ? 'PROPOSE' : 'REFUSE',
    content: {
      type: 'ProposalResponse', threadId: msg.threadId, respondingToRevision: msg.revision, status, availableSlots: slots.map(isoSlot),
      ...(comment ? { comment } : {}),
    },
    note: { decision: `propose: ${status}`, detail: { slots: slots.length, trusted, free: free.length } },
  };
}

export function confirm(ctx: CalendarContext, msg: ConfirmCollaboration, requester: string): Outcome {
  const local = ctx.store.thread(msg.threadId);
  if (local && msg.revision <= local.revision) return stale(msg.threadId, msg.revision, local);
  // §6.2: an untrusted requester paid for its proposal; a Confirm alone is an unpaid invitation.
  if (!ctx.isTrusted(requester) && (local?.status !== 'PROPOSED' || local.requester !== requester)) {
    return oacopError('OACOP_PAYMENT_REQUIRED', 'no paid ProposeCollaboration from this requester on this thread', msg.threadId);
  }
  const slot = interval(msg.finalSlot, 'finalSlot', msg.threadId);
  const object = { ...(local?.object ?? {}), ...(msg.object ?? {}) } as Record<string, unknown>;
  const template = templateOf(object, msg.threadId);
  return ctx.store.transaction(() => {
    const free = freeIntervals(ctx.config.workingHours, slot, ctx.busy(slot, msg.threadId), slot.end - slot.start);
    if (!isFree(slot, free)) return oacopError('OACOP_CONFLICT', 'the slot is no longer free (or lies outside working hours)', msg.threadId);
    const iso = isoSlot(slot);
    const comp = eventComponent({
      uid: msg.threadId, sequence: msg.revision, start: iso.start, end: iso.end,
      summary: typeof object.title === 'string' ? object.title : 'Meeting',
      ...(typeof object.description === 'string' ? { description: object.description } : {}),
      ...(typeof object.location === 'string' ? { location: object.location } : {}),
      ...(template ? { template } : {}),
    });
    ctx.store.upsert(describeItem(comp), { force: true });
    ctx.store.saveThread({ threadId: msg.threadId, revision: msg.revision, status: 'CONFIRMED', requester: local?.requester ?? requester, object, slot: iso, updated: ctx.nowIso() });
    return {
      performative: 'INFORM',
      content: { type: 'OACoPAck', threadId: msg.threadId, status: 'CONFIRMED', revision: msg.revision, uid: msg.threadId, person: ctx.config.person, slot: iso },
      note: { decision: 'confirm: written', detail: { sequence: msg.revision, ...iso } },
    } satisfies Outcome;
  });
}

/** CANCEL answers OACoPAck; REJECT-PROPOSAL (`answer` false) only forgets the proposal. */
export function cancel(ctx: CalendarContext, msg: CancelCollaboration, requester: string, answer: boolean): Outcome | null {
  const local = ctx.store.thread(msg.threadId);
  if (local && msg.revision <= local.revision) return answer ? stale(msg.threadId, msg.revision, local) : null;
  if (local && local.requester !== requester && !ctx.isTrusted(requester)) {
    return answer ? parleyError('FORBIDDEN_SENDER', `${requester} did not open ${msg.threadId}`) : null;
  }
  const event = ctx.store.item(msg.threadId);
  if (event?.kind === 'VEVENT' && local?.slot) {
    const comp = eventComponent({
      uid: msg.threadId, sequence: msg.revision, start: local.slot.start, end: local.slot.end, status: 'CANCELLED',
      summary: typeof local.object.title === 'string' ? local.object.title : event.summary,
    });
    comp.updatePropertyWithValue('comment', msg.reason);
    ctx.store.upsert(describeItem(comp), { force: true });
  }
  ctx.store.saveThread({
    threadId: msg.threadId, revision: msg.revision, status: 'CANCELLED', requester: local?.requester ?? requester,
    object: local?.object ?? {}, slot: local?.slot ?? null, updated: ctx.nowIso(),
  });
  if (!answer) return null;
  return {
    performative: 'INFORM',
    content: { type: 'OACoPAck', threadId: msg.threadId, status: 'CANCELLED', revision: msg.revision, uid: msg.threadId, person: ctx.config.person },
    note: { decision: 'cancel: applied', detail: { reason: msg.reason, hadEvent: event !== undefined } },
  };
}
