// "and times 2", "divide that by 3", "squared": a calculation that goes on from the number a person
// was just told, as on a calculator. Before, such a line had no left-hand side and nobody took it
// ("I can't help with that one"). The Presenter puts that number in its place, as it puts the chosen
// line in place of "2" after numbered choices (shown-choices.ts), and handles the line as typed:
// "and times 2?" after "391" asks "391 times 2". Only an answer that is a number counts, and only
// the last line to that person (any other answer forgets it), for VALUE_TTL_MS; kept per person in
// presenter-threads.sqlite, so a restart forgets nothing.
import type { Db } from '../../shared/store/index.js';
import { PersonRows } from './person-rows.js';

export const VALUE_TTL_MS = 30 * 60_000;

/**
 * An answer that is a number and nothing else: "391", "-0.5", "1.5e+20", "18446744073709551616";
 * a note in brackets after it is not part of it ("4.605… (the natural logarithm; …)").
 */
const NUMBER = /^(-?\d+(?:\.\d+)?(?:e[+-]?\d+)?)(?:\s+\((?:[^()]|\([^()]*\))*\))?$/i;
/** What stands for the last answer in a line. */
const PRONOUN = String.raw`(?:that|it|this|the\s+(?:answer|result|number))`;
const OPERATOR = String.raw`(?:times|multiplied\s+by|plus|minus|divided\s+by|over|to\s+the\s+power\s+of|mod)`;
/** An operand: it starts like a number, a bracket, pi or a function call ("sqrt(2)"); not a word ("times square"). */
const OPERAND = String.raw`(?:[-\d.($€£]|pi\b|[a-z]+\s*\()`;
const LEAD = /^(?:and|then|now|so|ok(?:ay)?)[,\s]+/i;
/** "what's that squared": only a line naming the answer may start so ("what is minus 5 plus 2" stands on its own). */
const ASKED = /^(?:what(?:'s|’s|s|\s+is)|how\s+much\s+is)\s+/i;

/** The ways a line goes on from the number, compiled once (every chat line is tested): each gives the new line. */
const FORMS: ReadonlyArray<[RegExp, (v: string, m: RegExpExecArray) => string]> = [
  [new RegExp(`^(multiply|divide)\\s+${PRONOUN}\\s+by\\s+(.*\\d.*)$`, 'i'), (v, m) => `${v} ${(m[1] as string).toLowerCase() === 'multiply' ? '*' : '/'} ${m[2]}`],
  [new RegExp(`^add\\s+(.*\\d.*?)\\s+to\\s+${PRONOUN}$`, 'i'), (v, m) => `${v} + ${m[1]}`],
  [new RegExp(`^(?:subtract|take\\s+away)\\s+(.*\\d.*?)\\s+from\\s+${PRONOUN}$`, 'i'), (v, m) => `${v} - ${m[1]}`],
  [new RegExp(`^((?:double|triple|twice|(?:one\\s+|an?\\s+)?(?:half|third|quarter)\\s+of|(?:the\\s+)?(?:square|cube)\\s+root\\s+of|sqrt\\s+of))\\s+${PRONOUN}$`, 'i'), (v, m) => `${m[1]} ${v}`],
  [new RegExp(`^${PRONOUN}\\s+((?:${OPERATOR})\\s+${OPERAND}.*|squared|cubed)$`, 'i'), (v, m) => `${v} ${m[1]}`],
];
/** Forms with no word for the answer: not after "what is" ("what is minus 5 plus 2" stands on its own). */
const BARE = [new RegExp(`^(?:${OPERATOR})\\s+${OPERAND}`, 'i'), /^(?:squared|cubed)$/i, /^(?:[*/+^×÷]\s*|x\s+|-\s+)[\d.(]/i]; // symbols: "* 2", "x 3", "- 5" ("-5" is a number)

/** Longer lines stand on their own: a follow-up is short, and the forms' backtracking stays bounded on any input. */
const MAX_CHARS = 200;

/** How a line goes on from `value`, or undefined when it stands on its own. */
export function continued(text: string, value: string): string | undefined {
  if (text.length > MAX_CHARS) return undefined;
  const plain = text.trim().replace(/\s+/g, ' ').replace(/[?!.\s]+$/, '').replace(LEAD, '');
  const s = plain.replace(ASKED, '');
  for (const [re, make] of FORMS) {
    const m = re.exec(s);
    if (m) return make(value, m);
  }
  if (s !== plain) return undefined;
  return BARE.some((re) => re.test(s)) ? `${value} ${s}` : undefined;
}

export class LastValue {
  private readonly rows: PersonRows;

  constructor(db: Db, now: () => number = Date.now) {
    this.rows = new PersonRows(db, 'last_value', 'value', VALUE_TTL_MS, now);
  }

  /** A line went to `person`: a number is what their next calculation may go on from; anything else forgets it. */
  told(person: string, text: string): void {
    const value = NUMBER.exec(text.trim())?.[1];
    if (value !== undefined) this.rows.put(person, value);
    else this.rows.drop(person);
  }

  /**
   * The line `text` with the number `person` was just told in place; `nothing` when the line goes
   * on from a number but none was told lately; undefined when the line stands on its own.
   */
  resolve(person: string, text: string): { line: string } | 'nothing' | undefined {
    const value = this.rows.get(person);
    const line = continued(text, value ?? '0');
    if (line === undefined) return undefined;
    return value === undefined ? 'nothing' : { line };
  }
}
