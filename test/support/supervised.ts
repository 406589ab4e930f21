// Tear-down for tests that run the real supervisor (`node dist/scripts/supervisor.js`): SIGTERM
// (it stops every agent and ejabberd), then SIGKILL and a hard ejabberd kill if it hangs, then
// the temporary PARLEY_HOME goes (kept with PARLEY_KEEP_TEST_HOME).
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import type { ParleyConfig } from '../../shared/config/index.js';
import * as ejabberd from '../../shared/ejabberd/control.js';

export async function stopSupervisor(sup: ChildProcess | undefined, cfg: ParleyConfig | undefined, graceMs = 30000): Promise<void> {
  if (sup && sup.exitCode === null && sup.signalCode === null) {
    sup.kill('SIGTERM');
    await Promise.race([new Promise((r) => sup.once('exit', r)), new Promise((r) => setTimeout(r, graceMs))]);
    if (sup.exitCode === null && sup.signalCode === null) {
      sup.kill('SIGKILL');
      if (cfg) ejabberd.kill(cfg);
    }
  }
  if (cfg && !process.env.PARLEY_KEEP_TEST_HOME) fs.rmSync(cfg.home, { recursive: true, force: true });
}
