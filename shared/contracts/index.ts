// Public API of the contracts layer: schemas from contracts/, validators, generated types.
export {
  CONTRACT_BASE, ContractLoadError, contractId, contracts, findContractsDir, loadContracts,
  type Contracts, type LoadOptions,
} from './registry.js';
export {
  CONTENT_KINDS, DECLARED_CONTENT_KINDS, contentKindByName, contentKinds, resolveContentKind,
  type ContentKind, type ContentKindResolver, type ContentKindResult,
} from './content-kinds.js';
export { MESSAGE_KINDS, answers, opens, row, type KindPolicy, type MessageKind } from './message-kinds.js';
export { CORE_AGENTS, CORE_ROLES, ENROLLED_ROLES, NOT_AGENT_ROLES, ROLES, WORKER_ROLES, type CoreRole, type Role } from './roles.js';
export {
  MAX_REPORTED_ERRORS, compactErrors, parseEnvelope, validateEnvelope,
  type ValidationCode, type ValidationResult,
} from './validate.js';
export { fingerprint, loadPrecompiled, writePrecompiled, type Validators } from './precompiled.js';
export type * from './types.gen.js';
