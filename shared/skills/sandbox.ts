// The skill sandbox (issue "Close the perimeter": skills are a sandbox; docs/skills.md "Sandbox").
// Each skill worker is its own OS process, started through util-linux's proven tools rather than
// anything home-made:
//   unshare --net --pid --fork   no network at all (a fresh network namespace with loopback down)
//                                and no other process in sight (its own PID namespace)
//   setpriv --reuid/--regid nobody --clear-groups --no-new-privs
//                                an unprivileged user: the 0700/0600 state directory (secrets, keys,
//                                databases) is unreadable, and it cannot signal Parley's processes
//   prlimit --data --nproc --core
//                                RLIMIT_DATA caps every allocation (V8 heap, Buffers, ArrayBuffers)
//   node --experimental-permission --allow-fs-read=…
//                                Node's permission model: reads only the code it runs and the paths
//                                the operator granted; no writes, no child processes, no workers
// and an empty environment. When the process is not root (unshare and setpriv need it) only the
// last two layers apply and `isolation()` says so ("partial"), so status can show it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from '../runtime/repo-root.js';

const UNSHARE = '/usr/bin/unshare';
const SETPRIV = '/usr/bin/setpriv';
const PRLIMIT = '/usr/bin/prlimit';
/** The conventional unprivileged account (Debian: nobody/nogroup). */
export const SANDBOX_UID = 65534;
export const SANDBOX_GID = 65534;

export type Isolation = 'full' | 'partial';

interface Layers { namespaces: boolean; user: boolean }
let layers: Layers | undefined;
function available(): Layers {
  if (layers) return layers;
  const root = process.getuid?.() === 0;
  const code = repoRoot();
  layers = {
    namespaces: root && fs.existsSync(UNSHARE),
    // The sandbox user must be able to read the code it runs (the repository's dist/ and
    // node_modules/): a checkout inside a private folder (e.g. /root) cannot drop to it.
    user: root && fs.existsSync(SETPRIV) && ['dist', 'node_modules'].every((d) => readableByOthers(path.join(code, d))),
  };
  return layers;
}

/** Full isolation needs root, the util-linux tools and a world-readable checkout. */
export function isolation(): Isolation {
  const l = available();
  return l.namespaces && l.user && fs.existsSync(PRLIMIT) ? 'full' : 'partial';
}

export interface SandboxSpec {
  /** The worker script (inside the repository's dist/). */
  script: string;
  /** Arguments for the script (the worker's data as JSON). */
  args: string[];
  /** The skill's own folder, readable by the sandbox (staged if the sandbox user cannot reach it). */
  skillDir: string;
  /** RLIMIT_DATA in MB: every allocation of the worker, heap and Buffers alike. */
  memoryMb: number;
  /** Capabilities the skill declared and the operator granted (docs/skills.md). */
  grants?: { env?: Record<string, string>; fsRead?: string[]; network?: boolean };
}

export interface SandboxCommand {
  command: string;
  args: string[];
}

/** RLIMIT_CPU of one worker process, seconds (see sandboxCommand). */
const CPU_SECONDS = 3600;

/** Node's own baseline (runtime, ICU, the worker script) on top of what the skill may use. */
const BASELINE_MB = 160;

export function sandboxCommand(spec: SandboxSpec): SandboxCommand {
  const root = repoRoot();
  const reads = [
    spec.script, path.join(root, 'dist'), path.join(root, 'node_modules'), path.join(root, 'package.json'),
    spec.skillDir, ...(spec.grants?.fsRead ?? []),
  ];
  const dataBytes = (spec.memoryMb + BASELINE_MB) * 1024 * 1024;
  const node = [
    process.execPath,
    '--experimental-permission',
    ...reads.map((p) => `--allow-fs-read=${p}`),
    `--max-old-space-size=${spec.memoryMb}`,
    '--disable-warning=ExperimentalWarning',
    spec.script, ...spec.args,
  ];
  const l = available();
  const ns = l.namespaces ? [UNSHARE, ...(spec.grants?.network ? [] : ['--net']), '--pid', '--fork', '--kill-child', '--'] : [];
  const user = l.user ? [SETPRIV, `--reuid=${SANDBOX_UID}`, `--regid=${SANDBOX_GID}`, '--clear-groups', '--no-new-privs', '--'] : [];
  // --cpu: a worker orphaned while spinning (its specialist SIGKILLed mid-call) still ends, after an
  // hour of CPU; a pool replaces a worker that reaches it like any that died.
  const limits = fs.existsSync(PRLIMIT) ? [PRLIMIT, `--data=${dataBytes}`, '--core=0', `--cpu=${CPU_SECONDS}`, '--'] : [];
  const all = [...ns, ...user, ...limits, ...node];
  return { command: all[0] as string, args: all.slice(1) };
}

/**
 * A skill folder the sandbox user cannot read (an operator's skill under the 0700 state
 * directory) is staged as a read-only copy in a world-readable temporary folder: a skill's own
 * files hold no secrets, while everything around them does. Keyed by the skill's fingerprint.
 */
export function stageSkillDir(dir: string, name: string, fingerprint: string): string {
  if (!available().user || readableByOthers(dir)) return dir;
  // Under a folder this process owns (never one another local user could have planted).
  const base = path.join(os.tmpdir(), `parley-skills-${process.getuid?.() ?? 0}`);
  fs.mkdirSync(base, { recursive: true, mode: 0o755 });
  const st = fs.lstatSync(base);
  if (!st.isDirectory() || st.uid !== process.getuid?.() || (st.mode & 0o022) !== 0) {
    throw new Error(`${base} is not a folder of this user's that only it may write: refusing to stage skills there`);
  }
  fs.chmodSync(base, 0o755);
  const target = path.join(base, `${name}-${fingerprint.slice(0, 16)}`);
  if (!fs.existsSync(path.join(target, '.staged'))) {
    fs.rmSync(target, { recursive: true, force: true });
    fs.cpSync(dir, target, { recursive: true, dereference: true, filter: (src) => !path.basename(src).startsWith('.') });
    const open = (p: string) => {
      const st = fs.statSync(p);
      fs.chmodSync(p, st.isDirectory() ? 0o755 : 0o644);
      if (st.isDirectory()) for (const e of fs.readdirSync(p)) open(path.join(p, e));
    };
    open(target);
    fs.writeFileSync(path.join(target, '.staged'), '', { mode: 0o644 });
  }
  return target;
}

/** Whether "others" may traverse every folder down to `dir` and read it. */
function readableByOthers(dir: string): boolean {
  let p = path.resolve(dir);
  if (!fs.existsSync(p) || (fs.statSync(p).mode & 0o005) !== 0o005) return false;
  for (p = path.dirname(p); ; p = path.dirname(p)) {
    if ((fs.statSync(p).mode & 0o001) === 0) return false;
    if (p === path.dirname(p)) return true;
  }
}
