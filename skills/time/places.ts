// Place names → IANA time zones (tz database). Cities, a few countries with a single zone, and
// the IANA names themselves (Europe/Warsaw), checked with luxon so a typo is INVALID_ARGS.
import { IANAZone } from 'luxon';

const CITIES: Record<string, string> = {
  // Europe
  london: 'Europe/London', dublin: 'Europe/Dublin', lisbon: 'Europe/Lisbon', madrid: 'Europe/Madrid',
  barcelona: 'Europe/Madrid', paris: 'Europe/Paris', brussels: 'Europe/Brussels', amsterdam: 'Europe/Amsterdam',
  berlin: 'Europe/Berlin', munich: 'Europe/Berlin', frankfurt: 'Europe/Berlin', hamburg: 'Europe/Berlin',
  zurich: 'Europe/Zurich', geneva: 'Europe/Zurich', vienna: 'Europe/Vienna', rome: 'Europe/Rome', milan: 'Europe/Rome',
  prague: 'Europe/Prague', warsaw: 'Europe/Warsaw', krakow: 'Europe/Warsaw', 'kraków': 'Europe/Warsaw',
  gdansk: 'Europe/Warsaw', wroclaw: 'Europe/Warsaw', budapest: 'Europe/Budapest', stockholm: 'Europe/Stockholm',
  oslo: 'Europe/Oslo', copenhagen: 'Europe/Copenhagen', helsinki: 'Europe/Helsinki', athens: 'Europe/Athens',
  bucharest: 'Europe/Bucharest', kyiv: 'Europe/Kyiv', kiev: 'Europe/Kyiv', istanbul: 'Europe/Istanbul', moscow: 'Europe/Moscow',
  // Americas
  'new york': 'America/New_York', nyc: 'America/New_York', boston: 'America/New_York', washington: 'America/New_York',
  miami: 'America/New_York', toronto: 'America/Toronto', montreal: 'America/Toronto', chicago: 'America/Chicago',
  houston: 'America/Chicago', dallas: 'America/Chicago', denver: 'America/Denver', phoenix: 'America/Phoenix',
  'los angeles': 'America/Los_Angeles', 'san francisco': 'America/Los_Angeles', seattle: 'America/Los_Angeles',
  vancouver: 'America/Vancouver', anchorage: 'America/Anchorage', honolulu: 'Pacific/Honolulu',
  'mexico city': 'America/Mexico_City', bogota: 'America/Bogota', lima: 'America/Lima', santiago: 'America/Santiago',
  'buenos aires': 'America/Argentina/Buenos_Aires', 'sao paulo': 'America/Sao_Paulo', 'são paulo': 'America/Sao_Paulo',
  'rio de janeiro': 'America/Sao_Paulo', caracas: 'America/Caracas',
  // Africa and the Middle East
  cairo: 'Africa/Cairo', lagos: 'Africa/Lagos', nairobi: 'Africa/Nairobi', johannesburg: 'Africa/Johannesburg',
  'cape town': 'Africa/Johannesburg', casablanca: 'Africa/Casablanca', dubai: 'Asia/Dubai', 'abu dhabi': 'Asia/Dubai',
  riyadh: 'Asia/Riyadh', doha: 'Asia/Qatar', tehran: 'Asia/Tehran', jerusalem: 'Asia/Jerusalem', 'tel aviv': 'Asia/Jerusalem',
  // Asia and Oceania
  karachi: 'Asia/Karachi', delhi: 'Asia/Kolkata', 'new delhi': 'Asia/Kolkata', mumbai: 'Asia/Kolkata',
  bangalore: 'Asia/Kolkata', kolkata: 'Asia/Kolkata', kathmandu: 'Asia/Kathmandu', dhaka: 'Asia/Dhaka',
  bangkok: 'Asia/Bangkok', jakarta: 'Asia/Jakarta', singapore: 'Asia/Singapore', 'kuala lumpur': 'Asia/Kuala_Lumpur',
  manila: 'Asia/Manila', 'hong kong': 'Asia/Hong_Kong', beijing: 'Asia/Shanghai', shanghai: 'Asia/Shanghai',
  taipei: 'Asia/Taipei', seoul: 'Asia/Seoul', tokyo: 'Asia/Tokyo', osaka: 'Asia/Tokyo',
  sydney: 'Australia/Sydney', melbourne: 'Australia/Melbourne', brisbane: 'Australia/Brisbane', perth: 'Australia/Perth',
  adelaide: 'Australia/Adelaide', auckland: 'Pacific/Auckland', wellington: 'Pacific/Auckland',
  // Countries with one zone, and the plain names of UTC
  poland: 'Europe/Warsaw', germany: 'Europe/Berlin', france: 'Europe/Paris', spain: 'Europe/Madrid', italy: 'Europe/Rome',
  japan: 'Asia/Tokyo', 'south korea': 'Asia/Seoul', korea: 'Asia/Seoul', india: 'Asia/Kolkata', 'united kingdom': 'Europe/London',
  uk: 'Europe/London', england: 'Europe/London', ireland: 'Europe/Dublin', ukraine: 'Europe/Kyiv', greece: 'Europe/Athens',
  egypt: 'Africa/Cairo', israel: 'Asia/Jerusalem', 'new zealand': 'Pacific/Auckland',
  utc: 'UTC', 'coordinated universal time': 'UTC',
  // US states with one zone (Washington stays the city, D.C.)
  california: 'America/Los_Angeles', oregon: 'America/Los_Angeles', nevada: 'America/Los_Angeles',
  texas: 'America/Chicago', illinois: 'America/Chicago', colorado: 'America/Denver', arizona: 'America/Phoenix', utah: 'America/Denver',
  'new york state': 'America/New_York', florida: 'America/New_York', georgia: 'America/New_York', massachusetts: 'America/New_York',
  hawaii: 'Pacific/Honolulu', alaska: 'America/Anchorage',
};

