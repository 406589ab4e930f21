// The per-session hash chain of OAP RFC 0001 §3.5: every turn names the previous turn, and
// hash = sha256(previous hash ‖ RFC 8785 canonical JSON of the turn without its hash), as hex.
// The first turn chains from the empty string. Verifiable from the log alone, independently of
// any Tool-wide log; `verifyChain` names the first turn that does not fit.
import { createHash } from 'node:crypto';
import type { SessionTurn } from '../contracts/index.js';
import { canonical } from '../identity/index.js';

export type TurnOp = SessionTurn['op'];

/** What is hashed: the turn as stored, with the session id it belongs to, without `hash`. */
export interface TurnCore {
  session_id: string;
  seq: number;
  turn_id: string;
  previous_turn_id: string | null;
  op: TurnOp;
  actor: string;
  at: string;
  body: Record<string, unknown>;
}

export interface Turn extends TurnCore {
  hash: string;
}

export const GENESIS_HASH = '';

export function turnHash(previousHash: string, core: TurnCore): string {
  const { session_id, seq, turn_id, previous_turn_id, op, actor, at, body } = core;
  return createHash('sha256').update(previousHash).update(canonical({ session_id, seq, turn_id, previous_turn_id, op, actor, at, body })).digest('hex');
}

/** The next turn after `previous` (undefined: the first turn of the session). */
export function chainTurn(previous: Turn | undefined, core: Omit<TurnCore, 'seq' | 'previous_turn_id'>): Turn {
  const full: TurnCore = { ...core, seq: (previous?.seq ?? 0) + 1, previous_turn_id: previous?.turn_id ?? null };
  return { ...full, hash: turnHash(previous?.hash ?? GENESIS_HASH, full) };
}

export type ChainCheck =
  | { ok: true; turns: number; head?: Turn }
  | { ok: false; turns: number; seq: number; turn_id: string; problem: string };

/** Checks links, sequence and hashes in order; the first turn that does not fit is named. */
export function verifyChain(sessionId: string, turns: readonly Turn[]): ChainCheck {
  let previous: Turn | undefined;
  for (const t of turns) {
    const bad = (problem: string): ChainCheck => ({ ok: false, turns: turns.length, seq: t.seq, turn_id: t.turn_id, problem });
    if (t.session_id !== sessionId) return bad(`belongs to session ${t.session_id}`);
    if (t.seq !== (previous?.seq ?? 0) + 1) return bad(`sequence ${t.seq} after ${previous?.seq ?? 0}`);
    if (t.previous_turn_id !== (previous?.turn_id ?? null)) return bad(`previous_turn_id ${String(t.previous_turn_id)} is not ${previous?.turn_id ?? 'null'}`);
    if (turnHash(previous?.hash ?? GENESIS_HASH, t) !== t.hash) return bad('hash does not match the turn\'s content and its predecessor');
    previous = t;
  }
  return previous ? { ok: true, turns: turns.length, head: previous } : { ok: true, turns: 0 };
}
