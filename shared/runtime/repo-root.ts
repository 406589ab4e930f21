// Compiled code runs from dist/; data files (contracts/, ejabberd/, skills/) stay at the repo
// root. Walk up from this module until package.json of parley is found.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

export function repoRoot(): string {
  if (cached) return cached;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = path.join(dir, 'package.json');
    if (fs.existsSync(pkg) && fs.existsSync(path.join(dir, 'ejabberd'))) return (cached = dir);
    const up = path.dirname(dir);
    if (up === dir) throw new Error('cannot find the Parley repository root');
    dir = up;
  }
}

/** Parley's version (package.json), as every agent states it in its DF profile. */
export function packageVersion(): string {
  const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot(), 'package.json'), 'utf8')) as { version?: string };
  return pkg.version ?? '0.0.0';
}
