// The Coordination Session Tool (OAP RFC 0001 §3.2): one synchronous method per request, each a
// single SQLite transaction over the store (check, write state, append the turn). Pure apart from
// the store and the injected clock; agents/sessions/wire.ts calls it from an invoked promise actor.
import { randomUUID } from 'node:crypto';
import { contentByteSize } from '../acl/index.js';
import type { SessionCreateContent, SessionLogContent, SessionUpdateContent } from '../contracts/index.js';
import { chainTurn, type Turn, type TurnOp } from './chain.js';
import { join, leave, handoff } from './admission.js';
import { type Outcome, refuse, refusal, SessionRefusal } from './outcome.js';
import { resolveStateSchema, stateErrors } from './schemas.js';
import type { SessionRow, SessionStore } from './store.js';

export interface SessionLimits {
  /** Open sessions per convener (§5.3, PARLEY_SESSION_QUOTA). */
  quota: number;
  maxParticipants: number;
  maxDurationHours: number;
}

/** One session request as the pipeline delivered it: the verified sender DID, never a claim. */
export interface SessionRequest {
  kind: string;
  sessionId: string;
  did: string | undefined;
  name: string;
  role: string;
  content: Record<string, unknown>;
  /**
   * The person a chat line came from (SESSION_CHAT, which only the Coordinator may send): the
   * session is convened on their behalf and counts against their quota (§5.3). Never from content.
   */
  person?: string;
}

/** The sender, once it is known to hold a DID (and the person it acts for, from a chat line). */
export interface Actor { did: string; name: string; role: string; person?: string }

/** Log answers stay under the 64 kB content limit (seed contract §1). */
const LOG_BUDGET_BYTES = 48 * 1024;

export class SessionService {
  constructor(readonly store: SessionStore, readonly limits: SessionLimits, readonly now: () => number = Date.now) {}

  handle(req: SessionRequest): Outcome {
    try {
      if (!req.did) refuse('MISSING_SIGNATURE', 'sessions need the verified DID of a signed envelope (RFC 0001 §5.1)');
      const actor: Actor = { did: req.did, name: req.name, role: req.role, ...(req.person ? { person: req.person } : {}) };
      return this.store.transact(() => this.dispatch(req, actor));
    } catch (err) {
      if (err instanceof SessionRefusal) return refusal(err, req.sessionId);
      throw err;
    }
  }

  private dispatch(req: SessionRequest, actor: Actor): Outcome {
    if (req.kind === 'SESSION_CREATE') return this.create(req.sessionId, actor, req.content as unknown as SessionCreateContent);
    const s = this.store.get(req.sessionId) ?? refuse('UNKNOWN_SESSION', `no session ${req.sessionId}`);
    // §5.1 session hijacking: every request is checked against the admission ledger. A join is
    // the one request its subject sends before being admitted (its credential is checked instead).
    if (req.kind !== 'SESSION_JOIN' && !this.store.isParticipant(s.id, actor.did)) refuse('NOT_A_PARTICIPANT', `${actor.did} is not admitted to ${s.id}`);
    switch (req.kind) {
      case 'SESSION_STATE': return this.info(s);
      case 'SESSION_LOG': return this.log(s, req.content as unknown as SessionLogContent);
      case 'SESSION_UPDATE': return this.update(s, actor, req.content as unknown as SessionUpdateContent);
      case 'SESSION_CLOSE': return this.close(s, actor, req.content);
      case 'SESSION_DELETE': return this.remove(s, actor);
      case 'SESSION_JOIN': return join(this, s, actor, req.content);
      case 'SESSION_LEAVE': return leave(this, s, actor, req.content);
      case 'SESSION_HANDOFF': return handoff(this, s, actor, req.content);
      default: throw new Error(`not a session request: ${req.kind}`);
    }
  }

  /** Appends a turn to the chain and answers its receipt (§3.5). */
  turn(s: SessionRow, actor: string, op: TurnOp, body: Record<string, unknown>): Outcome {
    const t = chainTurn(this.store.lastTurn(s.id), { session_id: s.id, turn_id: `trn-${randomUUID()}`, op, actor, at: this.iso(), body });
    this.store.append(t);
    const now = this.store.get(s.id) as SessionRow;
    return { performative: 'INFORM', content: receipt(t, now) };
  }

  iso(): string {
    return new Date(this.now()).toISOString();
  }

  isOpen(s: SessionRow, what: string): void {
    if (s.status !== 'open') refuse('SESSION_CLOSED', `session ${s.id} is ${s.status}: no ${what}`);
    if (Date.parse(s.expires_at) <= this.now()) refuse('SESSION_EXPIRED', `session ${s.id} expired at ${s.expires_at} (max_duration_hours)`);
  }

