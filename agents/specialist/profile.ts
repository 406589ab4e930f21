// The REGISTER profile (contracts/register.json AgentProfile): what the DF ranks candidates by
// (topics) and what the Presenter's help shows (examples), gathered from the hosted experts.
import fs from 'node:fs';
import path from 'node:path';
import type { AgentProfile } from '../../shared/contracts/types.gen.js';
import { repoRoot } from '../../shared/runtime/repo-root.js';
import type { Expert } from './experts/index.js';

export function packageVersion(): string {
  const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot(), 'package.json'), 'utf8')) as { version?: string };
  return pkg.version ?? '0.0.0';
}

export function buildProfile(opts: { jid: string; name: string; version: string; experts: readonly Expert[]; maxConcurrent: number; did?: string }): AgentProfile {
  const topics = [...new Set(opts.experts.flatMap((e) => e.topics))].slice(0, 100);
  const examples = [...new Set(opts.experts.flatMap((e) => e.examples))].slice(0, 20);
  return {
    jid: opts.jid,
    name: opts.name,
    // The DF binds our JID to this did:key (the key that signs our envelopes).
    ...(opts.did ? { did: opts.did } : {}),
    version: opts.version,
    capabilities: ['ASK_EXPERT'],
    description: opts.experts.map((e) => e.description).join(' ').slice(0, 2000),
    topics,
    examples,
    max_concurrent: opts.maxConcurrent,
  };
}
