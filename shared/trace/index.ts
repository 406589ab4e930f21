// Public API of shared/trace/ (issue 10 §2): code outside this folder imports it from here;
// modules inside it import each other directly.
export { type Analysis, analyze } from './analyze.js';
export { Person, subscribeToPresenter } from './ask.js';
export { type Scenario, parseScenario } from './expect.js';
export { correlationTable, mermaid, summary, table } from './render.js';
export type { ChatEnds, TraceRecord } from './types.js';
