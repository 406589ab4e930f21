// The KB's answer must fit the 64 kB content limit (seed contract §1) even when the newest
// `limit` facts are large (a value may hold 32,000 characters): the oldest are left out.
import { contentByteSize, MAX_CONTENT_BYTES } from '../../shared/acl/index.js';
import type { StoredFact } from '../../shared/store/index.js';

/** Content of INFORM FACTS (seed shape: no type). */
export function factsContent(facts: readonly StoredFact[]): { facts: StoredFact[] } {
  return { facts: [...facts] };
}

/** The longest newest-first prefix of `facts` whose FACTS content fits `maxBytes`. */
export function fitFacts(facts: readonly StoredFact[], maxBytes = MAX_CONTENT_BYTES): StoredFact[] {
  // {"facts":[…]} costs 11 bytes plus each fact's JSON and a comma between facts.
  let size = contentByteSize(factsContent([]));
  const out: StoredFact[] = [];
  for (const f of facts) {
    const cost = contentByteSize(f) + (out.length > 0 ? 1 : 0);
    if (size + cost > maxBytes) break;
    size += cost;
    out.push(f);
  }
  return out;
}
