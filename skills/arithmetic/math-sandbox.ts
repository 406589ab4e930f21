// A limited mathjs instance (mathjs docs, "Expression security"): the functions that let an
// expression change the instance or evaluate more code are replaced by throwing stubs, and every
// expression is parsed first and checked against an allowlist of node types and functions, so
// a question can never define functions, assign variables, build huge matrices or read objects.
import type { MathNode } from 'mathjs';
import { loadMathjs } from './mathjs-load.js';

// mathjs's own single-file build (the same 15.x release, exported as ./lib/browser/math.js): its
// default instance equals create(all). The ESM entry is 1,262 modules, and loading them cost
// 3–5 s of every arithmetic specialist's start (docs/runtime.md "Start-up"); this file ~0.25 s,
// less with the code cache the set-up makes (mathjs-load.ts).
const math = loadMathjs();
// Captured before the overrides below: the only way in for text is through `inspect`.
const parseExpression = math.parse;
const disabled = (name: string) => () => {
  throw new Error(`function ${name} is disabled`);
};
math.import(
  Object.fromEntries(
    ['import', 'createUnit', 'evaluate', 'parse', 'compile', 'simplify', 'derivative', 'resolve', 'reviver', 'rationalize']
      .map((n) => [n, disabled(n)]),
  ),
  { override: true },
);

/** Functions a question may call: scalar maths only (no matrices, no code, no I/O). */
export const ALLOWED_FUNCTIONS: ReadonlySet<string> = new Set([
  'sqrt', 'cbrt', 'nthRoot', 'abs', 'exp', 'log', 'log10', 'log2', 'pow', 'hypot', 'sign',
  'sin', 'cos', 'tan', 'asin', 'acos', 'atan', 'atan2', 'sinh', 'cosh', 'tanh', 'sec', 'csc', 'cot',
  'round', 'floor', 'ceil', 'fix', 'mod', 'gcd', 'lcm', 'factorial', 'combinations', 'permutations',
  'min', 'max', 'mean', 'median', 'sum', 'prod', 'std', 'variance', 'isPrime',
]);
export const CONSTANTS: ReadonlySet<string> = new Set(['pi', 'e', 'tau', 'phi', 'PI', 'E']);
const ALLOWED_NODES: ReadonlySet<string> = new Set(['ConstantNode', 'SymbolNode', 'OperatorNode', 'ParenthesisNode', 'FunctionNode']);

export type Inspection =
  | { status: 'syntax'; detail: string }
  | { status: 'forbidden'; detail: string }
  | { status: 'ok'; node: MathNode; unknown: string[]; numbers: number; calls: number; constants: number };

export function isUnit(name: string): boolean {
  try {
    return math.Unit.isValuelessUnit(name);
  } catch {
    return false;
  }
}

/** Parses and checks an expression; never evaluates it. */
export function inspect(expression: string): Inspection {
  let node: MathNode;
  try {
    node = parseExpression(expression);
  } catch (err) {
    return { status: 'syntax', detail: (err as Error).message };
  }
  const unknown = new Set<string>();
  let numbers = 0;
  let calls = 0;
  let constants = 0;
  let forbidden: string | undefined;
  node.traverse((n, path) => {
    if (forbidden) return;
    if (!ALLOWED_NODES.has(n.type)) forbidden = `${n.type.replace(/Node$/, '').toLowerCase()} expressions are not allowed`;
    else if (n.type === 'ConstantNode') {
      if (typeof (n as unknown as { value: unknown }).value === 'number') numbers += 1;
      else forbidden = 'only numbers, units and operators are allowed';
    } else if (n.type === 'FunctionNode') {
      const fn = (n as unknown as { fn: MathNode & { name?: string } }).fn;
      if (fn.type !== 'SymbolNode' || !fn.name || !ALLOWED_FUNCTIONS.has(fn.name)) forbidden = `function ${fn.name ?? fn.toString()} is not allowed`;
      calls += 1;
    } else if (n.type === 'SymbolNode' && path !== 'fn') {
      const name = (n as unknown as { name: string }).name;
      if (CONSTANTS.has(name)) constants += 1;
      else if (!isUnit(name)) unknown.add(name);
    }
  });
  if (forbidden) return { status: 'forbidden', detail: forbidden };
  return { status: 'ok', node, unknown: [...unknown], numbers, calls, constants };
}

/** Evaluates a node that passed `inspect` (empty scope: nothing but the instance's units/constants). */
export function evaluateNode(node: MathNode): unknown {
  return node.compile().evaluate({});
}

/** Exact for safe integers, 12 significant digits otherwise, 6 for quantities with units. */
export function formatValue(value: unknown): string {
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value)) return String(value);
    return math.format(value, { precision: 12, lowerExp: -7, upperExp: 15 });
  }
  if (math.isUnit(value)) {
    return math.format(value, { precision: 6, lowerExp: -7, upperExp: 15 })
      .replace(/\bdegC\b/g, '°C').replace(/\bdegF\b/g, '°F');
  }
  return math.format(value, { precision: 12 });
}

/** True when a result is a finite number or a quantity with a finite value. */
export function isFiniteResult(value: unknown): boolean {
  if (typeof value === 'number') return Number.isFinite(value);
  if (math.isUnit(value)) return value.value === null || Number.isFinite(value.value);
  return true;
}
