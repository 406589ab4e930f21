// The terms a specialist offers in the negotiated flow (Agora v1.0 §4 OFFER cost/eta/ttl), from
// its CLI or environment: `--cost 3` for every expert, or per expert `--cost 2,time=0.5`
// (a bare number is the default; name=value overrides it for that expert).
import type { OfferTerms } from './offer-machine.js';

export interface PerExpert {
  fallback: number;
  byExpert: Record<string, number>;
}

export const DEFAULT_TERMS = { cost: 1, etaMs: 100, ttlMs: 5000 } as const;

/** Parses "3", "arithmetic=2,time=5" or "4,time=1"; throws with a clear message otherwise. */
export function parsePerExpert(raw: string, fallback: number, what: string, opts: { integer?: boolean; min?: number } = {}): PerExpert {
  const out: PerExpert = { fallback, byExpert: {} };
  const min = opts.min ?? 0;
  const num = (v: string): number => {
    const n = Number(v);
    if (v.trim() === '' || !Number.isFinite(n) || n < min || (opts.integer && !Number.isInteger(n))) {
      throw new Error(`${what}: ${JSON.stringify(v)} is not ${opts.integer ? 'an integer' : 'a number'} ≥ ${min}`);
    }
    return n;
  };
  for (const part of raw.split(',').map((p) => p.trim()).filter(Boolean)) {
    const eq = part.indexOf('=');
    if (eq < 0) out.fallback = num(part);
    else out.byExpert[part.slice(0, eq).trim()] = num(part.slice(eq + 1));
  }
  return out;
}

/**
 * Skills that cost more than the rest unless the operator names them: the llm skill recognises
 * almost any question (a catch-all), so its offers are dearer and a specialised skill that made
 * an offer for the same question wins the contract-net (pickOffer: lowest cost).
 */
export const COST_FACTOR: Readonly<Record<string, number>> = { llm: 10 };

const pick = (p: PerExpert, expert: string) => p.byExpert[expert] ?? p.fallback;
const pickCost = (p: PerExpert, expert: string) => p.byExpert[expert] ?? p.fallback * (COST_FACTOR[expert] ?? 1);

/** The terms for a question the named expert recognised. */
export function termsFor(cost: PerExpert, eta: PerExpert, ttl: PerExpert): (expert: string) => OfferTerms {
  return (expert) => ({ cost: pickCost(cost, expert), etaMs: pick(eta, expert), ttlMs: pick(ttl, expert) });
}
