// A person's calendar settings: $PARLEY_HOME/calendars/<person>.json. One file per person is also
// how the supervisor knows whose calendar agent to run (issue: "npm run user -- add bob").
import fs from 'node:fs';
import path from 'node:path';
import { DateTime, IANAZone } from 'luxon';
import { paths, type ParleyConfig } from '../config/index.js';

export interface WorkingHours {
  /** ISO weekdays, Monday = 1 … Sunday = 7. */
  days: number[];
  /** Local wall-clock HH:MM in `timezone`; end > start. */
  start: string;
  end: string;
  /** IANA zone the hours (and all-day/floating events) are read in. */
  timezone: string;
}

export interface CalendarConfig {
  person: string;
  /** The person's bare JID and DID: they are always trusted by their own calendar. */
  jid?: string;
  did?: string;
  workingHours: WorkingHours;
  /** DIDs or bare JIDs whose invitations need no proofOfBurn and get unfuzzed slots (oacop-rfc §6). */
  trustList: string[];
  /** People of the local domain (bare JIDs user@<domain>) count as trusted; default true. */
  trustLocalDomain: boolean;
  /** Requests per requester outside the trust list within windowMs (oacop-rfc §6.1 rate limit). */
  rateLimit: { max: number; windowMs: number };
  /** Smallest burn, in OAP credits, accepted as proofOfBurn (oacop-rfc §6.2 "lokal konfiguriert"). */
  minBurn: number;
}

export const PERSON_RE = /^[a-z0-9][a-z0-9._-]{0,62}$/;

export function calendarsDir(cfg: ParleyConfig): string {
  return path.join(cfg.home, 'calendars');
}

export function calendarConfigFile(cfg: ParleyConfig, person: string): string {
  return path.join(calendarsDir(cfg), `${person}.json`);
}

export function calendarDbFile(cfg: ParleyConfig, person: string): string {
  return path.join(paths(cfg).data, `calendar-${person}.sqlite`);
}

export function ledgerDbFile(cfg: ParleyConfig): string {
  return path.join(paths(cfg).data, 'ledger.sqlite');
}

export function assertPerson(person: string): void {
  if (!PERSON_RE.test(person)) throw new Error(`invalid person name ${JSON.stringify(person)} (lowercase letters, digits, . _ -)`);
}

const HHMM = /^([01]\d|2[0-4]):([0-5]\d)$/;

export function minutesOf(hhmm: string): number {
  const m = HHMM.exec(hhmm);
  if (!m) throw new Error(`time must be HH:MM, got ${JSON.stringify(hhmm)}`);
  return Number(m[1]) * 60 + Number(m[2]);
}

/** Throws a clear message when the hours cannot be used. */
export function validateWorkingHours(h: WorkingHours): WorkingHours {
  if (!Array.isArray(h.days) || h.days.some((d) => !Number.isInteger(d) || d < 1 || d > 7)) {
    throw new Error('workingHours.days must be ISO weekdays 1 (Mon) … 7 (Sun)');
  }
  if (minutesOf(h.end) <= minutesOf(h.start)) throw new Error('workingHours.end must be after workingHours.start');
  if (!isValidZone(h.timezone)) throw new Error(`unknown time zone ${JSON.stringify(h.timezone)}`);
  return { days: [...new Set(h.days)].sort(), start: h.start, end: h.end, timezone: h.timezone };
}

/**
 * IANAZone.isValidZone builds an Intl.DateTimeFormat each call (≈ 0.13 ms here): 19.6 % of a
 * 10,000-calendar host's start (bench calendars-scale --cpu-prof). Valid names are few and fixed.
 */
const validZones = new Set<string>();
function isValidZone(zone: string): boolean {
  if (validZones.has(zone)) return true;
  if (!IANAZone.isValidZone(zone)) return false;
  validZones.add(zone);
  return true;
}

export function defaultCalendarConfig(person: string, jid?: string, timezone?: string): CalendarConfig {
  const zone = timezone ?? DateTime.local().zoneName ?? 'UTC';
  return {
    person,
    ...(jid ? { jid } : {}),
    workingHours: { days: [1, 2, 3, 4, 5], start: '09:00', end: '17:00', timezone: isValidZone(zone) ? zone : 'UTC' },
    trustList: [],
    trustLocalDomain: true,
    rateLimit: { max: 5, windowMs: 3_600_000 },
    minBurn: 1,
  };
}

export function readCalendarConfig(cfg: ParleyConfig, person: string): CalendarConfig {
  assertPerson(person);
  const file = calendarConfigFile(cfg, person);
  const raw = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<CalendarConfig>;
  const base = defaultCalendarConfig(person, raw.jid);
  return {
    ...base,
    ...raw,
    person,
    workingHours: validateWorkingHours({ ...base.workingHours, ...raw.workingHours }),
    trustList: Array.isArray(raw.trustList) ? raw.trustList.map(String) : [],
    trustLocalDomain: raw.trustLocalDomain !== false,
    rateLimit: { ...base.rateLimit, ...raw.rateLimit },
  };
}

export function writeCalendarConfig(cfg: ParleyConfig, config: CalendarConfig): string {
  assertPerson(config.person);
  const file = calendarConfigFile(cfg, config.person);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`);
  return file;
}

/** Creates the default config when none exists; returns the config in force. */
export function ensureCalendarConfig(cfg: ParleyConfig, person: string, jid?: string): CalendarConfig {
  assertPerson(person);
  if (!fs.existsSync(calendarConfigFile(cfg, person))) writeCalendarConfig(cfg, defaultCalendarConfig(person, jid));
  return readCalendarConfig(cfg, person);
}

/** People with a calendar config, sorted (the supervisor runs one calendar agent each). */
export function listCalendarPeople(cfg: ParleyConfig): string[] {
  const dir = calendarsDir(cfg);
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5)).filter((p) => PERSON_RE.test(p)).sort();
}
