// A second public entry of shared/runtime/ (issue 10 §2): PUBLIC_ENTRIES in eslint.config.js says
// which modules it re-exports and why they are not in index.ts.
export { ComponentHost } from './component-agent.js';
export { LeaseGroup } from './lease-group.js';
export { ShardClaims } from './shard-claims.js';
