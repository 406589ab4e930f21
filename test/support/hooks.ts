// Mocha root hooks (loaded through .mocharc.json "require", before any test file): the suite is
// hermetic against the caller's environment, and every ejabberd a test started is stopped.
import { useRoleBook } from '../../shared/runtime/index.js';
import { stopAll } from './ejabberd.js';
import { testRoles } from './signing.js';

// In-process agents of unit tests name their specialists and calendars by prefix; the agents a
// test starts as processes read the instance's real enrolment record (shared/identity/roster.ts).
useRoleBook(testRoles);

// A shell exported for a running instance (PARLEY_HOME, PARLEY_*_PORT, …, as the README shows
// for a second instance) must not leak into the tests: each test builds its own configuration.
// Only the switches meant for the test run itself survive (PARLEY_CLUSTER_HOSTS=loopback runs the
// cluster tests on loopback addresses where they would get network namespaces).
const KEEP = new Set(['PARLEY_KEEP_TEST_HOME', 'PARLEY_LOG_LEVEL', 'PARLEY_CRASH_MATRIX', 'PARLEY_CRASH_ONLY', 'PARLEY_CLUSTER_HOSTS']);
for (const name of Object.keys(process.env)) {
  if (name.startsWith('PARLEY_') && !KEEP.has(name)) delete process.env[name];
}

export const mochaHooks = {
  async afterAll(this: Mocha.Context) {
    this.timeout(60000);
    await stopAll();
  },
};
