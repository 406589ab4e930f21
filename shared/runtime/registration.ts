// A second public entry of shared/runtime/ (issue 10 §2): PUBLIC_ENTRIES in eslint.config.js says
// which modules it re-exports and why they are not in index.ts.
export { type DfRegistration, GATED_RETRY, RegistrationGate, registerWithDf, REGISTERING_AT_ONCE } from './df-registration.js';
export { type RegistrationEmitted, registrationMachine } from './registration-machine.js';
