// Parley identities: Ed25519 keys, did:key, RFC 8785 signing of envelopes, replay window, keystore.
export * from './keys.js';
export { defaultEd25519, sodiumEd25519, sodiumSource } from './sodium.js';
export * from './did-key.js';
export * from './jcs.js';
export * from './sign.js';
export * from './replay.js';
export * from './keystore.js';
export * from './trust.js';
export * from './enrolment.js';
export * from './roster.js';
export * from './join-token.js';
export { DEFAULT_OFFLINE_GRACE_MS, OfflineGaps } from './offline-gaps.js';
