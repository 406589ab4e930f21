// Each expert answers its own published examples once before the specialist goes online:
// mathjs compiles its typed functions, chrono-node and luxon build their tables on first use,
// and that used to land on the first person's question (~0.8 s). Failures are ignored: an
// example an expert cannot answer is its own bug, not a reason not to start.
import { ask, type Expert, pickExpert } from './experts/types.js';

export async function warmUpExperts(experts: readonly Expert[]): Promise<number> {
  let answered = 0;
  for (const e of experts) {
    for (const q of e.examples) {
      if (pickExpert([e], q) === undefined) continue;
      await ask(e, q).then(() => (answered += 1), () => undefined);
    }
  }
  return answered;
}
