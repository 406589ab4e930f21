// The set-up's step for the arithmetic skill (scripts/setup.sh): loads mathjs as a worker does,
// answers the skill's published examples (the functions a first question reaches get compiled),
// and writes V8's code cache for the workers (mathjs-load.ts). Run with the worker's V8 flags:
// `node --max-old-space-size=<limits.memoryMb> dist/skills/arithmetic/make-cache.js`; a cache
// made under other flags is turned down by V8 and only costs the compile it would have saved.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { answerArithmetic } from './arithmetic.js';
import { loaded, MATHJS_CACHE, writeMathjsCache } from './mathjs-load.js';

const manifest = JSON.parse(fs.readFileSync(fileURLToPath(new URL('../../../skills/arithmetic/skill.json', import.meta.url)), 'utf8')) as { examples?: string[] };
if (loaded.use === 'used') {
  // Its time stamp says it was checked after the build (setup.sh runs this step while the build is
  // newer): without it every `npm start` after a build loaded mathjs here again, ≈ 0.5 s.
  const now = new Date();
  fs.utimesSync(MATHJS_CACHE, now, now);
  console.log(`${MATHJS_CACHE}: in use, left as it is`);
} else {
  for (const q of manifest.examples ?? []) await answerArithmetic(q).catch(() => undefined);
  console.log(`${MATHJS_CACHE}: ${writeMathjsCache()} bytes`);
}
