// Whole-number results beyond 2^53 exactly: "2^64" is 18446744073709551616, not 1.84467440737e+19.
// mathjs computes in doubles; an expression of integers with + - * ^ ! (and factorial, pow) is
// computed again here with BigInt over the node the sandbox already checked (math-sandbox.ts
// inspect). Up to MAX_DIGITS digits the answer is every digit; longer (up to MAX_BITS, so a
// question cannot make the specialist compute for long), 12 significant digits, also where a
// double overflows ("2^2000"). Anything else: undefined.
import type { MathNode } from 'mathjs';

/** Results up to this many digits are written out whole. */
export const MAX_DIGITS = 400;
/** ≈ 6,000 digits: computed in well under a millisecond. */
const MAX_BITS = 20_000;

const bits = (n: bigint) => (n < 0n ? -n : n).toString(2).length;

function factorial(n: bigint): bigint | undefined {
  if (n < 0n || n > 2000n) return undefined;
  let r = 1n;
  for (let i = 2n; i <= n; i++) r *= i;
  return r;
}

function power(base: bigint, exp: bigint): bigint | undefined {
  if (exp < 0n) return undefined;
  if (base === 0n || base === 1n || exp === 0n) return base ** exp;
  if (base === -1n) return base ** exp;
  if (BigInt(bits(base)) * exp > BigInt(MAX_BITS) + 1n) return undefined;
  return base ** exp;
}

type Node = MathNode & { type: string; value?: unknown; fn?: unknown; op?: string; args?: MathNode[]; content?: MathNode; name?: string };

function exact(node: Node): bigint | undefined {
  switch (node.type) {
    case 'ConstantNode':
      return typeof node.value === 'number' && Number.isSafeInteger(node.value) ? BigInt(node.value) : undefined;
    case 'ParenthesisNode':
      return exact(node.content as Node);
    case 'OperatorNode':
    case 'FunctionNode': {
      const name = node.type === 'OperatorNode' ? node.fn : (node.fn as Node).name;
      const args = (node.args ?? []).map((a) => exact(a as Node));
      if (args.some((a) => a === undefined)) return undefined;
      const [a, b] = args as bigint[];
      let r: bigint | undefined;
      if (name === 'add' && args.length === 2) r = (a as bigint) + (b as bigint);
      else if (name === 'subtract' && args.length === 2) r = (a as bigint) - (b as bigint);
      else if (name === 'multiply' && args.length === 2) r = (a as bigint) * (b as bigint);
      else if (name === 'unaryMinus' && args.length === 1) r = -(a as bigint);
      else if (name === 'unaryPlus' && args.length === 1) r = a;
      else if ((name === 'pow') && args.length === 2) r = power(a as bigint, b as bigint);
      else if (name === 'factorial' && args.length === 1) r = factorial(a as bigint);
      return r !== undefined && bits(r) <= MAX_BITS ? r : undefined;
    }
    default:
      return undefined;
  }
}

/** 12 significant digits, rounded half up: 1.14813069528e+602. */
function scientific(r: bigint): string {
  const sign = r < 0n ? '-' : '';
  const digits = (r < 0n ? -r : r).toString();
  let head = BigInt(digits.slice(0, 12));
  let exp = digits.length - 1;
  if (Number(digits[12]) >= 5) head += 1n;
  let h = head.toString();
  if (h.length > 12) {
    h = h.slice(0, 12);
    exp += 1;
  }
  const mantissa = `${h[0]}.${h.slice(1)}`.replace(/\.?0+$/, '');
  return `${sign}${mantissa}e+${exp}`;
}

/** The whole-number value of `node`, every digit or 12 significant ones, or undefined when it is not such an expression. */
export function exactInteger(node: MathNode): string | undefined {
  const r = exact(node as Node);
  if (r === undefined) return undefined;
  const text = r.toString();
  return text.replace('-', '').length <= MAX_DIGITS ? text : scientific(r);
}
