// The experts a Specialist process can host, by name (--experts arithmetic,time).
import { arithmeticExpert } from './arithmetic.js';
import { createTimeExpert, type TimeExpertOptions } from './time.js';
import type { Expert } from './types.js';

export type { Expert, ExpertAnswer } from './types.js';
export { ask, pickExpert } from './types.js';

const FACTORIES: Record<string, (opts: TimeExpertOptions) => Expert> = {
  arithmetic: () => arithmeticExpert,
  time: (opts) => createTimeExpert(opts),
};

export const EXPERT_NAMES: readonly string[] = Object.keys(FACTORIES);

/** Builds the named experts (all when `names` is empty); throws on an unknown name. */
export function createExperts(names: readonly string[], opts: TimeExpertOptions = {}): Expert[] {
  const wanted = names.length > 0 ? names : EXPERT_NAMES;
  return wanted.map((n) => {
    const make = FACTORIES[n];
    if (!make) throw new Error(`unknown expert ${JSON.stringify(n)}; known: ${EXPERT_NAMES.join(', ')}`);
    return make(opts);
  });
}
