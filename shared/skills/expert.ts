// What a Specialist's expert is (issue "The seed contract end to end"): a pure recogniser that
// says whether a question is in its scope, and an answer function. Experts throw
// ParleyError('INVALID_ARGS', …) for questions they recognise but cannot evaluate; anything else
// they throw becomes FAILURE INTERNAL_ERROR (seed contract §4).
import { ParleyError } from '../acl/index.js';

export interface ExpertAnswer {
  answer: string;
  meta?: Record<string, unknown>;
}

export interface Expert {
  readonly name: string;
  readonly description: string;
  /** Keywords for the DF's ranking (REGISTER profile.topics). */
  readonly topics: readonly string[];
  /** Sample questions (REGISTER profile.examples). */
  readonly examples: readonly string[];
  /** false/0 = out of scope; a number in (0, 1] ranks competing experts. */
  recognise(question: string): boolean | number;
  answer(question: string): Promise<string | ExpertAnswer>;
}

export function invalidArgs(detail: string): ParleyError {
  return new ParleyError('INVALID_ARGS', detail);
}

function score(expert: Expert, question: string): number {
  try {
    const s = expert.recognise(question);
    return typeof s === 'number' ? (Number.isFinite(s) ? s : 0) : s ? 1 : 0;
  } catch {
    return 0; // a recogniser that throws does not claim the question
  }
}

/** The expert with the highest positive score, or undefined when the question is out of scope. */
export function pickExpert(experts: readonly Expert[], question: string): Expert | undefined {
  let best: Expert | undefined;
  let bestScore = 0;
  for (const e of experts) {
    const s = score(e, question);
    if (s > bestScore) [best, bestScore] = [e, s];
  }
  return best;
}

/** RESULT content's `result`: {answer, meta: {expert, …}} (contracts/result.json). */
export async function ask(expert: Expert, question: string): Promise<{ answer: string; meta: Record<string, unknown> }> {
  const out = await expert.answer(question);
  if (typeof out === 'string') return { answer: out, meta: { expert: expert.name } };
  return { answer: out.answer, meta: { ...out.meta, expert: expert.name } };
}

/** In-process experts as a SkillRunner (unit tests; production runs skills in worker threads). */
export function inProcessSkills(experts: readonly Expert[]): {
  scope(): string;
  recognise(q: string): Promise<string | null>;
  run(name: string, args: Record<string, unknown>): Promise<{ answer: string; meta: Record<string, unknown> }>;
} {
  return {
    scope: () => experts.map((e) => `${e.name} (e.g. ${JSON.stringify(e.examples[0] ?? e.description)})`).join(', '),
    recognise: async (q) => pickExpert(experts, q)?.name ?? null,
    run: async (name, args) => {
      const e = experts.find((x) => x.name === name);
      if (!e) throw new Error(`no expert named ${name}`);
      return ask(e, String(args.question ?? ''));
    },
  };
}
