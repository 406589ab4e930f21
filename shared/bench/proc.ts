// What the bench reads of a process from Linux's /proc: its stat fields, its CPU, its descendants
// (the skill workers a specialist starts in their sandboxes), and the CPU of that whole tree.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/**
 * A process's /proc/PID/stat fields after the ")" that ends its command name (so [0] is the state,
 * field 3; [1] the parent, field 4; [11] and [12] utime and stime, fields 14 and 15; [13] and [14]
 * cutime and cstime, fields 16 and 17), or undefined when it is gone (Linux only).
 */
export function procStat(pid: number): string[] | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** user + system CPU of a process, µs (Linux /proc; 0 when it is gone or elsewhere). */
export function procCpuUs(pid: number): number {
  const f = procStat(pid);
  return f ? ((Number(f[11]) + Number(f[12])) / CLK_TCK) * 1e6 : 0;
}

/** Bytes this process asked to write (wchar) and its write calls (syscw), from /proc/self/io. */
export function selfIo(): { wchar: number; syscw: number } {
  const f = Object.fromEntries(fs.readFileSync('/proc/self/io', 'utf8').trim().split('\n').map((l) => l.split(': ')));
  return { wchar: Number(f.wchar), syscw: Number(f.syscw) };
}

/** A process's scheduler state (R running, S sleeping, T stopped, …), or undefined when it is gone. */
export function procState(pid: number): string | undefined {
  return procStat(pid)?.[0];
}

/** The processes `isRoot` picks (or the pids given), and all their descendants (skill workers). */
export function withDescendants(isRoot: number[] | ((pid: number) => boolean)): number[] {
  const parents = new Map<number, number>();
  const roots: number[] = [];
  const pick = Array.isArray(isRoot) ? (pid: number) => isRoot.includes(pid) : isRoot;
  for (const entry of fs.readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const f = procStat(pid);
    if (!f) continue; // gone meanwhile
    parents.set(pid, Number(f[1]));
    if (pick(pid)) roots.push(pid);
  }
  const tree = new Set(roots);
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, ppid] of parents) {
      if (tree.has(pid) || !tree.has(ppid)) continue;
      tree.add(pid);
      grew = true;
    }
  }
  return [...tree];
}

/**
 * CPU (µs) of `pid` and everything it started, live or gone: each live process of the tree counts
 * its own time and that of its children it has reaped (cutime, cstime: a skill worker that exited,
 * through the sandbox's unshare, into the specialist's). A live process's reaped children are no
 * longer in the tree, so nothing counts twice. 0 when `pid` is gone.
 */
export function treeCpuUs(pid: number): number {
  let ticks = 0;
  for (const p of withDescendants([pid])) {
    const f = procStat(p);
    if (f) ticks += Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
  }
  return (ticks / CLK_TCK) * 1e6;
}
