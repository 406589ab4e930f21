// broadcast_event (plan part 2): REQUEST BROADCAST_EVENT to the Coordinator → INFORM BROADCAST_DONE.
import type { SkillContext } from '../../shared/skills/handler-api.js';

export async function run(input: { event: string; data: string }, ctx: SkillContext) {
  const r = (await ctx.a2a('broadcast_event', input)) as { delivered: string[] };
  return { answer: `event ${input.event} sent to ${r.delivered.length} agents`, meta: { delivered: r.delivered } };
}
