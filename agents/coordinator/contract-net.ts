// The negotiated flow's steps (Agora v1.0 §3 REQUEST → OFFER → ACCEPT → RESULT as FIPA SC00029
// CFP → PROPOSE → ACCEPT-PROPOSAL / REJECT-PROPOSAL → INFORM). Each step is a pure function of
// the exchange's context returning what to change, what to emit and which ttl timers to start;
// machine.ts applies them with enqueueActions. Rules: docs/acl_contract.md "Negotiated requests".
import type { Envelope } from '../../shared/acl/index.js';
import type { AgoraRejectReason } from '../../shared/contracts/index.js';
import type { ExchangeEmitted } from '../../shared/runtime/index.js';
import type { Candidate } from './candidates.js';
import { cancelOf, reasonOf } from './envelopes.js';
import { acceptOf, type AgoraSettings, cfpTo, type Offer, offerSummary, pickOffer, readOffer, rejectOf } from './negotiation.js';
import type { Attempt } from './replies.js';

export interface NegotiationCtx {
  request: Envelope;
  self: string;
  question: string;
  /** The person's time zone (args.zone / params.zone). */
  zone?: string;
  agora?: AgoraSettings;
  resultTimeoutMs: number;
  candidates: Candidate[];
  attempts: Attempt[];
  /** One CFP per candidate, in the DF's order (index = rank). */
  cfps: Envelope[];
  /** Candidates whose CFP was answered (PROPOSE, REFUSE, NOT-UNDERSTOOD, FAILURE). */
  answered: string[];
  offers: Offer[];
  /** Index of the offer being processed; -1 before the first ACCEPT. */
  winner: number;
  accept?: Envelope;
  /** Candidates that answered the CFP NOT-UNDERSTOOD (no contract-net): the direct flow's fallback. */
  notUnderstood: Candidate[];
}

export interface Step {
  patch: Partial<NegotiationCtx>;
  out: ExchangeEmitted[];
  /** Start a ttl timer: `offer.expired` for offerId after ms (SimulatedClock in tests). */
  timers?: Array<{ offerId: string; ms: number }>;
}

export const agoraNote = (state: string, detail: object): ExchangeEmitted => ({ type: 'note', decision: `agora:${state}`, detail });
const send = (envelope: Envelope): ExchangeEmitted => ({ type: 'send', envelope });
const settingsOf = (c: NegotiationCtx) => c.agora as AgoraSettings;

/** PENDING: a CFP to every candidate, or to the DF's first maxCandidates of them. */
export function openCfp(c: NegotiationCtx): Step {
  const max = settingsOf(c).maxCandidates;
  const candidates = max !== undefined && c.candidates.length > max ? c.candidates.slice(0, max) : c.candidates;
  const cfps = candidates.map((k) => cfpTo(c.request, c.self, k, c.question, settingsOf(c), c.resultTimeoutMs, c.zone));
  const budget = settingsOf(c).maxCost;
  return {
    patch: { candidates, cfps, answered: [], offers: [], winner: -1, notUnderstood: [] },
    out: [agoraNote('PENDING', { flow: 'negotiated', candidates: candidates.map((k) => k.name), ...(budget !== undefined ? { budget } : {}) }), ...cfps.map(send)],
  };
}

/** A PROPOSE: an open offer with its ttl timer, or rejected at once (over budget, ttl too short). */
export function onOffer(c: NegotiationCtx, env: Envelope): Step {
  const read = readOffer(env, c.cfps);
  if (!read || c.answered.includes(read.candidate)) return { patch: {}, out: [] };
  const { maxCost, acceptMarginMs } = settingsOf(c);
  const first = c.offers.length === 0 ? [agoraNote('NEGOTIATING', { first_offer: read.candidate })] : [];
  const answered = [...c.answered, read.candidate];
  let why: AgoraRejectReason | undefined;
  let attempt: Attempt | undefined;
  if (maxCost !== undefined && read.cost > maxCost) {
    why = 'BUDGET_EXCEEDED';
    attempt = { candidate: read.candidate, outcome: 'over-budget', reason: 'BUDGET_EXCEEDED', detail: `cost ${read.cost} > budget ${maxCost}` };
  } else if (read.ttl <= acceptMarginMs) {
    why = 'OFFER_EXPIRED';
    attempt = { candidate: read.candidate, outcome: 'expired', reason: 'OFFER_EXPIRED', detail: `ttl ${read.ttl} ms` };
  }
  const offer: Offer = why ? { ...read, status: 'rejected', why } : { ...read, status: 'open' };
  const note: ExchangeEmitted = { type: 'note', decision: why ? `offer-rejected:${why}` : 'offer', detail: offerSummary(offer) };
  return {
    patch: { answered, offers: [...c.offers, offer], ...(attempt ? { attempts: [...c.attempts, attempt] } : {}) },
    out: [...first, note, ...(why ? [send(rejectOf(offer, why, attempt?.detail))] : [])],
    ...(why ? {} : { timers: [{ offerId: offer.offerId, ms: offer.ttl - acceptMarginMs }] }),
  };
}

