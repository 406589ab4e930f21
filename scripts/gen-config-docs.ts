// Writes the README's configuration tables from shared/config/variables.ts.
//   node dist/scripts/gen-config-docs.js          rewrite README.md
//   node dist/scripts/gen-config-docs.js --check  exit 1 when README.md is not current
import fs from 'node:fs';
import path from 'node:path';
import { withConfigDocs } from '../shared/config/docs.js';
import { repoRoot } from '../shared/runtime/repo-root.js';

const file = path.join(repoRoot(), 'README.md');
const current = fs.readFileSync(file, 'utf8');
const next = withConfigDocs(current);
if (next === undefined) {
  console.error('README.md has no configuration markers (shared/config/docs.ts BEGIN/END)');
  process.exit(1);
}
if (process.argv.includes('--check')) {
  if (next !== current) {
    console.error('README.md configuration tables are stale: run npm run gen:config-docs');
    process.exit(1);
  }
} else if (next !== current) {
  fs.writeFileSync(file, next);
  console.log('README.md configuration tables updated');
}
