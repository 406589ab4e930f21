// The DF's candidate list as the Coordinator uses it (seed contract §2.2, §3): best first, each
// addressed by its logical name (identify(jid).name), which jidOfName maps back to its JID.
import { WORKER_ROLES } from '../../shared/contracts/index.js';
import { identify } from '../../shared/runtime/index.js';

export interface Candidate { jid: string; name: string }

/** Only agents that can answer an ASK_EXPERT under the role policy; duplicates dropped. */
export function usableCandidates(jids: unknown, domain: string): Candidate[] {
  const out: Candidate[] = [];
  for (const jid of Array.isArray(jids) ? jids : []) {
    if (typeof jid !== 'string') continue;
    const id = identify(jid, domain);
    if (!(WORKER_ROLES as readonly string[]).includes(id.role) || out.some((c) => c.name === id.name)) continue;
    out.push({ jid: id.jid, name: id.name });
  }
  return out;
}
