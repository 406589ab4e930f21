// Public API of the contracts layer: schemas from contracts/, validators, generated types.
export {
  CONTRACT_BASE, ContractLoadError, contractId, contracts, findContractsDir, loadContracts,
  type Contracts,
} from './registry.js';
export {
  CONTENT_KINDS, contentKindByName, resolveContentKind,
  type ContentKind, type ContentKindResult,
} from './content-kinds.js';
export {
  MAX_REPORTED_ERRORS, compactErrors, parseEnvelope, validateEnvelope,
  type ValidationCode, type ValidationResult,
} from './validate.js';
export type * from './types.gen.js';
