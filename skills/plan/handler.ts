// plan (the plan's "Planner" role, part 3 workflow): split the request into parts and delegate
// each through delegate_task (→ Coordinator → another specialist, same session), in parallel.
// With a model configured (PARLEY_LLM_URL, docs/llm.md) the model splits the request; when it
// fails or gives fewer than two parts, the rules below do, as they do without a model.
import { invalidArgs, type LlmAccess, type SkillContext } from '../../shared/skills/handler-api.js';

const PREFIX = /^\s*(?:plan|answer\s+(?:both|all|each)|do\s+(?:both|all))\s*:\s*/i;
const MAX_PARTS = 5;

export function parts(question: string): string[] {
  return question.replace(PREFIX, '')
    .split(/\s*;\s*|\n+|\s+and\s+(?=(?:what|how|which|when|who|convert|calculate)\b)/i)
    .map((p) => p.trim().replace(/[?!.]+$/, ''))
    .filter((p) => p.length >= 2);
}

export const SPLIT_PROMPT = [
  'Split the request into the independent questions or tasks it contains, each one self-contained (repeat the subject where needed).',
  `At most ${MAX_PARTS}. Reply with JSON only, no prose: {"parts": ["…", "…"]}.`,
].join(' ');

/** The parts in a model's reply ({"parts": [...]}, possibly in a code fence), or undefined. */
export function partsFromReply(text: string | null): string[] | undefined {
  const json = /\{[\s\S]*\}/.exec(text ?? '')?.[0];
  if (!json) return undefined;
  try {
    const ps = (JSON.parse(json) as { parts?: unknown }).parts;
    if (!Array.isArray(ps) || !ps.every((p) => typeof p === 'string')) return undefined;
    const out = (ps as string[]).map((p) => p.trim().replace(/[?!.]+$/, '')).filter((p) => p.length >= 2);
    return out.length >= 2 && out.length <= MAX_PARTS ? out : undefined;
  } catch {
    return undefined;
  }
}

/** The model's split, or the rules' with why the model's was not used (meta.split, the trace). */
export async function split(question: string, llm: LlmAccess | undefined): Promise<{ parts: string[]; split: Record<string, unknown> }> {
  if (!llm) return { parts: parts(question), split: { by: 'rules' } };
  try {
    const r = await llm.chat({ messages: [{ role: 'system', content: SPLIT_PROMPT }, { role: 'user', content: question.replace(PREFIX, '') }] });
    const ps = partsFromReply(r.message.content);
    if (ps) return { parts: ps, split: { by: 'model', model: r.model } };
    return { parts: parts(question), split: { by: 'rules', model: r.model, fallback: 'the model gave no usable parts' } };
  } catch (err) {
    return { parts: parts(question), split: { by: 'rules', fallback: (err as Error).message.slice(0, 300) } };
  }
}

/**
 * Why a part was not answered, in words (issue 16: never silently half, never codes): the
 * Coordinator's FAILURE arrives as "CODE: detail"; the code stays in meta (the trace).
 */
export function whyNot(message: string): { reason: string; code?: string } {
  // "delegate_task: the Coordinator answered FAILURE NO_CANDIDATE: <detail>" (agents/specialist/a2a.ts), or "CODE: detail".
  const answered = /the Coordinator answered (?:FAILURE|REFUSE|NOT-UNDERSTOOD) ([A-Z_]*):\s*([\s\S]*)$/.exec(message);
  const m = answered ? undefined : /^([A-Z][A-Z_]{2,}):\s*/.exec(message);
  const code = answered?.[1] || m?.[1];
  const text = (answered ? (answered[2] as string) : m ? message.slice(m[0].length) : message).trim();
  // The Coordinator's fallback sentence ends with where to look for more; a part's reason is the sentence before it.
  const said = text.replace(/\s*Say "help" to see everything I can do\.$/, '');
  const reason = /^I can't help with that one/.test(said) ? 'no specialist here answers that kind of question' : said.replace(/\.$/, '') || 'no answer came back';
  return code ? { reason, code } : { reason };
}

export async function run(input: { question: string }, ctx: SkillContext) {
  const { parts: ps, split: how } = await split(input.question, ctx.llm);
  if (ps.length < 2) throw invalidArgs('give two or more parts separated by ";" (e.g. "answer both: what is 2+2; what time is it in Oslo?")');
  if (ps.length > MAX_PARTS) throw invalidArgs(`at most ${MAX_PARTS} parts`);
  const results = await Promise.all(ps.map((task) =>
    ctx.use('delegate_task', { task }).then(
      (r) => ({ task, ok: true, answer: r.answer, by: (r.meta?.answered_by as string | null) ?? null }),
      (err: Error) => {
        const why = whyNot(err.message);
        return { task, ok: false, answer: why.reason, by: null, ...(why.code ? { code: why.code } : {}) };
      },
    )));
  const lines = results.map((r, i) => `${i + 1}. ${r.task}: ${r.ok ? r.answer : `not answered (${r.answer})`}${r.by ? ` [${r.by}]` : ''}`);
  const missed = results.filter((r) => !r.ok).length;
  // Never silently half: a closing line says how many parts are missing.
  if (missed > 0) lines.push(missed === results.length ? 'None of the parts could be answered.' : `${missed} of ${results.length} parts could not be answered (see above).`);
  return { answer: lines.join('\n'), meta: { ...(ctx.llm ? { split: how } : {}), parts: results.map((r) => ({ task: r.task, ok: r.ok, answered_by: r.by, ...('code' in r ? { reason: r.code } : {}) })) } };
}
