// `node dist/shared/supervisor/bundle-run.js dist/bundle/<role>.cjs [args…]`: how the supervisor
// and the bench start a single-file agent, with V8's code cache (./code-cache.ts). The agent sees
// the command line it would see as `node dist/bundle/<role>.cjs [args…]`.
import { runCached } from './code-cache.js';

const bundle = process.argv[2];
if (!bundle) {
  process.stderr.write('usage: bundle-run.js <bundle.cjs> [args…]\n');
  process.exit(2);
}
process.argv.splice(1, 1);
runCached(bundle);
