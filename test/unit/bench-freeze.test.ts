// The paired console bench's "off" (shared/bench/freeze.ts): the console and the browser frozen
// with SIGSTOP, found by their command line, and thawed as they were. Against a real process.
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import { freezeIdle, procCpuUs, processTree, procState, signal } from '../../shared/bench/index.js';
import { until } from '../support/wait.js';

/** The state of every thread of `pid`: procState reads /proc/TID/stat, which Linux serves for any thread. */
function threadStates(pid: number): Array<string | undefined> {
  try {
    return fs.readdirSync(`/proc/${pid}/task`).map((tid) => procState(Number(tid)));
  } catch {
    return []; // gone
  }
}

describe('bench [freeze] the watchers taken off the CPU between watched blocks', () => {
  it('finds a process and its child by a marker, freezes them (no CPU) and thaws them where they were', async () => {
    const marker = `parley-freeze-${randomUUID()}`;
    // A parent that counts on a timer and a child that does the same: both must stop and go on.
    const code = `let n = 0; setInterval(() => { n += 1; if (process.argv[2] === 'parent' && n === 1) require('child_process').spawn(process.execPath, ['-e', process.argv[1].replace(/parent/, 'child'), '${marker}', 'child'], { stdio: 'ignore' }); }, 5);`;
    const parent = spawn(process.execPath, ['-e', code.replace('process.argv[1]', JSON.stringify(code)), marker, 'parent'], { stdio: 'ignore' });
    try {
      await until(() => processTree(marker).length >= 2, 'the parent and its child');
      const tree = processTree(marker);
      expect(tree).to.include(parent.pid);
      await freezeIdle(parent.pid as number);
      signal(tree.filter((p) => p !== parent.pid), 'SIGSTOP');
      await until(() => tree.every((p) => procState(p) === 'T'), 'all stopped');
      // The leader shows T before every thread of the group has stopped (each stops at its next
      // signal check), and a V8 helper thread may still finish a time slice: the baseline is taken
      // once every thread is stopped and the process's CPU reads the same twice in a row.
      await until(() => tree.every((p) => threadStates(p).every((st) => st === 'T')), 'every thread stopped');
      let last: number[] = [];
      await until(() => {
        const now = tree.map((p) => procCpuUs(p));
        const settled = now.every((v, i) => v === last[i]);
        last = now;
        return settled;
      }, 'the stopped processes\' CPU to settle');
      const cpu = tree.map((p) => procCpuUs(p));
      // Meanwhile a control process with the same timer, not frozen, uses CPU: the frozen ones do not.
      const control = spawn(process.execPath, ['-e', 'setInterval(() => { for (let i = 0; i < 1e5; i++); }, 1)'], { stdio: 'ignore' });
      try {
        await until(() => procCpuUs(control.pid as number) >= 50_000, 'the control process used 50 ms of CPU');
      } finally {
        control.kill('SIGKILL');
      }
      expect(tree.map((p) => procCpuUs(p)), 'no CPU while frozen').to.deep.equal(cpu);
      signal(tree, 'SIGCONT');
      await until(() => tree.every((p) => procState(p) !== 'T'), 'all running again');
      await until(() => tree.every((p, i) => procCpuUs(p) > (cpu[i] as number)), 'both use the CPU again');
    } finally {
      for (const p of processTree(marker)) signal([p], 'SIGCONT');
      for (const p of processTree(marker)) process.kill(p, 'SIGKILL');
    }
  });
});
