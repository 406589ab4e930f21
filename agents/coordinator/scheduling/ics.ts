// The invitation a person gets (OACoP §2.4 normative iCalendar mapping, RFC 5545): one VEVENT,
// UID = threadId, SEQUENCE = revision, DTSTART/DTEND in UTC, SUMMARY, LOCATION = the room,
// ORGANIZER/ATTENDEE as xmpp: URIs. CRLF line ends, lines folded at 75 octets (§3.1).
import type { Window } from './slots.js';

export interface Invitation {
  threadId: string;
  revision: number;
  title: string;
  slot: Window;
  organizer: string;
  attendees: string[];
  location?: string;
  /** DTSTAMP (ISO). */
  stamp: string;
  method?: 'REQUEST' | 'CANCEL';
}

/** RFC 5545 §3.3.5 UTC form: 20261210T090000Z. */
export const icsTime = (iso: string) => new Date(iso).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');

/** RFC 5545 §3.3.11 TEXT escaping. */
const text = (s: string) => s.replace(/\\/g, '\\\\').replace(/;/g, '\\;').replace(/,/g, '\\,').replace(/\r?\n/g, '\\n');

/** RFC 5545 §3.1: lines longer than 75 octets continue on the next line after CRLF + space. */
export function fold(line: string): string {
  const out: string[] = [];
  let cur = '';
  let bytes = 0;
  for (const ch of line) {
    const n = Buffer.byteLength(ch, 'utf8');
    if (bytes + n > (out.length === 0 ? 75 : 74)) {
      out.push(cur);
      cur = '';
      bytes = 0;
    }
    cur += ch;
    bytes += n;
  }
  out.push(cur);
  return out.join('\r\n ');
}

export function invitationIcs(i: Invitation): string {
  const cancelled = i.method === 'CANCEL';
  const lines = [
    'BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Parley//OACoP 1.0//EN', `METHOD:${i.method ?? 'REQUEST'}`,
    'BEGIN:VEVENT', `UID:${i.threadId}`, `SEQUENCE:${i.revision}`, `DTSTAMP:${icsTime(i.stamp)}`,
    `DTSTART:${icsTime(i.slot.start)}`, `DTEND:${icsTime(i.slot.end)}`, `SUMMARY:${text(i.title)}`,
    ...(i.location ? [`LOCATION:${text(i.location)}`] : []),
    `ORGANIZER:xmpp:${i.organizer}`,
    ...i.attendees.map((a) => `ATTENDEE;CN=${text(a.split('@')[0] ?? a)};ROLE=REQ-PARTICIPANT:xmpp:${a}`),
    `STATUS:${cancelled ? 'CANCELLED' : 'CONFIRMED'}`, 'END:VEVENT', 'END:VCALENDAR',
  ];
  return lines.map(fold).join('\r\n') + '\r\n';
}