  private create(id: string, actor: Actor, c: SessionCreateContent): Outcome {
    if (this.store.get(id)) refuse('SESSION_EXISTS', `conversation ${id} already is a session; a new session needs a new conversation_id`);
    if (this.store.wasDeleted(id)) refuse('SESSION_EXISTS', `session ${id} was deleted and its id is never used again; start a new conversation ("new") for a new session`);
    const schema = resolveStateSchema(c.state_schema) ?? refuse('UNKNOWN_STATE_SCHEMA', `unknown state_schema ${JSON.stringify(c.state_schema.slice(0, 300))}; known: contracts/session-state-*.json`);
    const errors = stateErrors(schema, c.state);
    if (errors.length) refuse('STATE_INVALID', `the state does not match ${schema}`, { errors });
    // A person's sessions count against that person, not against the Presenter that convenes them
    // (nor the Coordinator that forwards their lines); an agent's on_behalf_of is only recorded.
    const onBehalf = actor.person ?? c.on_behalf_of ?? null;
    const quotaKey = actor.person ? `person:${actor.person}` : actor.did;
    const open = this.store.countOpen(quotaKey);
    if (open >= this.limits.quota) refuse('QUOTA_EXCEEDED', `${quotaKey} already convenes ${open} open sessions (quota ${this.limits.quota}, RFC 0001 §5.3)`);
    const at = this.iso();
    const hours = Math.min(c.max_duration_hours ?? this.limits.maxDurationHours, this.limits.maxDurationHours);
    const row: SessionRow = {
      id, convener: actor.did, on_behalf_of: onBehalf, quota_key: quotaKey, title: c.title ?? null, state_schema: schema, state: c.state,
      state_version: 1, status: 'open', max_participants: Math.min(c.max_participants ?? this.limits.maxParticipants, this.limits.maxParticipants),
      created_at: at, expires_at: new Date(this.now() + hours * 3_600_000).toISOString(),
    };
    this.store.insert(row);
    this.store.admit(id, { did: actor.did, name: actor.name, admitted_at: at });
    const { state_schema, state, state_version, title, on_behalf_of, max_participants, expires_at } = row;
    return this.turn(row, actor.did, 'create', { state_schema, state, state_version, title, on_behalf_of, max_participants, expires_at });
  }

  private update(s: SessionRow, actor: Actor, c: SessionUpdateContent): Outcome {
    this.isOpen(s, 'update');
    // §3.2 / §5.2: optimistic concurrency; a stale or replayed update never lands.
    if (c.expected_version !== s.state_version) {
      refuse('VERSION_CONFLICT', `expected_version ${c.expected_version} is not the current state_version ${s.state_version}`, { current_version: s.state_version });
    }
    const errors = stateErrors(s.state_schema, c.state);
    if (errors.length) refuse('STATE_INVALID', `the state does not match ${s.state_schema}`, { errors });
    const state_version = s.state_version + 1;
    this.store.patch(s.id, { state: c.state, state_version });
    return this.turn(s, actor.did, 'update', { expected_version: c.expected_version, state_version, state: c.state, ...(c.note ? { note: c.note } : {}) });
  }

  private close(s: SessionRow, actor: Actor, c: Record<string, unknown>): Outcome {
    if (actor.did !== s.convener) refuse('NOT_CONVENER', `only the convener ${s.convener} may close the session (RFC 0001 §3.6)`);
    if (s.status !== 'open') refuse('SESSION_CLOSED', `session ${s.id} is already ${s.status}`);
    this.store.patch(s.id, { status: 'closed' });
    return this.turn(s, actor.did, 'close', typeof c.reason === 'string' ? { reason: c.reason } : {});
  }

  /** §6 data_delete: the convener is the controller of the log. */
  private remove(s: SessionRow, actor: Actor): Outcome {
    if (actor.did !== s.convener) refuse('NOT_CONVENER', `only the convener ${s.convener} may delete the session (RFC 0001 §6)`);
    const head = this.store.lastTurn(s.id);
    this.store.delete(s.id);
    return {
      performative: 'INFORM',
      content: { type: 'SESSION_RECEIPT', session_id: s.id, turn_id: head?.turn_id ?? 'trn-none', previous_turn_id: head?.previous_turn_id ?? null, op: 'delete', state_version: s.state_version, status: 'deleted' },
    };
  }

  private info(s: SessionRow): Outcome {
    const content = {
      type: 'SESSION_INFO', session_id: s.id, state: s.state, state_version: s.state_version, state_schema: s.state_schema, status: s.status,
      convener: s.convener, participants: this.store.participants(s.id).map((p) => p.did), turn_id: this.store.lastTurn(s.id)?.turn_id ?? 'trn-none',
      expires_at: s.expires_at, ...(s.title ? { title: s.title } : {}), ...(s.on_behalf_of ? { on_behalf_of: s.on_behalf_of } : {}),
    };
    return { performative: 'INFORM', content };
  }

  private log(s: SessionRow, c: SessionLogContent): Outcome {
    const all = this.store.turns(s.id, c.after_seq ?? 0);
    const limit = c.limit ?? 200;
    const turns: Omit<Turn, 'session_id'>[] = [];
    let bytes = 0;
    for (const { session_id: _, ...t } of all.slice(0, limit)) {
      bytes += contentByteSize(t);
      if (bytes > LOG_BUDGET_BYTES && turns.length > 0) break;
      turns.push(t);
    }
    return { performative: 'INFORM', content: { type: 'SESSION_TURNS', session_id: s.id, turns, more: turns.length < all.length } };
  }
}

export function receipt(t: Turn, s: SessionRow): Record<string, unknown> {
  return {
    type: 'SESSION_RECEIPT', session_id: t.session_id, turn_id: t.turn_id, previous_turn_id: t.previous_turn_id, hash: t.hash, op: t.op,
    state_version: s.state_version, status: s.status, convener: s.convener,
  };
}
