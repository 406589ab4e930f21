// Public API of shared/store/ (issue 10 §2): code outside this folder imports it from here;
// modules inside it import each other directly.
export { AnsweredRequests, requestKey } from './answered.js';
export { type DirectoryRecord, type DirectoryStore, MemoryDirectoryStore, SOFT_FLUSH_MS, SqliteDirectoryStore } from './directory.js';
export { packRecord, unpackRecord } from './exchange-record.js';
export { ExchangeStore } from './exchanges.js';
export { GroupCommit, type Grouped, groupOn } from './group-commit.js';
export {
  DEFAULT_FACT_LIMIT, type Fact, type FactFilter, type FactStore, MemoryFactStore, SqliteFactStore,
  type StoredFact,
} from './facts.js';
export { ReplayLedger } from './replay-ledger.js';
export { type Db, openDb } from './sqlite.js';
