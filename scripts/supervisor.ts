// `npm start`'s entry; the supervisor itself is scripts/supervisor-main.ts. It runs as the agents
// do (shared/supervisor/bundles.ts): its single-file bundle with V8's code cache while the bundle
// matches dist/, else its modules (PARLEY_AGENT_BUNDLES=0: always). Loading its ≈ 200 modules from
// dist/ was ≈ 0.3 s of CPU before its first line ran, and its lazy compiles competed with the agents
// it starts (issue 15, `npm start` ≤ 1.5 s). Kept small: what it loads, every start loads twice.
import path from 'node:path';
import { envFlag } from '../shared/config/index.js';
import { freshBundle } from '../shared/supervisor/bundles.js';
import { runCached } from '../shared/supervisor/code-cache.cjs';
import { repoRoot } from '../shared/runtime/repo-root.js';

const root = repoRoot();
const bundle = envFlag('PARLEY_AGENT_BUNDLES') ? freshBundle(root, path.join(root, 'dist', 'bundle'), 'supervisor') : undefined;
if (bundle) runCached(bundle);
else await import('./supervisor-main.js');
