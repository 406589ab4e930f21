// The direct expert flow (seed contract §3, FIPA request SC00026): DISPATCHED (REQUEST
// ASK_EXPERT to candidate i) → IN_PROGRESS (AGREE) → RESULT; REFUSE / FAILURE / a timeout →
// RETRY_NEXT, which moves to the next candidate or gives the §4 verdict.
import { assign, emit } from 'xstate';
import type { Envelope } from '../../../shared/acl/index.js';
import { agoraNote } from '../contract-net.js';
import { outbound, reasonOf } from '../envelopes.js';
import { whenExhausted } from './busy.js';
import { current, expertSetup, fromCurrent, inbound } from './setup.js';

export const directStates = {
  // RETRY_NEXT: the next candidate, or the §4 verdict once the list is exhausted.
  retryNext: expertSetup.createStateConfig({
    always: [
      { guard: 'hasNext', target: 'dispatched' },
      ...whenExhausted(false),
    ],
  }),
  // DISPATCHED: REQUEST ASK_EXPERT to candidate i; it must AGREE within agreeTimeoutMs.
  dispatched: expertSetup.createStateConfig({
    entry: [
      assign(({ context }) => ({
        ask: outbound(context.request, context.self, 'REQUEST', current(context).name, {
          type: 'ASK_EXPERT', args: { question: context.question, ...(context.zone ? { zone: context.zone } : {}) }, context_ref: { session_id: context.request.conversation_id },
        }),
      })),
      emit(({ context }) => ({ type: 'note' as const, decision: 'dispatch', detail: { candidate: current(context).name, attempt: context.index + 1 } })),
      emit(({ context }) => agoraNote('PENDING', { flow: 'direct', candidate: current(context).name })),
      emit(({ context }) => ({ type: 'send' as const, envelope: context.ask as Envelope })),
    ],
    on: {
      inbound: [
        { guard: 'cancelled', target: 'cancelled', actions: { type: 'cancelSpecialist', params: { reason: 'the person withdrew the question' } } },
        {
          guard: { type: 'from', params: { kind: 'AGREE' } },
          target: 'inProgress',
          actions: [
            emit(({ context }) => agoraNote('PROCESSING', { flow: 'direct', candidate: current(context).name })),
            { type: 'tellPresenter', params: ({ context }) => ({ by: current(context).name }) },
          ],
        },
        // fipa-request lets a participant inform without agreeing first.
        { guard: { type: 'from', params: { kind: 'RESULT' } }, target: 'answered', actions: 'takeResult' },
        {
          guard: ({ context, event }) => event.type === 'inbound' && (fromCurrent(context, event, 'REFUSE') || fromCurrent(context, event, 'NOT-UNDERSTOOD')),
          target: 'retryNext',
          actions: { type: 'giveUp', params: ({ event }) => ({ outcome: 'refused' as const, ...reasonOf(inbound(event) as Envelope) }) },
        },
        {
          guard: { type: 'from', params: { kind: 'FAILURE' } },
          target: 'retryNext',
          actions: { type: 'giveUp', params: ({ event }) => ({ outcome: 'failed' as const, ...reasonOf(inbound(event) as Envelope) }) },
        },
      ],
    },
    after: {
      AGREE_TIMEOUT: {
        target: 'retryNext',
        actions: [
          { type: 'cancelSpecialist', params: ({ context }) => ({ reason: `no AGREE within ${context.t.agreeTimeoutMs} ms` }) },
          { type: 'giveUp', params: { outcome: 'timeout', reason: 'AGREE' } },
        ],
      },
    },
  }),
  // IN_PROGRESS: agreed; the RESULT must follow within resultTimeoutMs.
  inProgress: expertSetup.createStateConfig({
    on: {
      inbound: [
        { guard: 'cancelled', target: 'cancelled', actions: { type: 'cancelSpecialist', params: { reason: 'the person withdrew the question' } } },
        { guard: { type: 'from', params: { kind: 'RESULT' } }, target: 'answered', actions: 'takeResult' },
        {
          guard: ({ context, event }) => event.type === 'inbound' && (fromCurrent(context, event, 'FAILURE') || fromCurrent(context, event, 'NOT-UNDERSTOOD')),
          target: 'retryNext',
          actions: { type: 'giveUp', params: ({ event }) => ({ outcome: 'failed' as const, ...reasonOf(inbound(event) as Envelope) }) },
        },
      ],
    },
    after: {
      RESULT_TIMEOUT: {
        target: 'retryNext',
        actions: [
          { type: 'cancelSpecialist', params: ({ context }) => ({ reason: `no RESULT within ${context.t.resultTimeoutMs} ms` }) },
          { type: 'giveUp', params: { outcome: 'timeout', reason: 'RESULT' } },
        ],
      },
    },
  }),
};
