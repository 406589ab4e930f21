// "meet bob on friday" → "How long should the meeting be?" → "30 min": the answer to a question the
// Coordinator asked back completes the request it asked about, as in any conversation. Before, the
// answer was read alone: "30 min" went to the arithmetic skill (and came back as its error), "with
// bob tomorrow for 1 hour" was "I can't help with that one". What was asked back is kept per person
// in data/scheduling.sqlite (store.ts `asked_back`) for ASKED_BACK_TTL_MS; a line that does not fit
// the question is read on its own as before. Pure, apart from what the factory reads and writes.

/** A request the Coordinator could not use and asked back about (parse.ts `scheduling-error` askBack). */
export interface AskBack {
  /** The request as far as it went ("schedule with bob on friday"). */
  text: string;
  /** duration: "How long …?"; people: "With whom?"; details: "With whom, for how long and when?". */
  missing: 'duration' | 'people' | 'details';
}

export interface AskedBack extends AskBack {
  /** When it was asked (epoch ms). */
  at: number;
  /** The reply_with of the line that answered it: only that line (and its copy after a restart) completes it. */
  usedBy?: string;
}

export const ASKED_BACK_TTL_MS = 10 * 60_000;

// "30 min", "for an hour", "1h30", "make it 45 minutes", "half an hour please".
const DURATION = /^\s*(?:(?:for|make\s+it|about|just|say)\s+)*(\d+(?:[.,]\d+)?\s*(?:minutes?|mins?|m|hours?|hrs?|h)|\d+\s*h\s*\d{1,2}|an?\s+hour(?:\s+and\s+a\s+half)?|half\s+an\s+hour|one\s+hour)\s*(?:please)?\s*[.!]?\s*$/i;
// "bob", "with bob and carol", "bob, carol": names only.
const NAMES = /^\s*(?:with\s+)?([a-z][a-z0-9._-]*(?:\s*(?:,|and|&)\s*[a-z][a-z0-9._-]*)*)\s*[.!]?\s*$/i;
/** Words that are an answer of their own, never a name. */
const NOT_NAMES = new Set(['cancel', 'stop', 'nevermind', 'no', 'nope', 'yes', 'ok', 'okay', 'help', 'new', 'nobody', 'none', 'thanks', 'agenda', 'rooms']);

/** The request `line` completes, or undefined when it is no answer to what was asked. */
export function completion(asked: AskBack, line: string): string | undefined {
  switch (asked.missing) {
    case 'duration': {
      const m = DURATION.exec(line);
      return m ? `${asked.text} for ${m[1]}` : undefined;
    }
    case 'people': {
      const m = NAMES.exec(line);
      const names = m?.[1]?.split(/\s*(?:,|\band\b|&)\s*/i).filter(Boolean) ?? [];
      return m && names.every((n) => !NOT_NAMES.has(n.toLowerCase())) ? `${asked.text} with ${m[1]}` : undefined;
    }
    case 'details':
      // "with bob tomorrow for 1 hour", "30 min with bob and carol on friday".
      return /^\s*(?:with\s+\S|\d+\s*(?:minutes?|mins?|m|hours?|hrs?|h)\b|an?\s+hour\b|half\s+an\s+hour\b)/i.test(line) ? `schedule ${line.trim()}` : undefined;
  }
}

/** What was asked back of `person` that `replyWith` may still answer, if any. */
export function openAskBack(asked: AskedBack | undefined, replyWith: string | undefined, now: number): AskedBack | undefined {
  if (!asked || now - asked.at > ASKED_BACK_TTL_MS) return undefined;
  return asked.usedBy === undefined || asked.usedBy === replyWith ? asked : undefined;
}
