// delegate_task (plan part 2): REQUEST DELEGATE_TASK to the Coordinator, which runs it like a
// person's question (DF lookup, another specialist, retries) and answers RESULT or FAILURE.
import type { SkillContext } from '../../shared/skills/handler-api.js';

export async function run(input: { task: string; role?: string; context?: string }, ctx: SkillContext) {
  const r = (await ctx.a2a('delegate_task', input)) as { answer: string; answered_by: string | null };
  return { answer: r.answer, meta: { answered_by: r.answered_by, delegated: true } };
}
