// The REGISTER profile (contracts/register.json AgentProfile): what the DF ranks candidates by
// (topics), what the Presenter's help shows (examples), the role and the skills served — built
// again whenever the skills change (hot reload), so the registration follows the directory.
import type { AgentProfile } from '../../shared/contracts/index.js';
import type { SkillManifest } from '../../shared/skills/index.js';

export function buildProfile(opts: {
  jid: string; name: string; version: string; skills: readonly SkillManifest[]; maxConcurrent: number; role?: string; capabilities?: string[]; did?: string;
}): AgentProfile {
  const topics = [...new Set(opts.skills.flatMap((s) => s.topics ?? []))].slice(0, 100);
  const examples = [...new Set(opts.skills.flatMap((s) => s.examples ?? []))].slice(0, 20);
  return {
    jid: opts.jid,
    name: opts.name,
    // The DF binds our JID to this did:key (the key that signs our envelopes).
    ...(opts.did ? { did: opts.did } : {}),
    version: opts.version,
    capabilities: opts.capabilities?.length ? opts.capabilities : ['ASK_EXPERT'],
    description: opts.skills.filter((s) => s.recognise).map((s) => s.description).join(' ').slice(0, 2000),
    topics,
    examples,
    max_concurrent: opts.maxConcurrent,
    ...(opts.role ? { role: opts.role } : {}),
    skills: opts.skills.map((s) => s.name).slice(0, 100),
  };
}
