// Issue 10 §2 attacked through the project's own eslint.config.js: a deep import across shared/
// folders and an import cycle made by two barrels must both be reported, and what the rule allows
// (a folder's index.js, a declared second entry, a sibling inside the folder) must not be. The
// sources are in memory; their paths place them in the tree so the resolver sees real modules.
import path from 'node:path';
import { expect } from 'chai';
import { ESLint } from 'eslint';
import { repoRoot } from '../../shared/runtime/repo-root.js';

const ROOT = repoRoot();
const DEEP = 'import-x/no-restricted-paths';
const CYCLE = 'import-x/no-cycle';

describe('Imports [structure] lint rules: public entries of shared/ folders, no cycles', function () {
  this.timeout(120000); // the first lint builds the TypeScript resolver's view of the project
  let eslint: ESLint;
  before(() => {
    eslint = new ESLint({ cwd: ROOT });
  });

  /** The rule ids reported for `code` as if it were the file at `file` (repo-relative). */
  async function rules(file: string, code: string): Promise<string[]> {
    const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, file) });
    return (result?.messages ?? []).map((m) => m.ruleId ?? `fatal: ${m.message}`);
  }

  it('reports a deep import from an agent, a script, a test and a skill', async () => {
    const code = (rel: string) => `import { Router } from '${rel}shared/runtime/router.js';\nexport const r = Router;\n`;
    expect(await rules('agents/kb/probe.ts', code('../../'))).to.include(DEEP);
    expect(await rules('scripts/probe.ts', code('../'))).to.include(DEEP);
    expect(await rules('test/unit/probe.ts', code('../../'))).to.include(DEEP);
    expect(await rules('skills/time/probe.ts', code('../../'))).to.include(DEEP);
  });

  it('reports a deep import from another shared/ folder, type-only and dynamic ones too', async () => {
    expect(await rules('shared/trace/probe.ts', "import { openDb } from '../store/sqlite.js';\nexport const o = openDb;\n")).to.include(DEEP);
    expect(await rules('shared/trace/probe.ts', "import type { Db } from '../store/sqlite.js';\nexport type D = Db;\n")).to.include(DEEP);
    expect(await rules('agents/kb/probe.ts', "export const m = () => import('../../shared/store/sqlite.js');\n")).to.include(DEEP);
    expect(await rules('agents/kb/probe.ts', "export { openDb } from '../../shared/store/sqlite.js';\n")).to.include(DEEP);
  });

  it('allows index.js, a declared second entry and siblings inside a folder', async () => {
    expect(await rules('agents/kb/probe.ts', "import { Router } from '../../shared/runtime/index.js';\nexport const r = Router;\n")).to.deep.equal([]);
    expect(await rules('skills/time/probe.ts', "import { invalidArgs } from '../../shared/skills/handler-api.js';\nexport const i = invalidArgs;\n")).to.deep.equal([]);
    expect(await rules('shared/store/probe.ts', "import { openDb } from './sqlite.js';\nexport const o = openDb;\n")).to.deep.equal([]);
  });

  it('reports the cycle two barrels make (config/env.ts → log/index.ts → config/index.ts → env.ts)', async () => {
    // shared/log/index.ts imports the config's index, which loads env.ts: were env.ts to use the
    // logger, loading either folder would start in the middle of the other.
    const code = "import { createLogger } from '../log/index.js';\nexport const make = createLogger;\n";
    expect(await rules('shared/config/env.ts', code)).to.include(CYCLE);
    // The same import from a module the config's index does not load is no cycle.
    expect(await rules('shared/config/probe.ts', code)).to.not.include(CYCLE);
  });
});
