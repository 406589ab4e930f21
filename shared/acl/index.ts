// Public API of the ACL layer: envelopes, performatives, the error catalogue.
export {
  DEFAULT_ONTOLOGY, LANGUAGE, MAX_CONTENT_BYTES, contentByteSize, envelopeJson, isReplyTo, makeEnvelope,
  newConversationId, newId, nowIso, replyTo, uuidV7,
  type Content, type ContentInput, type Envelope, type EnvelopeInit, type ReplyInit,
} from './envelope.js';
export {
  NO_ERROR_REPLY, PERFORMATIVES, defaultProtocol, isPerformative, isReplyPerformative,
  mayAnswerWithError, type Performative, type Protocol,
} from './performatives.js';
export {
  ERRORS, OACOP_ERRORS, ParleyError, SESSION_ERRORS, agoraCodeFor, codesFor, errorContent, isErrorCode, performativeFor,
  toParleyError, type AgoraCode, type CodesAnsweredBy, type ErrorCode, type ErrorPerformative,
  type ErrorSpec, type ProtocolErrorSpec, type SessionReason,
  isRetryable,
} from './errors.js';
export { ASK_EXPERT_RESOURCE, agoraError, agoraTable, reasonsFor } from './agora.js';
