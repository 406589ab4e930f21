// "1", "book 2", "the first one": a typed answer to the choices last shown to a person (rich.choices,
// choices.ts). A client with forms sends the chosen line itself; in any other client the person had
// to copy a command such as "meet 30m bob 2026-11-30T09:00Z..2026-11-30T09:30Z". Now the numbered
// list can be answered by its number, as the form's answer is: the Presenter puts the chosen line
// in its place and handles it like a typed one. The choices a person was shown last are kept per
// person in presenter-threads.sqlite (a restart forgets nothing) for CHOICES_TTL_MS; any later line
// to them without choices (another answer) replaces them, so a number never reaches back past it.
import type { Db } from '../../shared/store/index.js';
import type { Choice } from './choices.js';
import { PersonRows } from './person-rows.js';

export const CHOICES_TTL_MS = 12 * 3600_000;

const ORDINALS = ['first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth', 'ninth', 'tenth'];
const SELECTOR = new RegExp(
  `^\\s*(?:(?:book|take|choose|pick|select|use)\\s+)?(?:(?:the|option|number|no\\.?|#)\\s*)?(\\d{1,2}|${ORDINALS.join('|')}|\\d{1,2}(?:st|nd|rd|th))(?:\\s+(?:one|option|please))*\\s*[.!]?\\s*$`,
  'i',
);

/** The 0-based choice a line picks ("2", "book 2", "the second one", "#2", "2nd"), or undefined. */
export function pickedIndex(text: string): number | undefined {
  const m = SELECTOR.exec(text);
  if (!m) return undefined;
  const word = (m[1] as string).toLowerCase();
  const n = ORDINALS.includes(word) ? ORDINALS.indexOf(word) + 1 : Number.parseInt(word, 10);
  return n >= 1 ? n - 1 : undefined;
}

export class ShownChoices {
  private readonly rows: PersonRows;

  constructor(db: Db, now: () => number = Date.now) {
    this.rows = new PersonRows(db, 'shown_choices', 'choices', CHOICES_TTL_MS, now);
  }

  /**
   * A line went to `person`: its choices are the ones a number now means, when its text numbers
   * them ("1. …"); otherwise nothing is to pick (a form's buttons alone, "accept"/"decline" of a
   * task, are answered in words: a stray "2" must not decline a task).
   */
  shown(person: string, text: string, choices: readonly Choice[] | undefined): void {
    if (choices?.length && /(?:^|\n)1\. /.test(text)) this.rows.put(person, JSON.stringify(choices));
    else this.rows.drop(person);
  }

  /**
   * What `text` stands for when it picks one of the choices `person` was shown last: the chosen
   * line, or how many there are when the number is past them; undefined when it picks nothing
   * (not a pick, or nothing shown lately) and goes on as typed.
   */
  resolve(person: string, text: string): { line: string } | { outOf: number } | undefined {
    const index = pickedIndex(text);
    if (index === undefined) return undefined;
    const shown = this.rows.get(person);
    if (shown === undefined) return undefined;
    const choices = JSON.parse(shown) as Choice[];
    const picked = choices[index];
    return picked ? { line: picked.say } : { outOf: choices.length };
  }
}
