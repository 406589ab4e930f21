// `node dist/shared/supervisor/bundle-run.cjs dist/bundle/<role>.cjs [args…]`: how the supervisor
// and the bench start a single-file agent, with V8's code cache (./code-cache.cts). The agent sees
// the command line it would see as `node dist/bundle/<role>.cjs [args…]`. CommonJS, as is
// code-cache.cts: Node's ES module loader cost ≈ 16 ms of CPU more per start.
import { runCached } from './code-cache.cjs';

const bundle = process.argv[2];
if (!bundle) {
  process.stderr.write('usage: bundle-run.cjs <bundle.cjs> [args…]\n');
  process.exit(2);
}
process.argv.splice(1, 1);
runCached(bundle);
