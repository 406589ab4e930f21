// Public API of shared/calendar/ (issue 10 §2): code outside this folder imports it from here;
// modules inside it import each other directly.
export {
  describeHours, freeIntervals, intersectAll, isFree, isoSlot, OUTSIDE_WORKING_HOURS_RE, outsideHoursComment, subtract, workingIntervals,
} from './availability.js';
export { type Interval, busyIntervals, occurrences } from './expand.js';
export {
  type Component, IcalError, type NewTodo, PRODID, describeItem, eventComponent, parseCalendar,
  parseComponent, todoComponent,
} from './ical.js';
export { Ledger } from './ledger.js';
export { RateLimiter, type Rng, fuzzySlots } from './privacy.js';
export { CalendarStore, type ThreadState } from './store.js';
