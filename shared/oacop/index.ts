// The participant side of OACoP (oacop-rfc §3, §5, §6; docs/oacop.md), shared by the roles that
// answer it: people's calendars (agents/calendar) and rooms (agents/rooms). A role adds its own
// dispatch (which kinds it answers) and, for rooms, its own context (RoomContext) on top.
export { CalendarContext, type CalendarDeps } from './context.js';
export { calendarExchangeMachine, type HandleInput } from './machine.js';
export { OACoPFailure, oacopError, parleyError, type Outcome } from './outcome.js';
export { cancel, confirm, durationMs, propose } from './scheduling.js';
export { checkBurn } from './trust.js';
