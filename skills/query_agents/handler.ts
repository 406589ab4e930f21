// query_agents (plan part 2): QUERY-REF QUERY_AGENTS to the Coordinator → INFORM AGENTS.
import type { AgentSummary, SkillContext } from '../../shared/skills/handler-api.js';

export async function run(input: { role?: string; skill?: string }, ctx: SkillContext) {
  const filter = { ...(input.role ? { role: input.role } : {}), ...(input.skill ? { skill: input.skill } : {}) };
  const agents = (await ctx.a2a('query_agents', filter)) as AgentSummary[];
  const lines = agents.map((a) => `${a.name}${a.role ? ` (${a.role})` : ''}${a.skills?.length ? `: ${a.skills.join(', ')}` : ''}`);
  return { answer: agents.length ? lines.join('\n') : 'no agent matches', meta: { agents } };
}
