// Public API of shared/bench/ (issue 10 §2): code outside this folder imports it from here;
// modules inside it import each other directly.
export { agentsScale, beamPid } from './agents-scale.js';
export { calendarsScale } from './calendars-scale.js';
export { asBenchReport, compareRuns, renderComparison } from './compare-runs.js';
export { consoleWatcher, prepareConsoleBench } from './console-watch.js';
export { exchangeSteady, exchangeSteadyScenario } from './exchange-steady.js';
export { type RequesterInput, type RequesterOutput, echoRequester, echoResponder } from './echo-machines.js';
export { freezeIdle, processTree, procState, signal } from './freeze.js';
export { fullFlow, fullFlowWatched, procCpuUs, question } from './full-flow.js';
export { llmDirect, llmSkill } from './llm.js';
export { oneShotQuery } from './one-shot-query.js';
export { blockOrder, measurePaired, type Toggle } from './paired.js';
export { rawEcho } from './raw-echo.js';
export { measureScale, renderScale, type ScaleResult } from './scale.js';
export { type BenchReport, buildReport, renderReport } from './report.js';
export { type RuntimeAgent, runtimeAgent } from './runtime-agent.js';
export { runtimeAskExpert, runtimeRequestReply } from './runtime-scenarios.js';
export { type BenchOptions, type Scenario, type ScenarioResult, measure, registerScenario, scenarios } from './scenario.js';
