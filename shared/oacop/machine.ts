// One OACoP exchange at a calendar or a room (docs/oacop.md): the shared answer-once machine
// (shared/runtime/answer-once.ts): the handler's outcome, FAILURE INTERNAL_ERROR when it throws,
// FAILURE TIMEOUT after PARLEY_CALENDAR_HANDLE_MS, nothing for a REJECT-PROPOSAL (FIPA SC00029).
// The role's main.ts provides `handle` (its own kinds: agents/calendar/service.ts, agents/rooms/service.ts).
export { answerOnceMachine as calendarExchangeMachine, type HandlerInput as HandleInput } from '../runtime/index.js';
