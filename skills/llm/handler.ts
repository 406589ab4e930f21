// The llm skill (docs/llm.md): open questions no specialised skill recognises, answered by the
// install's model, which may call the other skills as tools (loop.ts). Served only when
// PARLEY_LLM_URL is set (skill.json requires llm); the key stays in the specialist process.
import type { SkillContext } from '../../shared/skills/handler-api.js';
import { answerWithTools } from './loop.js';

/**
 * A low catch-all score: any specialised skill that recognises the question scores higher and
 * wins inside a specialist; between specialists the llm skill's higher offer cost (terms.ts)
 * lets the specialised one win the contract-net.
 */
export const RECOGNISE_SCORE = 0.05;

export const recognise = (question: string): number => (question.trim().length >= 2 ? RECOGNISE_SCORE : 0);

export async function run(input: { question: string }, ctx: SkillContext) {
  if (!ctx.llm) throw new Error('LLM_NOT_CONFIGURED: this install has no model (PARLEY_LLM_URL)');
  return answerWithTools(input.question, ctx.llm, ctx);
}
