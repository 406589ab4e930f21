// One session request at the Coordinator (a SESSION_* kind or a person's `session …` line): the
// shared answer-once machine (shared/runtime/answer-once.ts): the store work runs in the invoked
// handler that wire.ts provides, answered exactly once, FAILURE INTERNAL_ERROR when it throws.
export { answerOnceMachine as sessionMachine } from '../../../shared/runtime/index.js';
