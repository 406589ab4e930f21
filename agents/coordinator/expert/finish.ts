// The end of the expert flow: ANSWERED → STORE_FACT to the KB → PRESENTER_REPLY (seed contract
// §3-4: the person gets the answer whatever the KB says), or the RESULT back to a delegating
// specialist; FAILED and CANCELLED.
import { assign, emit } from 'xstate';
import { type Envelope, replyTo } from '../../../shared/acl/index.js';
import { answerFact, outbound, presenterReply } from '../envelopes.js';
import { answerText, type KbOutcome, partialAnswerNote } from '../replies.js';
import { type Ctx, expertSetup } from './setup.js';

/** PRESENTER_REPLY in_reply_to the USER_MSG; rich.kb: what the KB did with the fact, or "pending". */
function answerFor(context: Ctx, kb: KbOutcome | 'pending'): Envelope {
  const r = context.result as NonNullable<Ctx['result']>;
  // A question of several parts that one single-part skill answered (no planner online): never silently half.
  const partial = partialAnswerNote(context.question, r.skill, r.answeredBy, r.parts);
  return presenterReply(context.request, `${answerText(r.answer)}${partial ? `\n${partial}` : ''}`, { answered_by: r.answeredBy, kb });
}

/** What the KB did with the fact: kept in the context (rich.kb, the note) and told to KbHealth. */
const heard = (kb: KbOutcome) => [{ type: 'kb', params: { kb } }, { type: 'reportKb', params: { kb } }] as const;
/** The KB's STORED, its error answer, or its silence until KB_TIMEOUT: each leads to `target`. */
const kbAnswers = (target: 'done' | 'kbHeard') => ({
  inbound: [
    { guard: 'stored', target, actions: heard('stored') },
    // FAILURE KB_STORE_FAILED (or any error answer): the KB is there but did not keep it.
    { guard: 'kbAnswered', target, actions: heard('KB_STORE_FAILED') },
  ],
  timeout: { KB_TIMEOUT: { target, actions: heard('KB_UNAVAILABLE') } },
}) as const;

export const finishStates = {
  // ANSWERED: a person's answer is stored in the KB; a delegated one goes straight back.
  answered: expertSetup.createStateConfig({
    always: [{ guard: 'delegated', target: 'delegatedDone' }, { target: 'storing' }],
  }),
  delegatedDone: expertSetup.createStateConfig({
    type: 'final',
    entry: [
      emit(({ context }) => ({ type: 'note' as const, decision: 'delegated-answered', detail: { answered_by: context.result?.answeredBy } })),
      emit(({ context }) => {
        const r = context.result as NonNullable<Ctx['result']>;
        return {
          type: 'send' as const,
          envelope: replyTo(context.request, { performative: 'INFORM', content: { type: 'RESULT', result: { answer: r.answer, meta: { answered_by: r.answeredBy } } } }),
        };
      }),
    ],
  }),
  // DONE, part 1: STORE_FACT; the person gets the answer whatever the KB says (seed contract §4).
  // While the KB keeps what it is sent (kb-health.ts) the answer follows at once (`ahead`).
  storing: expertSetup.createStateConfig({
    entry: [
      'checkKb',
      assign(({ context }) => {
        const r = context.result as NonNullable<Ctx['result']>;
        const fact = answerFact(context.request, { question: context.question, ...r }, context.user);
        return { store: outbound(context.request, context.self, 'INFORM', 'KB', fact) };
      }),
      emit(({ context }) => ({ type: 'send' as const, envelope: context.store as Envelope })),
    ],
    always: { guard: 'kbAhead', target: 'ahead' },
    on: { inbound: [{ guard: 'cancelled', target: 'cancelled' }, ...kbAnswers('done').inbound] },
    after: kbAnswers('done').timeout,
  }),
  // DONE, part 2: PRESENTER_REPLY in_reply_to the USER_MSG.
  done: expertSetup.createStateConfig({
    type: 'final',
    entry: [
      emit(({ context }) => ({ type: 'note' as const, decision: 'answered', detail: { answered_by: context.result?.answeredBy, kb: context.kb } })),
      emit(({ context }) => ({ type: 'send' as const, envelope: answerFor(context, context.kb ?? 'KB_UNAVAILABLE') })),
    ],
  }),
  // DONE with the answer ahead of STORED (rich.kb "pending"); the KB's answer still ends the
  // exchange, so what it did is in the conversation's trace and in KbHealth for the next answer.
  ahead: expertSetup.createStateConfig({
    entry: [
      emit(({ context }) => ({ type: 'note' as const, decision: 'answered', detail: { answered_by: context.result?.answeredBy, kb: 'pending' } })),
      emit(({ context }) => ({ type: 'send' as const, envelope: answerFor(context, 'pending') })),
    ],
    on: { inbound: kbAnswers('kbHeard').inbound },
    after: kbAnswers('kbHeard').timeout,
  }),
  kbHeard: expertSetup.createStateConfig({
    type: 'final',
    entry: emit(({ context }) => ({ type: 'note' as const, decision: 'kb-after-answer', detail: { kb: context.kb } })),
  }),
  failed: expertSetup.createStateConfig({ type: 'final' }),
  cancelled: expertSetup.createStateConfig({ type: 'final', entry: emit({ type: 'note', decision: 'cancelled-by-presenter' }) }),
};
