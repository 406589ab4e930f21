// Dispatches one validated OACoP envelope to its handler (docs/oacop.md) and turns a §5 failure
// thrown anywhere inside into its OACoPError answer. The contents were already validated against
// contracts/oacop-*.json by the pipeline, so the casts below are safe.
import type { Envelope } from '../../shared/acl/index.js';
import type {
  AssignTask, CancelCollaboration, ConfirmCollaboration, ProposeCollaboration, TaskDecision,
} from '../../shared/contracts/index.js';
import type { Identity } from '../../shared/runtime/index.js';
import { type CalendarContext, cancel, confirm, OACoPFailure, type Outcome, propose } from '../../shared/oacop/index.js';
import { assignTask, decideTask } from './tasks.js';

/** The content kinds a calendar agent opens exchanges for. */
export const CALENDAR_KINDS = ['ProposeCollaboration', 'ConfirmCollaboration', 'CancelCollaboration', 'AssignTask', 'TaskDecision'] as const;
export type CalendarKind = (typeof CALENDAR_KINDS)[number];

/** The answer to `request`, or null when none is due (REJECT-PROPOSAL). */
export function handleOacop(ctx: CalendarContext, kind: CalendarKind, request: Envelope, from: Identity): Outcome | null {
  const requester = ctx.requesterOf(request, from);
  try {
    switch (kind) {
      case 'ProposeCollaboration':
        return propose(ctx, request.content as unknown as ProposeCollaboration, requester);
      case 'ConfirmCollaboration':
        return confirm(ctx, request.content as unknown as ConfirmCollaboration, requester);
      case 'CancelCollaboration':
        return cancel(ctx, request.content as unknown as CancelCollaboration, requester, request.performative === 'CANCEL');
      case 'AssignTask':
        return assignTask(ctx, request.content as unknown as AssignTask, requester);
      case 'TaskDecision':
        return decideTask(ctx, request.content as unknown as TaskDecision);
    }
  } catch (err) {
    if (err instanceof OACoPFailure) return err.outcome;
    throw err;
  }
}
