// Scenario expectations for `npm run trace -- --scenario FILE` (test/fixtures/scenarios/*.json).
// A step is "PERFORMATIVE" or "PERFORMATIVE CONTENT_TYPE" (e.g. "INFORM RESULT"). `performatives`
// must match the whole message sequence; `performatives_subsequence` only in order, with gaps,
// for flows whose details vary (which specialist is asked first is not guaranteed).
import type { TraceMessage, Violation } from './types.js';

export interface Expectations {
  /** Every string must occur in the answer (case-insensitive). */
  answer_contains?: string | string[];
  /** At least one of these must occur in the answer (case-insensitive). */
  answer_contains_any?: string[];
  /** A regular expression (flags i) the answer must match. */
  answer_matches?: string;
  performatives?: string[];
  performatives_subsequence?: string[];
  /** Substrings that some recorded decision (agent notes and in/out decisions) must contain. */
  decisions_include?: string[];
}

export interface Scenario {
  name?: string;
  question: string;
  /** Questions the same person asks first, each in its own conversation (not traced). */
  before?: string[];
  expect?: Expectations;
}

export function parseScenario(json: string, file = 'scenario'): Scenario {
  const raw = JSON.parse(json) as Partial<Scenario>;
  if (typeof raw.question !== 'string' || raw.question.trim() === '') throw new Error(`${file}: "question" (a non-empty string) is required`);
  if (raw.before !== undefined && !(Array.isArray(raw.before) && raw.before.every((q) => typeof q === 'string'))) {
    throw new Error(`${file}: "before" must be a list of strings`);
  }
  return raw as Scenario;
}

export const stepOf = (m: TraceMessage) => (m.content_type ? `${m.performative} ${m.content_type}` : m.performative);

function stepMatches(pattern: string, m: TraceMessage): boolean {
  const [perf, type] = pattern.trim().split(/\s+/, 2);
  return perf === m.performative && (type === undefined || type === m.content_type);
}

/** Index of each pattern in `messages`, in order with gaps; -1 from the first one missing. */
function subsequence(patterns: string[], messages: TraceMessage[]): number {
  let i = 0;
  for (const m of messages) if (i < patterns.length && stepMatches(patterns[i] as string, m)) i += 1;
  return i;
}

export function checkExpectations(e: Expectations, messages: TraceMessage[], answer: string | undefined, decisions: string[]): Violation[] {
  const out: Violation[] = [];
  const seq = messages.map(stepOf).join(', ');
  const text = (answer ?? '').toLowerCase();
  const contains = e.answer_contains === undefined ? [] : [e.answer_contains].flat();
  for (const s of contains) {
    if (!text.includes(s.toLowerCase())) out.push({ invariant: 'answer', detail: `answer ${JSON.stringify(answer ?? null)} does not contain ${JSON.stringify(s)}` });
  }
  if (e.answer_contains_any && !e.answer_contains_any.some((s) => text.includes(s.toLowerCase()))) {
    out.push({ invariant: 'answer', detail: `answer ${JSON.stringify(answer ?? null)} contains none of ${JSON.stringify(e.answer_contains_any)}` });
  }
  if (e.answer_matches && !new RegExp(e.answer_matches, 'i').test(answer ?? '')) {
    out.push({ invariant: 'answer', detail: `answer ${JSON.stringify(answer ?? null)} does not match /${e.answer_matches}/i` });
  }
  if (e.performatives) {
    const exact = e.performatives.length === messages.length && e.performatives.every((p, i) => stepMatches(p, messages[i] as TraceMessage));
    if (!exact) out.push({ invariant: 'performatives', detail: `expected ${e.performatives.join(', ')}; got ${seq}` });
  }
  if (e.performatives_subsequence) {
    const n = subsequence(e.performatives_subsequence, messages);
    if (n < e.performatives_subsequence.length) {
      out.push({
        invariant: 'performatives',
        detail: `expected the subsequence ${e.performatives_subsequence.join(', ')}; ${e.performatives_subsequence[n]} (step ${n + 1}) is missing after the first ${n}; got ${seq}`,
      });
    }
  }
  for (const d of e.decisions_include ?? []) {
    if (!decisions.some((x) => x.includes(d))) out.push({ invariant: 'decisions', detail: `no recorded decision contains ${JSON.stringify(d)}` });
  }
  return out;
}
