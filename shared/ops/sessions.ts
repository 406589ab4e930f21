// Coordination Sessions for the operator (docs/sessions.md): list, show, verify (the §3.5 hash
// chain and the stored state against its last turn), delete (§6 data_delete). Used by
// `npm run session` and the console's /api/sessions.
import fs from 'node:fs';
import type { ParleyConfig } from '../config/index.js';
import { canonical } from '../identity/index.js';
import { sessionsDbFile, SessionStore, verifyChain } from '../sessions/index.js';
import { OpsError } from './errors.js';

export interface SessionVerdict {
  ok: boolean;
  turns: number;
  head?: { turn_id: string; hash: string };
  /** The first turn that does not fit, when not ok. */
  seq?: number;
  turn_id?: string;
  problem?: string;
}

function withStore<T>(cfg: ParleyConfig, fn: (s: SessionStore) => T, readonly = true): T {
  const file = sessionsDbFile(cfg);
  if (!fs.existsSync(file)) {
    if (readonly) throw new OpsError(404, 'NO_SESSION_STORE', `no session store at ${file} (has the sessions agent run with this PARLEY_HOME?)`);
  }
  const store = new SessionStore(file, { readonly });
  try {
    return fn(store);
  } finally {
    store.close();
  }
}

export function listSessions(cfg: ParleyConfig) {
  if (!fs.existsSync(sessionsDbFile(cfg))) return [];
  return withStore(cfg, (s) => s.list());
}

export function showSession(cfg: ParleyConfig, id: string) {
  return withStore(cfg, (s) => {
    const session = s.get(id);
    if (!session) throw new OpsError(404, 'NO_SUCH_SESSION', `no session ${id}`);
    const turns = s.turns(id);
    return { session, participants: s.participants(id), turns, verdict: verdictOf(id, session, turns) };
  });
}

function verdictOf(id: string, r: { state_version: number; state: unknown }, turns: ReturnType<SessionStore['turns']>): SessionVerdict {
  const check = verifyChain(id, turns);
  if (!check.ok) return { ok: false, turns: check.turns, seq: check.seq, turn_id: check.turn_id, problem: check.problem };
  // The stored state must be the one the last state-bearing turn recorded.
  const last = turns.filter((t) => 'state_version' in t.body).at(-1);
  if (last && (last.body.state_version !== r.state_version || canonical(last.body.state) !== canonical(r.state))) {
    return { ok: false, turns: check.turns, seq: last.seq, turn_id: last.turn_id, problem: `the stored state (v${r.state_version}) is not the one this turn recorded` };
  }
  return { ok: true, turns: check.turns, ...(check.head ? { head: { turn_id: check.head.turn_id, hash: check.head.hash } } : {}) };
}

export function verifySession(cfg: ParleyConfig, id: string): SessionVerdict {
  return showSession(cfg, id).verdict;
}

export function deleteSession(cfg: ParleyConfig, id: string): number {
  return withStore(cfg, (s) => {
    if (!s.get(id)) throw new OpsError(404, 'NO_SUCH_SESSION', `no session ${id}`);
    return s.delete(id);
  }, false);
}
