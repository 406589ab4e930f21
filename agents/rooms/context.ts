// A room's calendar context (OACoP §8.2): the person's CalendarContext (shared/oacop over the shared/calendar store,
// revision rule, free-time arithmetic) with what makes a room different — it is open around the
// clock (UTC), it trusts whoever the Coordinator books for (only the Coordinator may talk to a
// room: shared/runtime/policy.ts), and every booking keeps its cleaning gap: busy time is padded
// by requiresCleaningGap on both sides, so neither a proposal nor a confirm lands inside it.
import type { CalendarConfig } from '../../shared/calendar/config.js';
import type { Interval } from '../../shared/calendar/index.js';
import { CalendarContext, type CalendarDeps } from '../../shared/oacop/index.js';
import type { RoomDef } from './config.js';

export function roomCalendarConfig(room: RoomDef): CalendarConfig {
  return {
    person: room.name,
    workingHours: { days: [1, 2, 3, 4, 5, 6, 7], start: '00:00', end: '24:00', timezone: 'UTC' },
    trustList: [],
    trustLocalDomain: true,
    rateLimit: { max: 1_000_000, windowMs: 1000 },
    minBurn: 0,
  };
}

export class RoomContext extends CalendarContext {
  private readonly gapMs: number;

  constructor(readonly room: RoomDef, deps: Omit<CalendarDeps, 'config' | 'trustedSenders'>) {
    const config = roomCalendarConfig(room);
    super({ ...deps, config: () => config, trustedSenders: [] });
    this.gapMs = (room.constraints.cleaningGapMin ?? 0) * 60_000;
  }

  override isTrusted(): boolean {
    return true;
  }

  /** Bookings near the window count too: each blocks its own time plus the gap either side. */
  override busy(window: Interval, exceptUid?: string): Interval[] {
    const g = this.gapMs;
    if (g === 0) return super.busy(window, exceptUid);
    return super.busy({ start: window.start - g, end: window.end + g }, exceptUid).map((b) => ({ start: b.start - g, end: b.end + g }));
  }
}