/** REFUSE / FAILURE / NOT-UNDERSTOOD to a CFP: no offer from that candidate. */
export function onDecline(c: NegotiationCtx, env: Envelope): Step {
  const rank = c.cfps.findIndex((x) => x.reply_with === env.in_reply_to);
  const cand = c.candidates[rank];
  if (!cand || c.answered.includes(cand.name)) return { patch: {}, out: [] };
  const answered = [...c.answered, cand.name];
  const why = reasonOf(env);
  const note: ExchangeEmitted = { type: 'note', decision: 'no-offer', detail: { candidate: cand.name, cause: `${env.performative} ${why.reason}` } };
  if (env.performative === 'NOT-UNDERSTOOD') return { patch: { answered, notUnderstood: [...c.notUnderstood, cand] }, out: [note] };
  return { patch: { answered, attempts: [...c.attempts, { candidate: cand.name, outcome: 'refused', ...why }] }, out: [note] };
}

/** The CFP deadline passed: candidates still silent made no offer in time. */
export function onDeadline(c: NegotiationCtx): Step {
  const silent = c.candidates.filter((k) => !c.answered.includes(k.name));
  return {
    patch: { attempts: [...c.attempts, ...silent.map((k): Attempt => ({ candidate: k.name, outcome: 'timeout', reason: 'CFP' }))] },
    out: [{ type: 'note', decision: 'cfp-deadline', detail: { silent: silent.map((k) => k.name), offers: c.offers.filter((o) => o.status === 'open').length } }],
  };
}

/** An open offer's ttl (less the margin) ran out: it is never accepted after this. */
export function onExpired(c: NegotiationCtx, offerId: string): Step {
  const i = c.offers.findIndex((o) => o.offerId === offerId && o.status === 'open');
  const o = c.offers[i];
  if (!o) return { patch: {}, out: [] };
  const offers = c.offers.map((x, j) => (j === i ? { ...x, status: 'rejected' as const, why: 'OFFER_EXPIRED' as const } : x));
  return {
    patch: { offers, attempts: [...c.attempts, { candidate: o.candidate, outcome: 'expired', reason: 'OFFER_EXPIRED', detail: `ttl ${o.ttl} ms` }] },
    out: [{ type: 'note', decision: 'offer-expired', detail: offerSummary(o) }, send(rejectOf(o, 'OFFER_EXPIRED', `ttl ${o.ttl} ms ran out`))],
  };
}

/** PROCESSING: ACCEPT-PROPOSAL to the best open offer (pickOffer); the others stay open as fallbacks. */
export function award(c: NegotiationCtx): Step {
  const i = pickOffer(c.offers);
  const o = c.offers[i] as Offer;
  const accept = acceptOf(o);
  const open = c.offers.filter((x, j) => j !== i && x.status === 'open').map(offerSummary);
  return {
    patch: { winner: i, accept, offers: c.offers.map((x, j) => (j === i ? { ...x, status: 'accepted' as const } : x)) },
    out: [agoraNote('PROCESSING', { ...offerSummary(o), fallbacks: open.map((x) => x.candidate) }), send(accept)],
  };
}

/** REJECT-PROPOSAL to every offer still open (task done, or the person withdrew). */
export function closeOpen(c: NegotiationCtx, why: AgoraRejectReason): Step {
  const open = c.offers.filter((o) => o.status === 'open');
  return {
    patch: { offers: c.offers.map((o) => (o.status === 'open' ? { ...o, status: 'rejected' as const, why } : o)) },
    out: open.map((o) => send(rejectOf(o, why))),
  };
}

/** The accepted offer failed (FAILURE, or no RESULT in time → CANCEL): fall back to the next one. */
export function winnerFailed(c: NegotiationCtx, attempt: Omit<Attempt, 'candidate'>, cancel?: string): Step {
  const o = c.offers[c.winner] as Offer;
  const cfp = c.cfps[o.rank] as Envelope;
  return {
    patch: { offers: c.offers.map((x, j) => (j === c.winner ? { ...x, status: 'failed' as const } : x)), attempts: [...c.attempts, { candidate: o.candidate, ...attempt }] },
    out: [
      ...(cancel ? [send(cancelOf(cfp, cancel))] : []),
      { type: 'note', decision: 'next-offer', detail: { candidate: o.candidate, cause: `${attempt.outcome} ${attempt.reason}${attempt.detail ? `: ${attempt.detail}` : ''}` } },
    ],
  };
}
