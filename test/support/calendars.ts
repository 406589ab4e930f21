// What a calendar holds, read from its SQLite store through its .ics export (OACoP tests).
import ICAL from 'ical.js';
import { CalendarStore } from '../../shared/calendar/index.js';

/** Every VEVENT of a calendar file that still blocks time (not CANCELLED). */
export function bookedEvents(file: string): Array<{ uid: string; start: number; end: number; status: string }> {
  const store = new CalendarStore(file);
  try {
    const cal = new ICAL.Component(ICAL.parse(store.exportIcs()) as never);
    return cal.getAllSubcomponents('vevent').map((e) => ({
      uid: String(e.getFirstPropertyValue('uid')),
      start: (e.getFirstPropertyValue('dtstart') as InstanceType<typeof ICAL.Time>).toUnixTime() * 1000,
      end: (e.getFirstPropertyValue('dtend') as InstanceType<typeof ICAL.Time>).toUnixTime() * 1000,
      status: String(e.getFirstPropertyValue('status') ?? ''),
    }));
  } finally {
    store.close();
  }
}

export function exportedIcs(file: string): string {
  const store = new CalendarStore(file);
  try {
    return store.exportIcs();
  } finally {
    store.close();
  }
}
