// Integration tests run a real, project-local ejabberd (never a mock) in a temporary
// PARLEY_HOME on free ports. One instance is shared by the whole run (start ≈ 1.5 s) and
// stopped by the root hook; tests use their own accounts and conversation ids.
import { closeApiAgent } from '../../shared/ejabberd/index.js';
import { startTempInstance, type TempInstance } from '../../shared/ejabberd/operator.js';

export type TestInstance = TempInstance;

let shared: Promise<TestInstance> | undefined;
const started: TestInstance[] = [];

/** A private instance (e.g. for a test that kills ejabberd); stopped by the root hook. */
export async function startInstance(prefix = 'parley-test-'): Promise<TestInstance> {
  const inst = await startTempInstance(prefix);
  started.push(inst);
  return inst;
}

/** The run's shared instance, started on first use. */
export function sharedInstance(): Promise<TestInstance> {
  shared ??= startInstance();
  return shared;
}

export async function stopAll(): Promise<void> {
  for (const inst of started.splice(0)) await inst.stop({ keep: Boolean(process.env.PARLEY_KEEP_TEST_HOME) });
  closeApiAgent();
  shared = undefined;
}
