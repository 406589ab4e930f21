// Public API of shared/runtime/ (issue 10 §2): code outside this folder imports it from here;
// modules inside it import each other directly.
export { Agent, type AgentOptions } from './agent.js';
export {
  type Answer, type AnswerOnceInput, type HandlerInput, type Note, answerOnceMachine,
  hotPathAnswerOnceMachine,
} from './answer-once.js';
export { type Booted, createAgent, exchangeStoreFile, groupCommitFor, telemetryFile } from './boot.js';
export { restoreExchanges } from './durable.js';
export type { ChildSendEvent, ExchangeEmitted, ExchangeFactory, ExchangeInput, InboundEvent } from './exchange.js';
export {
  type Identity, type Role, type RoleBook, agentsDomain, calendarsDomain, hasRoleBook, identify,
  addressOf, generatedLocals, jidOfName, nameOfJid, roomsDomain, useRoleBook,
} from './names.js';
export { classify, type PipelineContext } from './pipeline.js';
export {
  KIND_POLICY, allowedSenders, kindsWithoutPolicy, mayInitiate, mayReply, mayTalk, needsAssignment,
  kindPolicies,
} from './policy.js';
export { onProcessEnd, startUp } from './process-end.js';
export { RateLimiter, rateLimitFromEnv } from './rate-limit.js';
export { type PersistedExchange, Router } from './router.js';
export { BoundedSet, RecentMap } from './bounded.js';
export {
  Signing, type SigningOptions, offlineWindowFromEnv, replayLedgerFile, signingEnabled, signingFor,
} from './signing.js';
export { MemoryTelemetry, SqliteTelemetry, type Telemetry, type TelemetryRecord, preciseClock, preciseNow } from './telemetry.js';
export { warmUp } from './warm-up.js';
export { RegisterBatcher } from './register-batch.js';
export { ExchangeClock } from './outage-timers.js';
export { ReplyAddresses } from './reply-address.js';
export { RESEND_WINDOW_MS, SentLog } from './sent-log.js';
export { oversizedContent, standInFor } from './outbound-fit.js';
