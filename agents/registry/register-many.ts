// REQUEST REGISTER_MANY (issue 14 §3): a host's virtual agents' REGISTERs in one message, so the
// Registry parses, routes, signs and sends one message for up to 64 agents instead of one each
// (docs/bench.md "Virtual agents": 3.4 ms of the Registry's CPU per REGISTER at load 14, of which
// the signature check is a tenth). Trust is unchanged per agent: each entry is that agent's own
// REGISTER envelope, signed by its own key, and is checked as if it had come alone — contract,
// signature and replay against the DID bound to its JID (DirectoryOps.checkEntry: the same
// Signing.check the pipeline runs), profile.jid = its sender, profile.did = its signer, and the
// operator's enrolment of that JID and DID (DirectoryOps.bind). The sender of the batch only
// delivers: every entry must be an agent of the sender's own component domain (the component
// secret is what let it send from that domain; it cannot speak for calendars.<domain> or a
// person's account). One failing entry refuses the batch and registers none: the host then
// registers those agents one REGISTER each (shared/runtime/register-batch.ts), which answers
// each agent on its own.
import { type Envelope, errorContent, type ErrorCode, performativeFor } from '../../shared/acl/index.js';
import {
  type AgentProfile, type RegisterContent, type RegisterManyContent, validateEnvelope,
} from '../../shared/contracts/index.js';
import {
  type Answer, type HandlerInput, type Note, identify, jidOfName, type Signing,
} from '../../shared/runtime/index.js';
import { bare } from '../../shared/transport/index.js';
import type { BindOutcome } from './bindings.js';

/** An entry that passed its own checks; `commit` makes its replay entry durable (only once all passed). */
export type EntryCheck =
  | { ok: true; jid: string; did?: string; commit: () => void }
  | { ok: false; code: ErrorCode; detail: string };

/** What REGISTER_MANY needs of main.ts (tests fake it). */
export interface RegisterManyOps {
  /** The entry's contract, kind (REQUEST REGISTER to this Registry) and signature, as the pipeline would check it alone. */
  checkEntry(input: { entry: unknown }): EntryCheck;
  bind(input: { jid: string; did: string; now: number }): BindOutcome | Promise<BindOutcome>;
  register(input: { profile: AgentProfile; now: number }): { jid: string; lease_ms: number } | Promise<{ jid: string; lease_ms: number }>;
}

type Request = Required<HandlerInput>;

/**
 * RegisterManyOps.checkEntry of the Registry `self`: what the pipeline checks of a REGISTER that
 * comes alone (contract, kind, Signing.check against the DID bound to the entry's sender), with
 * the entry's own sender in place of the stanza's from (registerMany checks its domain).
 */
export function entryChecker(o: { self: string; domain: string; signing: Signing | undefined }): RegisterManyOps['checkEntry'] {
  return ({ entry }) => {
    const v = validateEnvelope(entry);
    if (!v.ok) return { ok: false, code: v.code, detail: v.detail };
    const env = v.envelope;
    if (v.kind.kind !== 'REGISTER' || env.performative !== 'REQUEST' || env.in_reply_to !== undefined || env.receiver !== o.self) {
      return { ok: false, code: 'UNEXPECTED_MESSAGE', detail: `not a REQUEST REGISTER to ${o.self}` };
    }
    const from = identify(jidOfName(env.sender, o.domain), o.domain);
    const check = o.signing?.check(env, from, 'REGISTER');
    if (check && !check.ok) return { ok: false, code: check.code, detail: check.detail };
    return { ok: true, jid: from.jid, commit: () => (check ? o.signing?.commit(check) : undefined) };
  };
}

const domainOf = (jid: string) => jid.slice(jid.indexOf('@') + 1).toLowerCase();
const refuse = (code: ErrorCode, i: number, detail: string): Answer =>
  ({ performative: performativeFor(code), content: errorContent(code, `entry ${i}: ${detail}; nothing registered (send these REGISTERs one by one)`) });

export async function registerMany(ops: RegisterManyOps, r: Request, steps: Note[]): Promise<Answer> {
  const { entries } = r.request.content as unknown as RegisterManyContent;
  const domain = domainOf(r.from.jid);
  const accepted: Array<{ check: Extract<EntryCheck, { ok: true }>; entry: Envelope; profile: AgentProfile }> = [];
  const seen = new Set<string>();
  for (const [i, raw] of entries.entries()) {
    const check = ops.checkEntry({ entry: raw });
    if (!check.ok) return refuse(check.code, i, check.detail);
    const entry = raw as unknown as Envelope;
    if (domainOf(check.jid) !== domain) return refuse('SENDER_MISMATCH', i, `${check.jid} is not an agent of ${r.from.jid}'s component (${domain})`);
    const { profile } = entry.content as unknown as RegisterContent;
    if (bare(profile.jid) !== check.jid) return refuse('SENDER_MISMATCH', i, `profile.jid ${JSON.stringify(profile.jid)} is not its sender ${check.jid}`);
    if (seen.has(check.jid)) return refuse('SCHEMA_VIOLATION', i, `${check.jid} appears twice`);
    seen.add(check.jid);
    // Agora §2: a profile may only name the key that signed its entry.
    if (profile.did !== undefined && entry.sender_did !== undefined && profile.did !== entry.sender_did) {
      return refuse('DID_MISMATCH', i, 'profile.did is not the sender_did that signed the entry');
    }
    const did = profile.did ?? entry.sender_did;
    if (did !== undefined) {
      const bound = await ops.bind({ jid: check.jid, did, now: r.now });
      if (!bound.ok) {
        return bound.bound === undefined
          ? refuse('FORBIDDEN_SENDER', i, `${check.jid} is not an enrolled agent: the Registry accepts REGISTER only from identities the operator enrolled`)
          : refuse('DID_MISMATCH', i, `${check.jid} is enrolled with ${bound.bound}`);
      }
    }
    accepted.push({ check, entry, profile: did === undefined ? profile : { ...profile, did } });
  }
  const registered: Array<{ in_reply_to: string; jid: string; lease_ms: number }> = [];
  for (const a of accepted) {
    a.check.commit();
    const done = await ops.register({ profile: a.profile, now: r.now });
    registered.push({ in_reply_to: a.entry.reply_with, jid: done.jid, lease_ms: done.lease_ms });
  }
  steps.push({ decision: 'registered', detail: { agents: registered.length, by: r.from.jid } });
  return { performative: 'INFORM', content: { type: 'REGISTERED_MANY', registered } };
}
