// Time, dates and calendars, offline: luxon for zones and calendar arithmetic, chrono-node to
// read dates people write ("2027-01-01", "in 10 days", "next friday"). The clock is injected
// so answers are exact in tests.
// English only (chrono-node's default `parse` is the English casual parser): loading every
// locale doubled the import time.
import * as chrono from 'chrono-node/en';
import { DateTime } from 'luxon';
import { resolvePlace, type Place } from './places.js';
import { type Expert, type ExpertAnswer, invalidArgs } from '../../shared/skills/expert.js';

export interface TimeExpertOptions {
  now?: () => Date;
  /** Zone of "today" when the question names no place. */
  zone?: string;
}

const WORD_NUMBERS: Readonly<Record<string, number>> = { a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10 };
/** "3", "three", "a": how many of a unit ("3 weeks", "a year"). */
const COUNT = String.raw`(\d{1,4}|${Object.keys(WORD_NUMBERS).join('|')})`;
/** "3 weeks from today", "ten days after tomorrow": chrono reads only the day named, not the shift. */
const SHIFT = new RegExp(String.raw`\b${COUNT}\s+(day|week|month|year)s?\s+(?:from|after)\s+(today|now|tomorrow|yesterday)\b`, 'i');

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

const INTENTS = {
  // "how many days in february 2028?": before `count`, which would read it as days until 1 February.
  monthDays: new RegExp(`\\bhow\\s+many\\s+days\\s+(?:are\\s+)?(?:there\\s+)?in\\s+(?:the\\s+month\\s+of\\s+)?(${MONTHS.join('|')})\\b(?:\\s+(\\d{4}))?`, 'i'),
  // "is 2028 a leap year?"
  leap: /\bleap\s+year\b/i,
  // "how old is someone born in 1990?", "what's my age if I was born on 3 May 1990?": before `count`.
  age: /\b(?:how\s+old|age)\b.*\bborn\b/i,
  // "what is 3 hours from now?", "what time will it be in 90 minutes?": before `time`.
  later: /\b\d+\s*(?:hours?|hrs?|h|minutes?|mins?)\s+from\s+now\b|\btime\s+will\s+it\s+be\s+in\s+\d+\s*(?:hours?|hrs?|h|minutes?|mins?)\b/i,
  // "what is the time difference between Tokyo and London?": before `time`, which "what is the time" matches.
  difference: /\btime\s+difference\b|\bdifference\s+in\s+time\b|\bhours?\s+(?:ahead|behind)\b/i,
  count: /\bhow\s+(?:many\s+(days|weeks)|long\s+(?:ago|since|until|till|before|is\s+it\s+(?:until|till|since)))\b|^(?:number\s+of\s+)?(days|weeks)\s+(?:between|until|till|since)\b/i,
  // "what week number is it?", "which week is 2026-12-25 in?", "calendar week": ISO 8601 weeks.
  week: /\bweek\s+(?:number|no\.?|of\s+the\s+year)\b|\b(?:which|what)\s+(?:calendar\s+)?week\s+(?:is|was|will)\b|\bcalendar\s+week\b/i,
  weekday: /\bwhat\s+day\s+(?:of\s+the\s+week\s+)?(?:is|was|will)\b|\b(?:which|what)\s+(?:day\s+of\s+the\s+)?weekday\b|\bday\s+of\s+the\s+week\b/i,
  time: /\bwhat\s+time\s+is\s+it\b|\bwhat(?:'s|\s+is)\s+the\s+(?:current\s+|local\s+)?time\b|\b(?:current|local)\s+time\b|\btime\s+(?:is\s+it\s+)?(?:now\s+)?in\s+[a-z]/i,
  // …and "what's 3 weeks from today?", "2 months ago".
  date: new RegExp(String.raw`\b(?:what(?:'s|\s+is|\s+was|\s+will\s+be)?|which)\s+(?:the\s+)?date\b|\btoday'?s\s+date\b|\bdate\s+today\b|${SHIFT.source}|\b${COUNT}\s+(?:days?|weeks?|months?|years?)\s+ago\b`, 'i'),
} as const;
type Intent = keyof typeof INTENTS;

const HOLIDAYS: ReadonlyArray<[RegExp, string]> = [
  [/\bchristmas(?:\s+day)?\b/i, 'December 25'],
  [/\bchristmas\s+eve\b/i, 'December 24'],
  [/\bnew\s+year'?s?(?:\s+day)?\b/i, 'January 1'],
];

/**
 * "what time is 9am PST in Berlin?", "convert 3pm Tokyo time to London time", "15:30 CET in New
 * York": a time of day in one place, read in another. Both places must be known, so "5 km in
 * miles" is never one.
 */
export interface Conversion {
  hour: number;
  minute: number;
  from: Place;
  to: Place;
}
const CONVERT = /^(?:(?:convert|what\s+time\s+is|what(?:'s|\s+is)|when\s+it(?:'s|\s+is)|if\s+it(?:'s|\s+is))\s+)?(\d{1,2}|noon|midnight)(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?\s+(?:in\s+)?(.+?)(?:\s+time)?(?:\s+(?:to|in|into)|,?\s+what\s+time\s+is\s+it\s+in)\s+(.+?)(?:\s+time)?$/i;

export function conversionOf(question: string): Conversion | undefined {
  const m = CONVERT.exec(clean(question));
  if (!m) return undefined;
  const word = (m[1] as string).toLowerCase();
  let hour = word === 'noon' ? 12 : word === 'midnight' ? 0 : Number(word);
  const minute = Number(m[2] ?? 0);
  const half = m[3]?.toLowerCase().replace(/\./g, '');
  if (half) {
    if (hour < 1 || hour > 12 || word === 'noon' || word === 'midnight') return undefined;
    hour = (hour % 12) + (half === 'pm' ? 12 : 0);
  }
  if (hour > 23 || minute > 59) return undefined;
  const from = resolvePlace(m[4] as string);
  const to = resolvePlace(m[5] as string);
  return from && to ? { hour, minute, from, to } : undefined;
}

function intentOf(question: string): Intent | undefined {
  return (Object.keys(INTENTS) as Intent[]).find((k) => INTENTS[k].test(question));
}


const clean = (q: string) => q.trim().replace(/\s+/g, ' ').replace(/[?!.]+$/, '');
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const longDate = (d: DateTime) => d.toFormat('cccc, d LLLL yyyy');
/** "3 years, 2 months and 5 days" (parts that are 0 left out); undefined when all are. */
function ymd(d: { years?: number; months?: number; days?: number }): string | undefined {
  const parts = ([[d.years ?? 0, 'year'], [d.months ?? 0, 'month'], [Math.round(d.days ?? 0), 'day']] as Array<[number, string]>)
    .filter(([n]) => n > 0).map(([n, w]) => plural(n, w));
  return parts.length === 0 ? undefined : parts.length === 1 ? parts[0] : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
}
const ordinal = (n: number) => `${n}${[11, 12, 13].includes(n % 100) ? 'th' : ({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[n % 10] ?? 'th'}`;

export function createTimeExpert(opts: TimeExpertOptions = {}): Expert {
  const now = opts.now ?? (() => new Date());
  const defaultZone = opts.zone ?? 'UTC';

  /** The place named by a trailing "in <place>", if the text after "in" is words. */
  function placeOf(q: string): { place?: Place; unknown?: string } {
    const m = /\b(?:in|at)\s+([A-Za-z\u00C0-\u024F][\w\u00C0-\u024F\s/'.,&-]*)$/.exec(q);
    if (!m?.[1] || /^(?:\d|a\s|an\s|one\s|two\s|three\s|a\s+few)/i.test(m[1])) return {};
    const place = resolvePlace(m[1]);
    return place ? { place } : { unknown: m[1] };
  }

  function today(zone: string): DateTime {
    return DateTime.fromJSDate(now(), { zone }).setLocale('en-GB');
  }

  /** Dates written in the question, as calendar days in `zone`. */
  function datesIn(q: string, zone: string, forward: boolean): DateTime[] {
    const shift = SHIFT.exec(q);
    if (shift) {
      const n = WORD_NUMBERS[(shift[1] as string).toLowerCase()] ?? Number(shift[1]);
      const from = today(zone).startOf('day').plus({ days: { tomorrow: 1, yesterday: -1 }[(shift[3] as string).toLowerCase()] ?? 0 });
      return [from.plus({ [`${(shift[2] as string).toLowerCase()}s`]: n })];
    }
    let text = q;
    for (const [re, to] of HOLIDAYS) text = text.replace(re, to);
    const ref = { instant: now(), timezone: today(zone).offset };
    return chrono.parse(text, ref, { forwardDate: forward }).map((r) =>
      DateTime.fromObject({ year: r.start.get('year') ?? 0, month: r.start.get('month') ?? 1, day: r.start.get('day') ?? 1 }, { zone }).setLocale('en-GB'));
  }

  /** "in new york and london", "in Tokyo, Paris": every place, when each is one (else undefined). */
  function placesOf(q: string): Place[] | undefined {
    const { unknown } = placeOf(q);
    if (!unknown || !/,|&|\band\b|\bvs\b|\bversus\b/i.test(unknown)) return undefined;
    const places = unknown.split(/\s*(?:,|&|\band\b|\bvs\b\.?|\bversus\b)\s*/i).filter(Boolean).map((p) => resolvePlace(p));
    return places.length >= 2 && places.length <= 10 && places.every((p): p is Place => p !== undefined) ? places : undefined;
  }

  const clockIn = (zone: string, label?: string) => {
    const t = today(zone);
    const offset = `UTC${t.toFormat('ZZ')}`;
    let where = zone === 'UTC' ? 'UTC' : `in ${zone} (${offset})`;
    if (label && label !== zone && zone !== 'UTC') where = `in ${label} (${zone}, ${offset})`;
    return { t, where };
  };

  function zoneFor(q: string, required: boolean): { zone: string; label?: string } {
    const { place, unknown } = placeOf(q);
    if (place) return { zone: place.zone, label: place.label };
    if (unknown && required) throw invalidArgs(`unknown place ${JSON.stringify(unknown)}: name a major city or an IANA zone such as Europe/Warsaw`);
    return { zone: defaultZone };
  }

  /** A time of day in another place (conversionOf). */
  function convert(c: Conversion): ExpertAnswer {
      const at = today(c.from.zone).set({ hour: c.hour, minute: c.minute, second: 0, millisecond: 0 });
      const there = at.setZone(c.to.zone).setLocale('en-GB');
      const [d0, d1] = [at.toISODate() as string, there.toISODate() as string];
      const day = d1 === d0 ? '' : ` ${d1 < d0 ? 'the day before' : 'the next day'} (${there.toFormat('cccc')})`;
      const name = (p: Place) => (p.label === p.zone ? p.label : `${p.label} (${p.zone})`);
      return {
        answer: `${at.toFormat('HH:mm')} today in ${name(c.from)} is ${there.toFormat('HH:mm')}${day} in ${name(c.to)}.`,
        meta: { from: at.toISO(), to: there.toISO() },
      };
  }

  const answers: Record<Intent, (q: string) => ExpertAnswer> = {
    time(q) {
      const several = placesOf(q);
      if (several) {
        const clocks = several.map((p) => clockIn(p.zone, p.label));
        // One date at the end when all share it, else each clock with its own.
        const sameDay = clocks.every(({ t }) => t.toISODate() === clocks[0]!.t.toISODate());
        const parts = clocks.map(({ t, where }) => `${t.toFormat('HH:mm')} ${where}${sameDay ? '' : ` on ${longDate(t)}`}`);
        const answer = `It is ${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}${sameDay ? ` on ${longDate(clocks[0]!.t)}` : ''}.`;
        return { answer, meta: { zones: several.map((p) => p.zone) } };
      }
      const { zone, label } = zoneFor(q, true);
      const { t, where } = clockIn(zone, label);
      return { answer: `It is ${t.toFormat('HH:mm')} ${where} on ${longDate(t)}.`, meta: { zone, iso: t.toISO() } };
    },
    monthDays(q) {
      const m = INTENTS.monthDays.exec(q) as RegExpExecArray;
      const year = m[2] ? Number(m[2]) : today(defaultZone).year;
      const first = DateTime.fromObject({ year, month: MONTHS.indexOf((m[1] as string).toLowerCase()) + 1, day: 1 }, { zone: defaultZone }).setLocale('en-GB');
      return { answer: `${first.toFormat('LLLL yyyy')} has ${first.daysInMonth} days.`, meta: { year, month: first.month, days: first.daysInMonth } };
    },
    leap(q) {
      const year = Number(/\b(\d{4})\b/.exec(q)?.[1] ?? today(defaultZone).year);
      const isLeap = (y: number) => DateTime.fromObject({ year: y }).isInLeapYear;
      let next = year + 1;
      while (!isLeap(next)) next += 1;
      const answer = isLeap(year) ? `Yes, ${year} is a leap year: February has 29 days.` : `No, ${year} is not a leap year; the next one is ${next}.`;
      return { answer, meta: { year, leap: isLeap(year) } };
    },
    age(q) {
      const after = /\bborn\b(?:\s+(?:in|on))?\s+(.+)$/i.exec(q)?.[1] ?? '';
      const day = today(defaultZone).startOf('day');
      const yearOnly = /^(\d{4})$/.exec(after.trim());
      if (yearOnly) {
        const year = Number(yearOnly[1]);
        if (year > day.year) throw invalidArgs(`${year} is still ahead`);
        const age = day.year - year;
        const answer = age === 0 ? `Someone born in ${year} is under a year old.` : `Someone born in ${year} is ${age - 1} or ${age}: ${age} once their birthday this year has passed (today is ${longDate(day)}).`;
        return { answer, meta: { born: year, age: [Math.max(age - 1, 0), age] } };
      }
      const born = datesIn(after, defaultZone, false)[0];
      if (!born || !after) throw invalidArgs('no birth date found (try "how old is someone born on 3 May 1990?")');
      if (born > day) throw invalidArgs(`${longDate(born)} is still ahead`);
      const d = day.diff(born, ['years', 'months', 'days']).toObject();
      const years = d.years ?? 0;
      const next = born.plus({ years: years + 1 });
      const birthday = born.plus({ years }).hasSame(day, 'day') ? ' Happy birthday: it is today.' : '';
      const span = ymd(d) ?? '0 days';
      const answer = `Born on ${longDate(born)}: ${span} old today (${Math.round(day.diff(born, 'days').days).toLocaleString('en-GB')} days).${birthday} The next birthday, the ${ordinal(years + 1)}, is ${longDate(next)} (in ${plural(Math.round(next.diff(day, 'days').days), 'day')}).`;
      return { answer, meta: { born: born.toISODate(), years, next: next.toISODate() } };
    },
    week(q) {
      const d = datesIn(q, defaultZone, false)[0] ?? today(defaultZone).startOf('day');
      const monday = d.startOf('week');
      const sunday = monday.plus({ days: 6 });
      const verb = sunday < today(defaultZone).startOf('day') ? 'was' : 'is';
      const span = monday.hasSame(sunday, 'month') ? `Monday ${monday.day} to Sunday ${sunday.toFormat('d LLLL')}` : `Monday ${monday.toFormat('d LLLL')} to Sunday ${sunday.toFormat('d LLLL')}`;
      return { answer: `${d.toISODate()} ${verb} in week ${d.weekNumber} of ${d.weekYear} (ISO 8601: ${span}).`, meta: { week: d.weekNumber, weekYear: d.weekYear, date: d.toISODate() } };
    },
    date(q) {
      const dates = datesIn(q, defaultZone, false);
      const { zone, label } = dates.length > 0 ? { zone: defaultZone, label: undefined } : zoneFor(q, true);
      const d = dates[0] ?? today(zone).startOf('day');
      const where = label ? ` in ${label}` : '';
      return { answer: `${longDate(d)} (${d.toISODate()})${where}.`, meta: { zone, date: d.toISODate() } };
    },
    weekday(q) {
      const d = datesIn(q, defaultZone, false)[0] ?? today(defaultZone).startOf('day');
      const verb = d < today(defaultZone).startOf('day') ? 'was' : 'is';
      return { answer: `${d.toISODate()} ${verb} a ${d.toFormat('cccc')}.`, meta: { date: d.toISODate(), weekday: d.toFormat('cccc') } };
    },
    later(q) {
      const m = /(\d+)\s*(hours?|hrs?|h|minutes?|mins?)\b/i.exec(q);
      const n = Number(m?.[1] ?? 0);
      const minutes = /^h/i.test(m?.[2] ?? '') ? n * 60 : n;
      if (!Number.isSafeInteger(minutes) || minutes > 366 * 24 * 60) throw invalidArgs('name at most a year ahead (try "what is 3 hours from now?")');
      const t = today(defaultZone).plus({ minutes });
      const span = minutes % 60 === 0 ? plural(minutes / 60, 'hour') : plural(minutes, 'minute');
      const where = defaultZone === 'UTC' ? 'UTC' : `in ${defaultZone}`;
      return { answer: `In ${span} it will be ${t.toFormat('HH:mm')} ${where} on ${longDate(t)}.`, meta: { zone: defaultZone, iso: t.toISO() } };
    },
    difference(q) {
      const m = /\bbetween\s+(.+?)\s+(?:and|&)\s+(.+)$/i.exec(q) ?? /\b(?:difference|ahead|behind)\s+(?:is\s+|of\s+|from\s+|in\s+)?(.+?)\s+(?:and|&|of|from|vs\.?|versus)\s+(.+)$/i.exec(q);
      if (!m) throw invalidArgs('name two places (try "what is the time difference between Tokyo and London?")');
      const [a, b] = [m[1] as string, m[2] as string].map((name) => {
        const place = resolvePlace(name.trim());
        if (!place) throw invalidArgs(`unknown place ${JSON.stringify(name.trim())}: name a major city or an IANA zone such as Europe/Warsaw`);
        return place;
      }) as [Place, Place];
      const [ta, tb] = [today(a.zone), today(b.zone)];
      const minutes = ta.offset - tb.offset;
      const span = (n: number) => (n % 60 === 0 ? plural(n / 60, 'hour') : `${Math.floor(n / 60)} h ${n % 60} min`);
      const head = minutes === 0 ? `${a.label} and ${b.label} have the same time` : `${a.label} is ${span(Math.abs(minutes))} ${minutes > 0 ? 'ahead of' : 'behind'} ${b.label}`;
      const at = (t: DateTime, p: Place) => `${t.toFormat('HH:mm')}${ta.toISODate() === tb.toISODate() ? '' : ` on ${t.toFormat('cccc')}`} in ${p.label}`;
      return { answer: `${head}: it is ${at(ta, a)} and ${at(tb, b)}.`, meta: { zones: [a.zone, b.zone], minutes } };
    },
    count(q) {
      const since = /\b(?:since|ago)\b/i.test(q);
      const dates = datesIn(q, defaultZone, !since);
      if (dates.length === 0) throw invalidArgs('no date found in the question (try "how many days until 2027-01-01?")');
      const [a, b] = dates.length >= 2 ? [dates[0]!, dates[1]!] : [today(defaultZone).startOf('day'), dates[0]!];
      const days = Math.round(b.diff(a, 'days').days);
      if (/\bhow\s+long\b/i.test(q) && dates.length === 1) return howLong(a, b, days);
      const counted = INTENTS.count.exec(q);
      const unit = (counted?.[1] ?? counted?.[2])?.toLowerCase() === 'weeks' ? 'weeks' : 'days';
      const amount = (n: number) => (unit === 'weeks' ? `${plural(Math.floor(n / 7), 'week')} and ${plural(n % 7, 'day')}` : plural(n, 'day'));
      let answer: string;
      if (dates.length >= 2) answer = `${amount(Math.abs(days))} between ${longDate(a)} and ${longDate(b)}.`;
      else if (days >= 0) answer = `${amount(days)} until ${longDate(b)}.`;
      else answer = `${amount(-days)} since ${longDate(b)}.`;
      return { answer, meta: { days, from: a.toISODate(), to: b.toISODate() } };
    },
  };

  /** "how long ago was 1 January 2000?": years, months and days, and the days in all. */
  function howLong(from: DateTime, to: DateTime, days: number): ExpertAnswer {
    const [a, b] = days >= 0 ? [from, to] : [to, from];
    const d = b.diff(a, ['years', 'months', 'days']).toObject();
    const span = ymd(d) ?? 'today';
    const total = Math.abs(days).toLocaleString('en-GB');
    const answer = days === 0 ? `${longDate(to)} is today.` : days > 0 ? `${longDate(to)} is ${span} away (${total} days).` : `${longDate(to)} was ${span} ago (${total} days).`;
    return { answer, meta: { days, from: from.toISODate(), to: to.toISODate() } };
  }

  return {
    name: 'time',
    description: 'Current time in cities and time zones (several at once), a time of day in another place ("9am PST in Berlin"), time differences, dates, weekdays, week numbers, days between dates, ages and leap years, offline.',
    topics: ['time', 'date', 'timezone', 'time zone', 'clock', 'calendar', 'day of the week', 'days until', 'weekday'],
    examples: ['what time is it in Tokyo?', 'how many days until 2027-01-01?', 'what day of the week is 2026-12-25?', 'what is the date in 10 days?'],
    recognise: (question) => (question.length <= 500 && (conversionOf(question) || intentOf(question)) ? 1 : 0),
    answer: async (question) => {
      const q = clean(question);
      const conversion = conversionOf(q);
      if (conversion) return convert(conversion);
      const intent = intentOf(q);
      if (!intent) throw invalidArgs('not a question about time or dates');
      return answers[intent](q);
    },
  };
}
