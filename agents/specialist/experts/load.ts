// The experts a Specialist process hosts, loaded on demand: each expert's libraries (mathjs,
// chrono-node, luxon) are imported only by the process that runs it, so a time specialist never
// pays for mathjs at start-up. Same names and behaviour as createExperts() in index.ts.
import type { TimeExpertOptions } from './time.js';
import type { Expert } from './types.js';

const LOADERS: Record<string, (opts: TimeExpertOptions) => Promise<Expert>> = {
  arithmetic: async () => (await import('./arithmetic.js')).arithmeticExpert,
  time: async (opts) => (await import('./time.js')).createTimeExpert(opts),
};

export const LAZY_EXPERT_NAMES: readonly string[] = Object.keys(LOADERS);

/** Loads the named experts (all when `names` is empty); rejects on an unknown name before loading any. */
export async function loadExperts(names: readonly string[], opts: TimeExpertOptions = {}): Promise<Expert[]> {
  const wanted = names.length > 0 ? names : LAZY_EXPERT_NAMES;
  const unknown = wanted.find((n) => !LOADERS[n]);
  if (unknown !== undefined) throw new Error(`unknown expert ${JSON.stringify(unknown)}; known: ${LAZY_EXPERT_NAMES.join(', ')}`);
  return Promise.all(wanted.map((n) => (LOADERS[n] as (o: TimeExpertOptions) => Promise<Expert>)(opts)));
}
