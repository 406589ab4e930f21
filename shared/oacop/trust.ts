// oacop-rfc §6.2: an invitation from a requester outside the trust list must carry a proofOfBurn
// whose txId the local ledger confirms (and consumes); otherwise OACOP_PAYMENT_REQUIRED.
import type { CalendarContext } from './context.js';
import { fail } from './outcome.js';

export function checkBurn(ctx: CalendarContext, txId: string | undefined, requester: string, threadId: string): void {
  const min = ctx.config.minBurn;
  if (txId === undefined || txId === '') {
    fail('OACOP_PAYMENT_REQUIRED', `${requester} is not in the trust list: a proofOfBurn of at least ${min} credit(s) is required`, threadId);
  }
  const result = ctx.deps.ledger.verify(txId, min, { payer: requester, consumer: `calendar-${ctx.config.person}` });
  if (!result.ok) fail('OACOP_PAYMENT_REQUIRED', `proofOfBurn rejected: ${result.reason}`, threadId);
}
