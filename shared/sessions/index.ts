// OAP RFC 0001 Coordination Sessions, the Tool's logic (docs/sessions.md): the SQLite store, the
// §3.5 hash chain, §3.6 credentials, §5.1 admission, the service that answers each request, and
// the chat command grammar. Shared by the sessions agent (agents/sessions/), the operator's
// service layer (shared/ops/sessions.ts) and agents that take part (credentials).
export { parseSessionCommand, type ChatCommand } from './chat-command.js';
export { chainTurn, GENESIS_HASH, turnHash, verifyChain, type ChainCheck, type Turn, type TurnCore, type TurnOp } from './chain.js';
export { issueCredential, ISSUED_SKEW_MS, verifyCredential, type CredentialCheck, type CredentialType, type SessionCredential } from './credentials.js';
export { refuse, refusal, SessionRefusal, type Outcome, type SessionReason } from './outcome.js';
export { PLAN_SCHEMA, resolveStateSchema, stateErrors, STATE_SCHEMA_PREFIX } from './schemas.js';
export { receipt, SessionService, type Actor, type SessionLimits, type SessionRequest } from './service.js';
export { sessionsDbFile, SessionStore, type Participant, type SessionRow } from './store.js';
