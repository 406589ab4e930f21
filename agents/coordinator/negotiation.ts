// The negotiated flow's pure parts (Agora v1.0 §3-4 in FIPA SC00029 contract-net; rules in
// docs/acl_contract.md "Negotiated requests"): when to negotiate, the CFP, reading offers, the
// documented pick, and the ACCEPT / REJECT envelopes. The machine (machine.ts) only wires them.
import { ASK_EXPERT_RESOURCE, type Envelope, replyTo } from '../../shared/acl/index.js';
import type { AgoraRejectReason, NeedContent } from '../../shared/contracts/index.js';
import type { Candidate } from './candidates.js';
import { outbound } from './envelopes.js';

export type NegotiateMode = 'auto' | 'always' | 'never';

/** From loadTunables(): PARLEY_NEGOTIATE, PARLEY_CFP_TIMEOUT_MS, PARLEY_AGORA_MAX_COST, PARLEY_OFFER_MARGIN_MS. */
export interface AgoraSettings {
  mode: NegotiateMode;
  /** The contract-net deadline: offers after it are too late for the first pick. */
  cfpTimeoutMs: number;
  /**
   * CFPs per round: the DF's first N candidates (PARLEY_CFP_MAX_CANDIDATES; unset: all). A host
   * of 100 virtual specialists made every question 100 CFPs and 100 signed offers, which arrived
   * after the deadline; the DF ranks least recently used first, so questions still spread.
   */
  maxCandidates?: number;
  /** budget.max_cost of every CFP; offers above it are rejected (402). */
  maxCost?: number;
  /** An offer counts as expired this long before its ttl ends (the ACCEPT's trip). */
  acceptMarginMs: number;
}

/**
 * How many candidates a question asks the DF for (NEED max_results; FIPA SC00023 df
 * search-constraints max-results), undefined = the DF's whole list (up to 100). Negotiating, the
 * Coordinator CFPs only the first maxCandidates (openCfp) and falls back only among them, so it
 * asks for those: the 92 others of a host's 100 were signed, sent, parsed and verified for
 * nothing (docs/bench.md "Virtual agents"). `never` walks the whole list one by one: no limit.
 * At least 2, so that `auto` still negotiates whenever the DF has two; `extra` counts candidates
 * the caller drops itself (a delegation's own specialist).
 */
export function candidatesWanted(settings: AgoraSettings | undefined, extra = 0): number | undefined {
  if (!settings || settings.mode === 'never' || settings.maxCandidates === undefined) return undefined;
  return Math.min(100, Math.max(2, settings.maxCandidates) + extra);
}

/** The QUERY-REF NEED content of the expert flow's LOOKUP (expert/lookup.ts; the bench sends the same). */
export function needContent(hint: string, settings: AgoraSettings | undefined, delegation?: { role?: string; exclude?: string }): NeedContent {
  const max = candidatesWanted(settings, delegation?.exclude !== undefined ? 1 : 0);
  return { need: 'ASK_EXPERT', hint, ...(delegation?.role ? { role: delegation.role } : {}), ...(max !== undefined ? { max_results: max } : {}) };
}

/** auto: negotiate when the DF lists ≥ 2 candidates (one candidate = the direct flow). */
export function shouldNegotiate(settings: AgoraSettings | undefined, candidates: number): boolean {
  if (!settings || settings.mode === 'never' || candidates === 0) return false;
  return settings.mode === 'always' || candidates >= 2;
}

export interface Offer {
  candidate: string;
  /** Position in the DF's list (0 = best ranked): the last tie-break. */
  rank: number;
  propose: Envelope;
  offerId: string;
  cost: number;
  ttl: number;
  eta: number;
  status: 'open' | 'accepted' | 'failed' | 'rejected';
  /** Why it was rejected (REJECT-PROPOSAL reason). */
  why?: AgoraRejectReason;
}

export function cfpTo(request: Envelope, self: string, c: Candidate, question: string, s: AgoraSettings, timeoutMs: number, zone?: string): Envelope {
  // protocol fipa-contract-net: defaultProtocol('CFP'), kept by every reply and the CANCEL.
  return outbound(request, self, 'CFP', c.name, {
    type: 'AGORA_REQUEST', resource: ASK_EXPERT_RESOURCE, params: { question, ...(zone ? { zone } : {}) },
    ...(s.maxCost !== undefined ? { budget: { max_cost: s.maxCost } } : {}),
    timeout: timeoutMs, context_ref: { session_id: request.conversation_id },
  });
}

/** The offer in a PROPOSE answering one of our CFPs (undefined if it answers none). */
export function readOffer(env: Envelope, cfps: readonly Envelope[]): Omit<Offer, 'status'> | undefined {
  const rank = cfps.findIndex((c) => c.reply_with === env.in_reply_to);
  const c = env.content as { offer_id?: unknown; cost?: unknown; ttl?: unknown; eta?: unknown };
  if (rank < 0 || env.performative !== 'PROPOSE') return undefined;
  return {
    candidate: env.sender, rank, propose: env, offerId: String(c.offer_id),
    cost: Number(c.cost), ttl: Number(c.ttl), eta: Number(c.eta),
  };
}

/**
 * The documented pick: among open offers (ttl not run out, cost within the budget), the lowest
 * cost; ties by the lowest eta, then by the DF's rank. -1 when none is left.
 */
export function pickOffer(offers: readonly Offer[]): number {
  let best = -1;
  offers.forEach((o, i) => {
    if (o.status !== 'open') return;
    const b = offers[best];
    if (!b || o.cost < b.cost || (o.cost === b.cost && (o.eta < b.eta || (o.eta === b.eta && o.rank < b.rank)))) best = i;
  });
  return best;
}

/** ACCEPT-PROPOSAL in_reply_to the PROPOSE (Agora §4 ACCEPT {offer_id}). */
export function acceptOf(o: Offer): Envelope {
  return replyTo(o.propose, { performative: 'ACCEPT-PROPOSAL', content: { type: 'AGORA_ACCEPT', offer_id: o.offerId } });
}

export function rejectOf(o: Offer, reason: AgoraRejectReason, detail?: string): Envelope {
  return replyTo(o.propose, {
    performative: 'REJECT-PROPOSAL',
    content: { type: 'AGORA_REJECT', offer_id: o.offerId, reason, ...(detail ? { detail: detail.slice(0, 2000) } : {}) },
  });
}

export const offerSummary = (o: Offer) => ({ candidate: o.candidate, offer_id: o.offerId, cost: o.cost, eta: o.eta, ttl: o.ttl });
