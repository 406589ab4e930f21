// The requesting side of a one-reply exchange, for integration tests that drive a real agent:
// it sends one envelope and ends with the first reply correlated to it (its output). The same
// machine the bench uses (shared/bench/one-shot-query.ts).
export { oneShotQuery as oneShot } from '../../shared/bench/index.js';
