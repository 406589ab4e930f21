// Recognition that needs no worker round trip (issue 15, docs/skills.md "In-process patterns"):
// keywords (substring tests) always, and the patterns of a skill that opts in with
// `"recognise": {"inProcess": true}`. Those patterns are data, not code, but a backtracking
// regular expression can take exponential time on a crafted question (ReDoS), and here it would
// block the specialist's event loop instead of a killable sandbox. So they run on V8's linear-time
// engine (the `l` flag, an RE2-style automaton without backtracking; it refuses what it cannot do
// in linear time: backreferences, lookaround, large counted repetition), against the question in
// lower case (that engine has no `i`), and within bounds: at most IN_PROCESS_MAX_PATTERNS patterns
// with IN_PROCESS_MAX_OPERATORS quantifiers and alternatives in all, questions up to
// IN_PROCESS_MAX_CHARS characters. A longer question, or a Node without the engine, is
// recognised in the skill's worker as before (the worker has the same patterns, with `i`).
import v8 from 'node:v8';

/** skill.json `recognise` (manifest.ts validates it). */
export interface Recognition {
  /** Regular expressions (case-insensitive); a match scores `score` (default 1). */
  patterns?: string[];
  /** Words or phrases; one occurring in the question scores 0.5. */
  keywords?: string[];
  /** The handler module exports recognise(question) → number in [0, 1] or boolean. */
  module?: boolean;
  /** The patterns run in the specialist's process (linear-time engine, lower case, bounded). */
  inProcess?: boolean;
  score?: number;
}

/** Longer questions go to the worker: the work here is bounded by patterns × this. */
export const IN_PROCESS_MAX_CHARS = 160;
export const IN_PROCESS_MAX_PATTERNS = 16;
/** `*`, `+`, `?`, `{` and `|` in all patterns: each adds threads the automaton may carry per character. */
export const IN_PROCESS_MAX_OPERATORS = 24;

function enableLinearEngine(): boolean {
  try {
    // The flag only makes the `l` flag available; no other regular expression changes. A bundled
    // agent's runner sets it before compiling (shared/supervisor/code-cache.cts RUNTIME_V8_FLAGS:
    // V8 rejects a code cache made under other flags); a flag added here belongs there too.
    v8.setFlagsFromString('--enable-experimental-regexp-engine');
    return new RegExp('a', 'l').test('a'); // eslint-disable-line no-invalid-regexp -- probes the flag
  } catch {
    return false;
  }
}

// ESLint's no-invalid-regexp knows no `l` flag (it is V8's, behind the flag above).
const LINEAR = 'l';

/** Whether this Node has V8's linear-time engine (Node 16 and later do, behind the flag above). */
export const LINEAR_ENGINE = enableLinearEngine();

/**
 * A RegExp on the linear-time engine, for patterns checked in the specialist's process on any
 * input (an inputSchema's `pattern`, manifest.ts). Throws when it cannot be one: no linear engine,
 * or a construct it cannot run in linear time; \p{…} and \u{…} need the `u` flag it lacks.
 */
export function linearRegExp(pattern: string): RegExp {
  if (!LINEAR_ENGINE) throw new Error('this Node has no linear-time regular expressions');
  if (/(?:^|[^\\])(?:\\\\)*\\(?:[pP]\{|u\{)/.test(pattern)) throw new Error(`/${pattern}/: \\p{…} and \\u{…} need the u flag, which the linear-time engine lacks`);
  return new RegExp(pattern, LINEAR);
}

/**
 * Quantifiers and alternatives outside escapes (inside a character class they count too: an upper
 * bound); the `?` of a group's `(?:`, `(?=` is syntax, not a quantifier.
 */
function operators(pattern: string): number {
  let n = 0;
  for (let i = 0; i < pattern.length; i += 1) {
    const c = pattern[i];
    if (c === '\\') i += 1;
    else if (c === '?' && pattern[i - 1] === '(') continue;
    else if (c === '*' || c === '+' || c === '?' || c === '{' || c === '|') n += 1;
  }
  return n;
}

/**
 * Why `inProcess` patterns cannot run here, or undefined. Upper-case letters and \x, \u, \c
 * escapes are refused: they would never match a lower-cased question (write patterns in lower
 * case). Without the linear engine nothing is compiled here: the worker evaluates them.
 */
export function inProcessProblem(patterns: readonly string[]): string | undefined {
  if (patterns.length > IN_PROCESS_MAX_PATTERNS) return `at most ${IN_PROCESS_MAX_PATTERNS} patterns run in process (${patterns.length} given)`;
  const total = patterns.reduce((n, p) => n + operators(p), 0);
  if (total > IN_PROCESS_MAX_OPERATORS) return `at most ${IN_PROCESS_MAX_OPERATORS} quantifiers and alternatives in all run in process (${total} given)`;
  for (const p of patterns) {
    if (/(?:^|[^\\])(?:\\\\)*\\[xuc]/.test(p)) return `${JSON.stringify(p)}: no \\x, \\u or \\c escapes in process (the question is matched in lower case)`;
    if (/[A-Z]/.test(p.replace(/\\./g, ''))) return `${JSON.stringify(p)}: write it in lower case (the question is matched in lower case)`;
    if (!LINEAR_ENGINE) continue;
    try {
      new RegExp(p, LINEAR);
    } catch {
      return `${JSON.stringify(p)} cannot run in linear time (backreference, lookaround or large counted repetition)`;
    }
  }
  return undefined;
}

/** One skill's recognition as far as it can be decided here. */
export class QuickRecogniser {
  private readonly keywords: string[];
  private readonly linear: RegExp[] | undefined;
  private readonly patterns: number;

  constructor(private readonly r: Recognition) {
    this.keywords = (r.keywords ?? []).map((k) => k.toLowerCase());
    this.patterns = r.patterns?.length ?? 0;
    const usable = r.inProcess && this.patterns > 0 && LINEAR_ENGINE && inProcessProblem(r.patterns ?? []) === undefined;
    this.linear = usable ? (r.patterns ?? []).map((p) => new RegExp(p, LINEAR)) : undefined;
  }

  /** Whether the skill recognises anything at all (a skill without is only for ctx.use). */
  get answers(): boolean {
    return Boolean(this.r.module) || this.patterns > 0 || this.keywords.length > 0;
  }

  /**
   * The score known without the worker, and whether the worker must still be asked (module
   * recognition, or patterns that cannot run here for this question). `lower` is the question
   * in lower case, computed once for all skills.
   */
  score(question: string, lower: string): { score: number; worker: boolean } {
    let best = this.keywords.some((k) => lower.includes(k)) ? 0.5 : 0;
    let worker = Boolean(this.r.module);
    if (this.patterns > 0) {
      if (this.linear && question.length <= IN_PROCESS_MAX_CHARS) {
        if (this.linear.some((p) => p.test(lower))) best = Math.max(best, this.r.score ?? 1);
      } else {
        worker = true;
      }
    }
    return { score: best, worker };
  }
}
