// A second public entry of shared/skills/ (issue 10 §2): PUBLIC_ENTRIES in eslint.config.js says
// which modules it re-exports and why they are not in index.ts.
export { SkillHost } from './host.js';
export { resolveGrants } from './grants.js';
export { warmExamples } from './warm-up.js';
export { SkillPool } from './pool.js';
export { isolation } from './sandbox.js';
export { watchSkills } from './watch.js';
