// Calendar test fixtures: the vectors directory (test/vectors) and a
// weekly series in America/New_York built on the vector VTIMEZONE.
import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../../shared/runtime/repo-root.js';

export const VECTORS = path.resolve(repoRoot(), 'test', 'vectors');
export const ICS = path.join(VECTORS, 'ics');

/** Tuesdays 10:00–11:00 New York from 28 Oct 2025, 6 times; 11 Nov excluded; 18 Nov moved to Wed 19 Nov 14:00. */
const NY_TZ = fs.readFileSync(path.join(ICS, 'timezones', 'America_New_York.ics'), 'utf8').match(/BEGIN:VTIMEZONE[\s\S]*END:VTIMEZONE/)?.[0] ?? '';
export const NY_WEEKLY = [
  'BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//test//EN', NY_TZ,
  'BEGIN:VEVENT', 'UID:ny-weekly@test', 'DTSTAMP:20251001T000000Z', 'SUMMARY:Standup NY',
  'DTSTART;TZID=America/New_York:20251028T100000', 'DTEND;TZID=America/New_York:20251028T110000',
  'RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=6', 'EXDATE;TZID=America/New_York:20251111T100000', 'END:VEVENT',
  'BEGIN:VEVENT', 'UID:ny-weekly@test', 'DTSTAMP:20251001T000000Z', 'SUMMARY:Standup NY (moved)',
  'RECURRENCE-ID;TZID=America/New_York:20251118T100000',
  'DTSTART;TZID=America/New_York:20251119T140000', 'DTEND;TZID=America/New_York:20251119T150000', 'END:VEVENT',
  'END:VCALENDAR', '',
].join('\r\n');
