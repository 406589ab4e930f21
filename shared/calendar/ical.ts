// iCalendar (RFC 5545) in and out through ical.js. Import splits a VCALENDAR into VTIMEZONEs and
// VEVENT/VTODO components (kept verbatim, so RRULE/RDATE/EXDATE/overrides/alarms survive);
// export rebuilds one VCALENDAR with PRODID/VERSION, CRLF line endings and 75-octet folding
// (ical.js stringify), which Google Calendar, Outlook and Thunderbird accept.
import { randomUUID } from 'node:crypto';
import ICAL from 'ical.js';

export const PRODID = '-//Parley//OACoP Calendar 1.0//EN';

// ical.js folds into chunks of foldLength octets and then prefixes the continuation space, so
// 75 gives 76-octet lines; RFC 5545 §3.1 allows 75 octets including that space.
ICAL.foldLength = 74;

export type ItemKind = 'VEVENT' | 'VTODO';

/** One stored component: a series master, an overridden instance, a single event or a task. */
export interface CalendarItem {
  uid: string;
  /** '' for the master/single component, else the RECURRENCE-ID value as written. */
  recurrenceId: string;
  kind: ItemKind;
  sequence: number;
  summary: string;
  status: string;
  transparent: boolean;
  /** The component's own iCalendar text (BEGIN:VEVENT … END:VEVENT). */
  ics: string;
}

export interface TimezoneDef {
  tzid: string;
  ics: string;
}

export class IcalError extends Error {
  override readonly name = 'IcalError';
}

export type Component = InstanceType<typeof ICAL.Component>;

/** Parses text that must be one VCALENDAR; throws IcalError with the parser's reason. */
export function parseCalendar(text: string): Component {
  let jcal: unknown;
  try {
    jcal = ICAL.parse(text);
  } catch (err) {
    throw new IcalError(`unparseable iCalendar: ${(err as Error).message}`);
  }
  // ICAL.parse returns an array of components when the text holds several top-level ones.
  const first = Array.isArray(jcal) && Array.isArray(jcal[0]) ? jcal[0] : jcal;
  const root = new ICAL.Component(first as never);
  if (root.name !== 'vcalendar') throw new IcalError(`expected BEGIN:VCALENDAR, got ${root.name.toUpperCase()}`);
  return root;
}

/** Parses a bare component (e.g. OACoP object.icalComponent "BEGIN:VEVENT …") by wrapping it. */
export function parseComponent(text: string): Component {
  const body = text.replace(/\r?\n/g, '\r\n').trim();
  const wrapped = /^BEGIN:VCALENDAR/i.test(body) ? body : `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:${PRODID}\r\n${body}\r\nEND:VCALENDAR`;
  const cal = parseCalendar(wrapped);
  const comp = cal.getFirstSubcomponent('vevent') ?? cal.getFirstSubcomponent('vtodo');
  if (!comp) throw new IcalError('no VEVENT or VTODO in icalComponent');
  return comp;
}

function stamp(): ICAL.Time {
  return ICAL.Time.fromJSDate(new Date(Math.floor(Date.now() / 1000) * 1000), true);
}

/** Describes a component for the store, adding a UID and DTSTAMP when the source lacked them (RFC 5545 §3.6.1). */
export function describeItem(comp: Component): CalendarItem {
  const kind = comp.name.toUpperCase() as ItemKind;
  if (!comp.hasProperty('uid')) comp.addPropertyWithValue('uid', `urn:uuid:${randomUUID()}`);
  if (!comp.hasProperty('dtstamp')) comp.addPropertyWithValue('dtstamp', stamp());
  const rid = comp.getFirstProperty('recurrence-id');
  const seq = Number(comp.getFirstPropertyValue('sequence') ?? 0);
  return {
    uid: String(comp.getFirstPropertyValue('uid')),
    recurrenceId: rid ? String(rid.getFirstValue()) : '',
    kind,
    sequence: Number.isFinite(seq) ? seq : 0,
    summary: String(comp.getFirstPropertyValue('summary') ?? ''),
    status: String(comp.getFirstPropertyValue('status') ?? '').toUpperCase(),
    transparent: String(comp.getFirstPropertyValue('transp') ?? '').toUpperCase() === 'TRANSPARENT',
    ics: comp.toString(),
  };
}

/** Splits a VCALENDAR text into time zone definitions and items; throws IcalError. */
export function splitCalendar(text: string): { timezones: TimezoneDef[]; items: CalendarItem[] } {
  const cal = parseCalendar(text);
  const timezones = cal.getAllSubcomponents('vtimezone')
    .filter((tz) => tz.hasProperty('tzid'))
    .map((tz) => ({ tzid: String(tz.getFirstPropertyValue('tzid')), ics: tz.toString() }));
  const items = [...cal.getAllSubcomponents('vevent'), ...cal.getAllSubcomponents('vtodo')].map(describeItem);
  return { timezones, items };
}

