// Arithmetic and unit conversion on the sandboxed mathjs instance (math-sandbox.ts). Plain
// English is rewritten into a mathjs expression first ("15% of 80", "2.5 km in miles",
// "100 fahrenheit to celsius"); the sandbox then decides whether it is maths at all.
import { exactInteger } from './exact-integer.js';
import { evaluateNode, formatValue, inspect, isFiniteResult } from './math-sandbox.js';
import { type Expert, invalidArgs } from '../../shared/skills/expert.js';

const MAX_EXPRESSION = 500;

const REWRITES: ReadonlyArray<[RegExp, string | ((m: string, ...groups: string[]) => string)]> = [
  [/\bto\s+the\s+power\s+of\b/gi, '^'],
  // Of a signed number or a bracket: "the square root of -1" is i, "cube root of (20 + 7)" 3.
  [/\b(?:the\s+)?square\s+root\s+of\s+(-?\s*\d+(?:\.\d+)?|\([^()]*\))/gi, 'sqrt($1)'],
  [/\b(?:the\s+)?cube\s+root\s+of\s+(-?\s*\d+(?:\.\d+)?|\([^()]*\))/gi, 'cbrt($1)'],
  [/\bsquared\b/gi, '^2'],
  [/\bcubed\b/gi, '^3'],
  [/\bplus\b/gi, '+'],
  [/\bminus\b/gi, '-'],
  [/\b(?:times|multiplied\s+by)\b/gi, '*'],
  [/\bdivided\s+by\b/gi, '/'],
  [/(\d)\s*[x×]\s*(?=[\d(])/g, '$1 * '],
  [/÷/g, '/'],
  [/\s*\bpercent\b/gi, '%'],
  // Money as people write it: "$12.50 * 3", "80 dollars" (no rates offline: only the amounts; "pounds" stays a weight).
  [/[$€£]\s*(?=\d)/g, ''],
  [/(\d)\s*(?:dollars?|bucks|euros?|usd|eur)\b/gi, '$1'],
  [/\bpounds?\b/gi, 'lb'],
  // "15% tip on 80", "20% tax on 50": that share of it; "20% off 50": what is left.
  [/%\s+(?:tip|tax|vat|discount|commission|interest|service(?:\s+charge)?)\s+(?:on|of|for)\b/gi, '% of'],
  [/(\d+(?:\.\d+)?)\s*%\s+off\s+(?:of\s+)?(\d+(?:\.\d+)?)/gi, '$2 * (1 - $1 / 100)'],
  [/%\s*of\b/gi, '% *'],
  // Temperatures: mathjs knows celsius/fahrenheit/kelvin and degC/degF; people write °F.
  [/°\s*F\b/g, ' degF'],
  [/°\s*C\b/g, ' degC'],
  [/\bdeg(?:rees?)?\s+(celsius|fahrenheit|kelvin)\b/gi, '$1'],
  [/\bdeg(?:rees?)?\s*([CF])\b/g, 'deg$1'],
  // "… degF in C": after a temperature, a bare C/F target means degrees, not coulomb/farad.
  [/(deg[CF]|celsius|fahrenheit|kelvin)(.*\s(?:to|in))\s+([CF])$/i, '$1$2 deg$3'],
  [/\b(Celsius|Fahrenheit|Kelvin)\b/g, (m) => m.toLowerCase()],
  [/\binto\b/gi, 'to'],
  // "round 3.14159 to 2 decimals", "round 2.5".
  [/\bround\s+(-?\d+(?:\.\d+)?)\s+to\s+(\d{1,2})\s+(?:decimal(?:\s+place)?s?|places|digits)\b/gi, 'round($1, $2)'],
  [/\bround\s+(-?\d+(?:\.\d+)?)$/gi, 'round($1)'],
  // "the log of 100" is the common logarithm (as on a calculator); "ln of", "natural log of" the natural one.
  [/\b(?:the\s+)?(?:natural\s+log(?:arithm)?|ln)\s+of\s+(-?\d+(?:\.\d+)?)/gi, 'log($1)'],
  [/\b(?:the\s+)?log(?:arithm)?\s+of\s+(-?\d+(?:\.\d+)?)/gi, 'log10($1)'],
  // "sin of 90 degrees", "the cosine of 60 deg".
  [/\b(?:the\s+)?(sin|cos|tan)(?:e|gent)?\s+of\s+(-?\d+(?:\.\d+)?(?:\s*(?:deg(?:rees?)?|rad(?:ians?)?))?)/gi, '$1($2)'],
  // "30 c to f": single letters after a number and before a target are degrees, not the speed of light.
  [/^(-?\d+(?:\.\d+)?)\s*([cf])\s+(to|in)\s+([cf])$/i, (_m, n, x, w, y) => `${n} deg${x.toUpperCase()} ${w} deg${y.toUpperCase()}`],
  // "10 factorial", "factorial of 10" (mathjs reads "10!" itself).
  [/\b(\d+)\s+factorial\b/gi, 'factorial($1)'],
  [/\b(?:the\s+)?factorial\s+of\s+(\d+)\b/gi, 'factorial($1)'],
];

/** "average of 3, 5 and 10" → mean(3, 5, 10): a statistic of a list the person wrote out. */
const LIST_FUNCTIONS: Readonly<Record<string, string>> = {
  average: 'mean', mean: 'mean', median: 'median', sum: 'sum', total: 'sum', product: 'prod',
  maximum: 'max', max: 'max', largest: 'max', biggest: 'max', minimum: 'min', min: 'min', smallest: 'min',
  gcd: 'gcd', 'greatest common divisor': 'gcd', lcm: 'lcm', 'least common multiple': 'lcm', 'lowest common multiple': 'lcm',
};
const LIST_OF = /^(?:the\s+)?(average|mean|median|sum|total|product|maximum|max|largest|biggest|minimum|min|smallest|gcd|greatest\s+common\s+divisor|lcm|l(?:ea|owe)st\s+common\s+multiple)\s+(?:value\s+)?of\s+(.+)$/i;

function listFunction(s: string): string | undefined {
  const m = LIST_OF.exec(s);
  if (!m) return undefined;
  const items = (m[2] as string).replace(/^the\s+numbers\s+/i, '').split(/\s*(?:,|;|\band\b|&)\s*/i).filter(Boolean);
  if (items.length < 2 || items.some((i) => !/^-?\d+(?:\.\d+)?$/.test(i))) return undefined;
  return `${LIST_FUNCTIONS[(m[1] as string).toLowerCase().replace(/\s+/g, ' ')]}(${items.join(', ')})`;
}

/** "is 97 a prime number?", "is 91 prime": answered in words, with a factor when it is not. */
const PRIME = /^(?:is\s+)?(\d{1,15})\s+(?:a\s+)?prime(?:\s+number)?$/i;

/**
 * The words a question starts with before its maths, typed fast ("wat is 2+2", "whats", "what s")
 * or in full ("what is the value of", "how much are"). Only a lead-in: what follows must still be
 * maths, so a question about something else is not taken.
 */
const POLITE = /^(?:please\s+|can you\s+|could you\s+)*(?:tell me\s+)?/i;
const LEAD = /^(?:(?:wh?at|waht|whta)(?:'s|’s|s|\s+s|\s+is|\s+are)(?:\s+the\s+(?:value|result|answer)\s+(?:of|to))?|calculate|compute|evaluate|work\s+out|how\s+much\s+(?:is|are)|convert|solve)\s+/i;

/** "double 21", "half of 90", "a third of 120": a multiple or share of what follows it. */
const SHARES: Readonly<Record<string, string>> = { double: '2 * ', twice: '2 * ', triple: '3 * ', half: '(1/2) * ', third: '(1/3) * ', quarter: '(1/4) * ' };
const SHARE = /^(?:(double|twice|triple)\s+(?:of\s+)?|(?:one\s+|an?\s+)?(half|third|quarter)\s+of\s+)(?=[-\d$€£(])/i;

/** Rewrites a question into a mathjs expression (no evaluation). */
export function toExpression(question: string): string {
  let s = question.trim().replace(/\s+/g, ' ');
  s = s.replace(POLITE, '');
  s = s.replace(LEAD, '').replace(/^an?\s+(?=[\d$€£(])/i, '');
  s = s.replace(/(?<!\d)[?!.=\s]+$|[?!=\s]+$/, '');
  // "how many miles is 2.5 km" → "2.5 km to miles"
  const howMany = /^how\s+many\s+(.+?)\s+(?:is|are|in|make|makes)\s+(.+)$/i.exec(s);
  // "how many seconds in a day": the article is one of them.
  if (howMany) s = `${(howMany[2] as string).replace(/^(?:an?|one)\s+(?=[a-z])/i, '1 ')} to ${howMany[1]}`;
  s = s.replace(SHARE, (_m, many: string | undefined, part: string | undefined) => SHARES[(many ?? part ?? '').toLowerCase()] ?? '');
  const listed = listFunction(s);
  if (listed) return listed;
  const prime = PRIME.exec(s);
  if (prime) return `isPrime(${prime[1]})`;
  for (const [re, to] of REWRITES) s = typeof to === 'string' ? s.replace(re, to) : s.replace(re, to);
  return s.replace(/\s+/g, ' ').trim();
}

/** Only maths characters once function names and single letters are removed. */
function looksLikeMaths(expression: string): boolean {
  const rest = expression.replace(/[a-z]+\s*\(/gi, '(').replace(/\b[a-z]\b/gi, '');
  return /\d/.test(rest) && /^[\d\s+\-*/^().,%!=<>]*$/.test(rest);
}

/** "5 blorps to kg": a number, a word and a known target unit. */
function looksLikeConversion(expression: string): boolean {
  const m = /^-?[\d.]+(?:e-?\d+)?\s*[^\s\d].*?\s+(?:to|in)\s+([^\d\s][^\d]*)$/.exec(expression);
  if (!m?.[1]) return false;
  const target = inspect(m[1]);
  return target.status === 'ok' && target.unknown.length === 0 && target.numbers === 0;
}

/**
 * "what is 10 km in miles and 5 kg in lb?": several calculations joined by "and" (which mathjs
 * would read as a logical and), each one on its own. undefined unless every part is maths.
 */
function partsOf(question: string): string[] | undefined {
  if (!/\sand\s/i.test(question)) return undefined;
  const body = question.trim().replace(POLITE, '').replace(LEAD, '');
  if (LIST_OF.test(body.replace(/[?!.\s]+$/, ''))) return undefined;
  const parts = body.split(/\s+and\s+(?:what(?:'s|\s+is)\s+|how\s+much\s+is\s+)?/i).map((p) => p.replace(/[?!=\s]+$/, '').trim()).filter(Boolean);
  if (parts.length < 2 || parts.length > 5) return undefined;
  return parts.every((p) => recogniseOne(p) >= 0.9) ? parts : undefined;
}

export function recogniseArithmetic(question: string): number {
  return partsOf(question) ? 1 : recogniseOne(question);
}

function recogniseOne(question: string): number {
  const expression = toExpression(question);
  if (expression === '' || expression.length > MAX_EXPRESSION) return 0;
  const checked = inspect(expression);
  if (checked.status === 'ok') {
    if (checked.unknown.length === 0) return checked.numbers + checked.calls + checked.constants > 0 ? 1 : 0;
    return looksLikeConversion(expression) ? 0.9 : 0;
  }
  // Recognisably maths that will not evaluate ("what is 5 / "): answered with INVALID_ARGS.
  return looksLikeMaths(expression) || looksLikeConversion(expression) ? 0.5 : 0;
}

export async function answerArithmetic(question: string): Promise<{ answer: string; meta: Record<string, unknown> }> {
  const parts = partsOf(question);
  if (parts) {
    const answers = await Promise.all(parts.map((p) => answerOne(p)));
    return { answer: parts.map((p, i) => `${p}: ${answers[i]?.answer}`).join('\n'), meta: { parts: answers.map((a) => a.meta) } };
  }
  return answerOne(question);
}

async function answerOne(question: string): Promise<{ answer: string; meta: Record<string, unknown> }> {
  const expression = toExpression(question);
  if (expression.length > MAX_EXPRESSION) throw invalidArgs(`expression longer than ${MAX_EXPRESSION} characters`);
  const checked = inspect(expression);
  if (checked.status === 'syntax') throw invalidArgs(`cannot read ${JSON.stringify(expression)}: ${checked.detail}`);
  if (checked.status === 'forbidden') throw invalidArgs(checked.detail);
  if (checked.unknown.length > 0) throw invalidArgs(`unknown unit or name: ${checked.unknown.join(', ')}`);
  let value: unknown;
  try {
    value = evaluateNode(checked.node);
  } catch (err) {
    throw invalidArgs(`cannot evaluate ${JSON.stringify(expression)}: ${evaluationError((err as Error).message)}`);
  }
  // A whole number past 2^53 is only approximate as a double (or overflows): exact again when the expression allows.
  const exact = typeof value === 'number' && !Number.isSafeInteger(value) && (Number.isInteger(value) || !Number.isFinite(value)) ? exactInteger(checked.node) : undefined;
  if (exact) return { answer: exact, meta: { expression: checked.node.toString(), exact: true } };
  if (!isFiniteResult(value)) throw invalidArgs('the result is not a finite number (division by zero or overflow)');
  if (typeof value === 'boolean' && /^isPrime\(\d+\)$/.test(expression)) return { answer: primeText(Number(expression.slice(8, -1)), value), meta: { expression } };
  return { answer: formatValue(value) + (/\blog\s*\(/i.test(question) ? logNote(checked.node.toString()) : ''), meta: { expression: checked.node.toString() } };
}

/**
 * `log(100)` typed is mathjs's natural logarithm (4.605…), where a calculator's log key gives 2:
 * the answer says which it is and gives the other ("the log of 100" in words is already log10).
 */
function logNote(expression: string): string {
  const m = /^log\((-?\d+(?:\.\d+)?)\)$/.exec(expression.replace(/\s+/g, ''));
  if (!m || Number(m[1]) <= 0) return '';
  return ` (the natural logarithm; log10(${m[1]}) = ${formatValue(Math.log10(Number(m[1])))})`;
}

/**
 * mathjs's reason in words a person reads: its own "Units do not match" says what is wrong, but
 * "Unexpected type of argument in function multiplyScalar (expected: number or Unit or …, actual:
 * function, index: 1)" (for "30 min": a number times the function min) says nothing to them.
 */
function evaluationError(message: string): string {
  if (/^Too (?:few|many) arguments/i.test(message)) return 'a function got too many or too few values';
  if (/^Unexpected type of argument|^TypeError/i.test(message)) return 'its parts do not go together (a function name used as a value, or a value where a unit belongs?)';
  return message.replace(/\s*\((?:expected|actual):[^)]*\)/g, '').slice(0, 200);
}

/** "Yes, 97 is a prime number." / "No, 91 is not a prime number: 91 = 7 × 13." (a factor up to 10^12). */
function primeText(n: number, prime: boolean): string {
  if (prime) return `Yes, ${n} is a prime number.`;
  if (n < 2) return `No, ${n} is not a prime number (a prime is a whole number greater than 1).`;
  if (n > 1e12) return `No, ${n} is not a prime number.`;
  for (let f = 2; f * f <= n; f += f === 2 ? 1 : 2) if (n % f === 0) return `No, ${n} is not a prime number: ${n} = ${f} × ${n / f}.`;
  return `No, ${n} is not a prime number.`;
}

export const arithmeticExpert: Expert = {
  name: 'arithmetic',
  description: 'Arithmetic, percentages, functions (sqrt, log, sin, …), averages and primes, and unit conversion, computed exactly offline.',
  topics: ['math', 'arithmetic', 'calculate', 'percent', 'sqrt', 'convert', 'units', 'conversion', 'km', 'miles', 'celsius', 'fahrenheit', 'kg', 'lb'],
  examples: ['what is 17 * 23?', 'what is 2.5 km in miles?', 'sqrt(2)', '15% of 80', 'convert 100 fahrenheit to celsius', '5 kg to lb'],
  recognise: recogniseArithmetic,
  answer: answerArithmetic,
};
