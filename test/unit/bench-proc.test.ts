// The bench's CPU of an agent with its skill workers (shared/bench/proc.ts treeCpuUs): a worker
// is a process of its own, started and ended by the pool while the bench runs, so the CPU of one
// that already exited must still count (through its parent's cutime), once.
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { procCpuUs, treeCpuUs } from '../../shared/bench/index.js';
import { until } from '../support/wait.js';

// A parent that starts a child burning 300 ms of CPU (by its own clock, however busy the machine
// is), reaps it, says so, and stays.
const CHILD = 'while (process.cpuUsage().user < 300000) {}';
const PARENT = `require('child_process').spawn(process.execPath, ['-e', ${JSON.stringify(CHILD)}], { stdio: 'ignore' }).on('exit', () => { console.log('reaped'); setInterval(() => {}, 1000); });`;

describe('bench [proc] an agent\'s CPU with its skill workers, live or exited', () => {
  it('counts a child that exited (reaped) into its parent\'s tree, and not into the parent alone', async () => {
    const parent = spawn(process.execPath, ['-e', PARENT], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      let out = '';
      parent.stdout!.on('data', (b: Buffer) => (out += String(b)));
      await until(() => out.includes('reaped'), 'the child to exit and be reaped');
      const pid = parent.pid as number;
      const own = procCpuUs(pid);
      const tree = treeCpuUs(pid);
      // The child burnt ≥ 300 ms (the clock's ticks are 10 ms), more than the parent alone.
      expect(tree - own, 'the exited child in the tree').to.be.at.least(250_000);
      expect(own, 'the parent alone, without its child').to.be.below(tree - own);
      // Read again: the same CPU, nothing counted twice.
      expect(treeCpuUs(pid) - tree).to.be.below(50_000);
    } finally {
      parent.kill();
    }
  });

  it('counts a live child with its own CPU, and is 0 for a process that is gone', async () => {
    const parent = spawn(process.execPath, ['-e', `require('child_process').spawn(process.execPath, ['-e', 'while (process.cpuUsage().user < 200000) {} console.log(1); setInterval(() => {}, 1000)'], { stdio: 'inherit' }); setInterval(() => {}, 1000);`], { stdio: ['ignore', 'pipe', 'ignore'], detached: true });
    try {
      let out = '';
      parent.stdout!.on('data', (b: Buffer) => (out += String(b)));
      await until(() => out.includes('1'), 'the child to burn its CPU');
      expect(treeCpuUs(parent.pid as number) - procCpuUs(parent.pid as number)).to.be.at.least(150_000);
    } finally {
      process.kill(-(parent.pid as number), 'SIGKILL'); // its process group: the child too
    }
    await until(() => treeCpuUs(parent.pid as number) === 0, 'the parent gone');
  });
});
