// Each person's time zone: natural-language times are read in it and meeting times are shown
// in it ("my time zone is Europe/Berlin"). IANA names (RFC 5545 TZID values) or UTC offsets;
// UTC until a person says otherwise, so the strict /meet form (…Z) never depends on it.
import { DateTime } from 'luxon';

export const DEFAULT_ZONE = 'UTC';

/** Person (bare JID) → IANA zone, as stored by the Coordinator. */
export type Zones = Readonly<Record<string, string>>;

/** The canonical name of a zone a person typed ("europe/berlin" → "Europe/Berlin"), or undefined. */
export function canonicalZone(text: string): string | undefined {
  const t = text.trim();
  if (!t || t.length > 64) return undefined;
  if (/^(?:utc|gmt|z|zulu)$/i.test(t)) return DEFAULT_ZONE;
  const d = DateTime.now().setZone(t);
  if (!d.isValid) return undefined;
  try {
    // Intl canonicalises IANA names ("europe/berlin" → "Europe/Berlin").
    const resolved = new Intl.DateTimeFormat('en-US', { timeZone: t }).resolvedOptions().timeZone;
    // ICU answers some current names with their legacy alias (Asia/Kolkata → Asia/Calcutta): a
    // name written with its capitals stays as the person wrote it.
    return resolved.toLowerCase() !== t.toLowerCase() && /[A-Z]/.test(t) ? t : resolved;
  } catch {
    return d.zoneName ?? undefined; // a fixed offset luxon knows ("UTC+2")
  }
}

export const zoneOf = (zones: Zones | undefined, person: string): string => zones?.[person] ?? DEFAULT_ZONE;

/** Minutes east of UTC of `zone` at `now` (chrono-node's reference offset). */
export const offsetAt = (zone: string, now: Date): number => DateTime.fromJSDate(now).setZone(zone).offset;
