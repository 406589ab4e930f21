// Before a skill serves people: which skills may start with their recognition, and the warm-up
// that answers a skill's own examples in its first worker (host.ts, pool.ts; issue 15).
import type { ParleyError } from '../acl/index.js';
import type { A2aKind } from './handler-api.js';
import type { SkillDef } from './catalogue.js';
import type { SkillPool } from './pool.js';

/** The built-in skills that reach the Coordinator (ctx.a2a). */
export const A2A_SKILLS: ReadonlySet<string> = new Set<A2aKind>(['delegate_task', 'query_agents', 'broadcast_event']);

/**
 * A skill whose run may start with its recognition, before the specialist sent its AGREE: one
 * that calls nothing (no ctx.use, ctx.a2a, ctx.llm), so nothing leaves the sandbox before then.
 */
export function startsAtOnce(def: SkillDef): boolean {
  return (def.manifest.uses ?? []).length === 0 && !A2A_SKILLS.has(def.name) && !def.granted.llm;
}

/**
 * The skill answers its own published examples once in its first worker, so JIT and lazily built
 * tables (mathjs typed functions, chrono, luxon) do not land on the first person's question.
 * Not for skills that call others (`uses`) or the Coordinator: a warm-up must have no effects.
 * An example the skill merely cannot answer is its own bug, not a reason to skip it; an example
 * that kills its sandbox (crash, exit, out of memory) or overruns its time limit would do the same
 * to every person who asks: the skill is not served, with the reason (throws; host.ts reports it).
 */
export async function warmExamples(def: SkillDef, pool: SkillPool): Promise<number> {
  if (!startsAtOnce(def)) return 0;
  // One worker answers the examples; the spare starts with the first question (pool.ts).
  return pool.withoutSpare(async () => {
    let answered = 0;
    for (const q of def.manifest.examples ?? []) {
      const args = { question: q };
      if (!def.validateInput(args) || (await pool.recognise(q, 2000).catch(() => 0)) <= 0) continue;
      const deaths = pool.deaths;
      const failure = await pool.run(args, 'sess-warm-up').then(() => { answered += 1; }, (err: ParleyError) => err);
      if (failure && (pool.deaths > deaths || failure.code === 'TIMEOUT')) {
        throw new Error(`disabled at warm-up: its example ${JSON.stringify(q)} failed (${failure.detail})`);
      }
    }
    return answered;
  });
}
