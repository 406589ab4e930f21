// One OACoP exchange at a calendar or a room (docs/oacop.md): the shared answer-once machine
// (shared/runtime/answer-once.ts): the handler's outcome, FAILURE INTERNAL_ERROR when it throws,
// FAILURE TIMEOUT after PARLEY_CALENDAR_HANDLE_MS, nothing for a REJECT-PROPOSAL (FIPA SC00029).
import type { AnswerOnceInput } from '../../shared/runtime/answer-once.js';
import type { CalendarKind } from './service.js';

export { answerOnceMachine as calendarExchangeMachine, type HandlerInput as HandleInput } from '../../shared/runtime/answer-once.js';

export interface CalendarExchangeInput extends AnswerOnceInput {
  kind: CalendarKind;
  handleMs: number;
}
