// plan (the plan's "Planner" role, part 3 workflow): split the request into parts and delegate
// each through delegate_task (→ Coordinator → another specialist, same session), in parallel.
import { invalidArgs, type SkillContext } from '../../shared/skills/handler-api.js';

const PREFIX = /^\s*(?:plan|answer\s+(?:both|all|each)|do\s+(?:both|all))\s*:\s*/i;
const MAX_PARTS = 5;

export function parts(question: string): string[] {
  return question.replace(PREFIX, '')
    .split(/\s*;\s*|\n+|\s+and\s+(?=(?:what|how|which|when|who|convert|calculate)\b)/i)
    .map((p) => p.trim().replace(/[?!.]+$/, ''))
    .filter((p) => p.length >= 2);
}

export async function run(input: { question: string }, ctx: SkillContext) {
  const ps = parts(input.question);
  if (ps.length < 2) throw invalidArgs('give two or more parts separated by ";" (e.g. "answer both: what is 2+2; what time is it in Oslo?")');
  if (ps.length > MAX_PARTS) throw invalidArgs(`at most ${MAX_PARTS} parts`);
  const results = await Promise.all(ps.map((task) =>
    ctx.use('delegate_task', { task }).then(
      (r) => ({ task, ok: true, answer: r.answer, by: (r.meta?.answered_by as string | null) ?? null }),
      (err: Error) => ({ task, ok: false, answer: err.message, by: null }),
    )));
  const lines = results.map((r, i) => `${i + 1}. ${r.task}: ${r.ok ? r.answer : `not answered (${r.answer})`}${r.by ? ` [${r.by}]` : ''}`);
  return { answer: lines.join('\n'), meta: { parts: results.map((r) => ({ task: r.task, ok: r.ok, answered_by: r.by })) } };
}
