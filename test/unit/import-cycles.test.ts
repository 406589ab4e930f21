// Issue 10 §2: no import cycles in the product code (agents/, shared/, scripts/). A cycle makes
// module order matter and hides which part depends on which; type-only imports are erased by
// TypeScript and do not count. Tarjan's strongly connected components over the source's imports.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { repoRoot } from '../../shared/runtime/repo-root.js';

const ROOT = repoRoot();

function sources(dir: string, out: string[] = []): string[] {
  for (const f of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, f.name);
    if (f.isDirectory()) sources(p, out);
    else if (/\.c?ts$/.test(f.name) && !f.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** Relative value imports of a TypeScript file (not `import type`, not `export type`). */
export function valueImports(file: string): string[] {
  const src = fs.readFileSync(file, 'utf8');
  const specs = [...src.matchAll(/^(?:import|export)\s+(?!type\b)(?:[^'";]*?\sfrom\s+)?['"](\.{1,2}\/[^'"]+)['"]/gm)].map((m) => m[1] as string);
  return specs.map((s) => path.resolve(path.dirname(file), s.replace(/\.js$/, '.ts').replace(/\.cjs$/, '.cts'))).filter((p) => fs.existsSync(p));
}

export function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(scc);
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('Imports [structure] no cycles in agents/, shared/ and scripts/', () => {
  it('finds a cycle when there is one (the check itself)', () => {
    expect(cycles(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]]))).to.have.length(1);
    expect(cycles(new Map([['a', ['b']], ['b', []]]))).to.deep.equal([]);
  });

  it('the product code has none', () => {
    const files = ['agents', 'shared', 'scripts'].flatMap((d) => sources(path.join(ROOT, d)));
    expect(files.length).to.be.greaterThan(100);
    const graph = new Map(files.map((f) => [f, valueImports(f)]));
    // The parse sees the imports (multi-line ones too): main.ts of the Coordinator imports runtime's index.
    expect(graph.get(path.join(ROOT, 'agents/coordinator/main.ts'))).to.include(path.join(ROOT, 'shared/runtime/index.ts'));
    expect([...graph.values()].reduce((n, d) => n + d.length, 0)).to.be.greaterThan(files.length);
    const found = cycles(graph).map((c) => c.map((f) => path.relative(ROOT, f)).join(' → '));
    expect(found, 'import cycles').to.deep.equal([]);
  });
});
