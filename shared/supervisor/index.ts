// Public API of shared/supervisor/ (issue 10 §2): code outside this folder imports it from here;
// modules inside it import each other directly.
export { Backoff } from './backoff.js';
export { type BundleInputs, bundleFile, forgetStamps, freshBundle, inputsFile, stamp } from './bundles.js';
export { builtinsRequiredBy, type CacheUse, codeCacheFile, runCached } from './code-cache.cjs';
export { asciiOnly, patchJidDetect } from './bundle-patches.js';
export { type ChildInfo, ManagedChild, onFailedStart } from './child.js';
export { childEnv } from './child-env.js';
export { consoleLines } from './output.js';
export { startControl } from './control.js';
export { checkSpawnSkills, clipWords, ensureServed } from './operate.js';
export { planScale } from './scale.js';
export {
  CORE_ROLES, DEFAULT_SPECIALISTS, type SpecContext, type SpecialistDef, agentsContext, calendarHostSpec,
  calendarSpec, consoleSpec, coreSpec, hostNodeArgs, parseSpecialists, roomsSpec, runArgs, script as roleScript, specialistSpec,
} from './spec.js';
export { FailedToStart, Supervisor } from './supervisor.js';
export { type StartWait, waitForStart } from './start-wait.js';
export { alreadyRunning, runningSupervisor } from './ipc.js';
export { type HomeLock, homeLockFile, lockHome } from './home-lock.js';
