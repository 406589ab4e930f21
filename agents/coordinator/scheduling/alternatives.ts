// A meeting that cannot be booked in the asked window because people are busy (issue 16): the
// initiator looks at the days after it (decide.ts widened) and suggests the nearest times that
// work — as text, with the command that books each, and as rich.choices the Presenter can show
// as a form. Pure.
import { afterProposals, nearestChoices } from './decide.js';
import type { ScheduleRequest } from './parse.js';
import { alternativesText, bookCommand, when } from './texts.js';

export interface Suggestion {
  text: string;
  choices: Array<{ label: string; say: string }>;
}

/** From the widened round's replies: what the person reads, in their zone. */
export function suggest(o: Parameters<typeof afterProposals>[0] & { head: string; wish: ScheduleRequest; zone: string }): Suggestion {
  const slots = nearestChoices(o);
  const names = o.wish.participants.map((n) => (o.wish.optional.includes(n) ? `${n}?` : n));
  const cmd = { minutes: o.minutes, names, roomWanted: o.roomWanted };
  return {
    text: alternativesText({ head: o.head, slots, ...cmd, zone: o.zone }),
    choices: slots.map((c) => ({ label: when(c.slot, o.zone), say: bookCommand(c.slot, { ...cmd, ...(c.room ? { room: c.room } : {}) }) })),
  };
}