/** One VCALENDAR (PRODID, VERSION 2.0, CALSCALE) holding the time zones and items, CRLF-terminated. */
export function buildCalendar(timezones: readonly TimezoneDef[], items: readonly CalendarItem[]): Component {
  const cal = new ICAL.Component('vcalendar');
  cal.addPropertyWithValue('prodid', PRODID);
  cal.addPropertyWithValue('version', '2.0');
  cal.addPropertyWithValue('calscale', 'GREGORIAN');
  for (const tz of timezones) cal.addSubcomponent(parseComponentOf(tz.ics, 'vtimezone'));
  for (const item of items) cal.addSubcomponent(parseComponentOf(item.ics, item.kind.toLowerCase()));
  return cal;
}

export function exportCalendar(timezones: readonly TimezoneDef[], items: readonly CalendarItem[]): string {
  const text = buildCalendar(timezones, items).toString();
  return text.endsWith('\r\n') ? text : `${text}\r\n`;
}

function parseComponentOf(text: string, name: string): Component {
  const comp = new ICAL.Component(ICAL.parse(text) as never);
  if (comp.name !== name) throw new IcalError(`stored component is ${comp.name}, expected ${name}`);
  return comp;
}

/** ISO date-time (UTC, Z) → ICAL UTC time. */
export function utcTime(iso: string): ICAL.Time {
  return ICAL.Time.fromJSDate(new Date(iso), true);
}

export interface NewEvent {
  uid: string;
  sequence: number;
  start: string;
  end: string;
  summary: string;
  description?: string;
  location?: string;
  /** Extra properties (e.g. RRULE) copied from an OACoP object.icalComponent. */
  template?: Component;
  status?: 'CONFIRMED' | 'CANCELLED';
}

/** The VEVENT a confirmed OACoP collaboration becomes (oacop-rfc §2.4: UID = id, SEQUENCE = revision). */
export function eventComponent(e: NewEvent): Component {
  const comp = e.template ? ICAL.Component.fromString(e.template.toString()) : new ICAL.Component('vevent');
  for (const p of ['uid', 'sequence', 'dtstart', 'dtend', 'duration', 'summary', 'status', 'dtstamp', 'recurrence-id']) comp.removeAllProperties(p);
  comp.addPropertyWithValue('uid', e.uid);
  comp.addPropertyWithValue('dtstamp', stamp());
  comp.addPropertyWithValue('sequence', e.sequence);
  comp.addPropertyWithValue('dtstart', utcTime(e.start));
  comp.addPropertyWithValue('dtend', utcTime(e.end));
  comp.addPropertyWithValue('summary', e.summary);
  if (e.description !== undefined) comp.updatePropertyWithValue('description', e.description);
  if (e.location !== undefined) comp.updatePropertyWithValue('location', e.location);
  comp.addPropertyWithValue('status', e.status ?? 'CONFIRMED');
  if (!comp.hasProperty('transp')) comp.addPropertyWithValue('transp', 'OPAQUE');
  return comp;
}

export interface NewTodo {
  uid: string;
  sequence: number;
  summary: string;
  due: string;
  description?: string;
  /** RFC 5545 VTODO STATUS. */
  status: 'NEEDS-ACTION' | 'IN-PROCESS' | 'COMPLETED' | 'CANCELLED';
  percent?: number;
  /** The OACoP status when it has no VTODO equivalent (ACCEPTED, BLOCKED), kept as X-OACOP-STATUS. */
  oacopStatus?: string;
  comment?: string;
  relatedTo?: string;
}

/** The VTODO an OACoP AssignTask becomes (oacop-rfc §2.4: Task → VTODO, deadline → DUE). */
export function todoComponent(t: NewTodo): Component {
  const comp = new ICAL.Component('vtodo');
  comp.addPropertyWithValue('uid', t.uid);
  comp.addPropertyWithValue('dtstamp', stamp());
  comp.addPropertyWithValue('sequence', t.sequence);
  comp.addPropertyWithValue('summary', t.summary);
  comp.addPropertyWithValue('due', utcTime(t.due));
  comp.addPropertyWithValue('status', t.status);
  if (t.description !== undefined) comp.addPropertyWithValue('description', t.description);
  if (t.percent !== undefined) comp.addPropertyWithValue('percent-complete', t.percent);
  if (t.status === 'COMPLETED') comp.addPropertyWithValue('completed', stamp());
  if (t.oacopStatus !== undefined) comp.addPropertyWithValue('x-oacop-status', t.oacopStatus);
  if (t.comment !== undefined) comp.addPropertyWithValue('comment', t.comment);
  if (t.relatedTo !== undefined) comp.addPropertyWithValue('related-to', t.relatedTo);
  return comp;
}