/**
 * Time zone abbreviations as people use them ("9am PST", "what is the time in EST?"): the zone of
 * the place they stand for, so the answer follows its daylight saving time (EST in July is New
 * York's EDT).
 */
const ABBREVIATIONS: Record<string, string> = {
  GMT: 'UTC', EST: 'America/New_York', EDT: 'America/New_York', ET: 'America/New_York', CST: 'America/Chicago', CDT: 'America/Chicago', CT: 'America/Chicago',
  MST: 'America/Denver', MDT: 'America/Denver', PST: 'America/Los_Angeles', PDT: 'America/Los_Angeles', PT: 'America/Los_Angeles',
  BST: 'Europe/London', CET: 'Europe/Berlin', CEST: 'Europe/Berlin', EET: 'Europe/Athens', EEST: 'Europe/Athens', IST: 'Asia/Kolkata',
  JST: 'Asia/Tokyo', KST: 'Asia/Seoul', AEST: 'Australia/Sydney', AEDT: 'Australia/Sydney', NZST: 'Pacific/Auckland', NZDT: 'Pacific/Auckland',
};

export const KNOWN_PLACES: number = Object.keys(CITIES).length + Object.keys(ABBREVIATIONS).length;

export interface Place {
  /** How the answer names the place (as asked, e.g. "Tokyo"). */
  label: string;
  zone: string;
}

/** "new york" → "New York", "uk" → "UK": a place typed in lower case, named as it is written. */
const titleCase = (s: string) => s.replace(/\p{L}+/gu, (w) => (w.length <= 2 ? w.toUpperCase() : w.charAt(0).toUpperCase() + w.slice(1)));

/** Resolves "Tokyo", "the city of new york", "Europe/Warsaw"; undefined when unknown. */
export function resolvePlace(text: string): Place | undefined {
  const label = text.trim().replace(/^(?:the\s+)?(?:city\s+of\s+)?/i, '').replace(/[?!.,]+$/, '').trim();
  if (label === '') return undefined;
  const abbreviation = ABBREVIATIONS[label.toUpperCase()];
  if (abbreviation) return { label: label.toUpperCase(), zone: abbreviation };
  const zone = CITIES[label.toLowerCase()];
  if (zone) return { label: label === label.toLowerCase() ? titleCase(label) : label, zone };
  // IANA names: Area/Location (case as in the tz database; luxon is case-insensitive).
  if (/^[A-Za-z]+(?:\/[A-Za-z0-9_+-]+)+$/.test(label) && IANAZone.isValidZone(label)) {
    // Intl gives the canonical spelling of the zone (america/new_york → America/New_York).
    return { label, zone: new Intl.DateTimeFormat('en', { timeZone: label }).resolvedOptions().timeZone };
  }
  return undefined;
}
