// The Coordinator's expert flow, one actor per USER_MSG (seed contract §3):
// RECEIVED → [candidate cache hit, or] LOOKUP(DF) → DISPATCHED(REQUEST) → IN_PROGRESS(AGREE) →
// DONE(RESULT → STORE_FACT → PRESENTER_REPLY); REFUSE / timeout / FAILURE → RETRY_NEXT; list
// exhausted → FAILED (§4 reason).
// With ≥ 2 candidates the negotiated flow (Agora §3, contract-net; contract-net.ts) replaces
// DISPATCHED: CFP → offers → ACCEPT the best → RESULT, falling back to the next offer.
// Agora states (PENDING, NEGOTIATING, PROCESSING, COMPLETED, FAILED) are `agora:*` notes.
// Every candidate REFUSEd busy (direct) or answered the ACCEPT with BUSY (negotiated) →
// SCALING: the supervisor starts one more specialist of their role (an operator-side action
// through its local control socket, provided by main.ts; a note in the trace, not an envelope),
// then LOOKUP again, once. Still busy (or no scale-up possible) → BUSY_WAIT: a named delay with
// back-off and jitter, then the same candidates again, within a budget (busy-wait.ts): a busy
// system is slower, not failing. A specialist's DELEGATE_TASK runs the same flow as a sub-request in
// the person's session: other candidates only, RESULT back to it.
// A retryable FAILURE (errors.ts: WORK_LOST from a restarted specialist) moves on at once like any
// FAILURE; if it leaves no candidate or offer, one fresh round runs at once (issue 12), so a
// specialist's restart never costs the RESULT timeout.
// Pure: envelopes leave as `send` emits, timeouts are named delays, decisions are `note`s.
// The states live by feature: expert/lookup.ts (RECEIVED, LOOKUP), direct.ts, negotiated.ts,
// busy.ts (SCALING, BUSY_WAIT), finish.ts; expert/setup.ts holds the context, guards and actions.
import type { Envelope } from '../../../shared/acl/index.js';
import { onDecline, onExpired, onOffer } from '../contract-net.js';
import { userMsg } from '../envelopes.js';
import { busyStates } from './busy.js';
import { directStates } from './direct.js';
import { finishStates } from './finish.js';
import { lookupStates } from './lookup.js';
import { negotiatedStates } from './negotiated.js';
import { relayChildSend } from '../registry-lookup.js';
import { answersCfp, type Ctx, type Expired, expertSetup, hintOf, inbound, usableCandidates } from './setup.js';

export { hintOf, type ScaleInput, type ScaleOutput, usableCandidates } from './setup.js';

export const expertMachine = expertSetup.createMachine({
  id: 'coordinator-expert',
  context: ({ input }) => {
    const { text, user } = input.delegation ? { text: String(input.request.content.task ?? ''), user: undefined } : userMsg(input.request);
    // Every key the flow ever assigns is here from the start (undefined until set), and the
    // object is a spread copy: xstate copies the context with Object.assign on every assign, and
    // V8 turns an object that grows past ~16 keys that way into a hash-table ("dictionary") object.
    // This one has ~34: as a dictionary each assign cost ~5 µs, and every read a hash lookup
    // (docs/bench.md "stop 35"). test/unit/context-shape.test.ts keeps it a fast object.
    const context: Ctx = {
      request: input.request, self: input.self, domain: input.domain, t: input.timeouts, resultTimeoutMs: input.timeouts.resultTimeoutMs,
      question: text, hint: hintOf(text), user, agora: input.agora,
      candidates: usableCandidates(input.cached ?? [], input.domain), index: 0, attempts: [],
      zone: input.zone, canScale: input.canScale ?? false, scaled: false, delegation: input.delegation,
      cfps: [], answered: [], offers: [], winner: -1, notUnderstood: [],
      busyRetry: input.busyRetry, waits: 0, waitedMs: 0, waitMs: 0,
      ask: undefined, accept: undefined, result: undefined, store: undefined, kb: undefined, kbAhead: undefined,
      preferred: undefined, told: undefined, rerun: undefined,
    };
    return { ...context };
  },
  // Contract-net replies in any state: late offers stay fallbacks, ttl timers expire offers.
  on: {
    inbound: [
      { guard: ({ context, event }) => answersCfp(context, event, ['PROPOSE']), actions: { type: 'step', params: { run: (c, e) => onOffer(c, inbound(e) as Envelope) } } },
      {
        guard: ({ context, event }) => answersCfp(context, event, ['REFUSE', 'FAILURE', 'NOT-UNDERSTOOD']),
        actions: { type: 'step', params: { run: (c, e) => onDecline(c, inbound(e) as Envelope) } },
      },
    ],
    'offer.expired': { actions: { type: 'step', params: { run: (c, e) => onExpired(c, (e as Expired).offerId) } } },
    // The QUERY-REF of the DF-lookup child (lookup.ts) goes out as this exchange's own.
    'child.send': { actions: relayChildSend() },
  },
  initial: 'received',
  states: {
    ...lookupStates,
    ...negotiatedStates,
    ...directStates,
    ...busyStates,
    ...finishStates,
  },
});
