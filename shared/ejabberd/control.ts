// Start, stop and inspect the project's own ejabberd (issue #2 §1) through Debian's ejabberdctl
// with --config-dir/--spool/--logs/--node, so nothing in /etc is read or written.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { type ParleyConfig, paths, envString } from '../config/index.js';
import { SecretMap, secureStateDir } from '../secrets/index.js';
import { componentSecret } from './accounts.js';
import { ADMIN_ACCOUNT, api, apiAnswers, isAuthRefusal } from './api.js';
import { portOpen, waitFor } from './ports.js';
import { clustered, ensureCookie, hostOf, nodeNetns } from './cluster.js';
import { nodeName, renderConfig } from './render.js';

const run = promisify(execFile);
export const EJABBERDCTL = envString('PARLEY_EJABBERDCTL') as string;
const RUN_AS = 'ejabberd'; // Debian's ejabberdctl, called as root, runs the node as this user.

export interface InstanceStatus {
  running: boolean;
  c2s: boolean;
  component: boolean;
  http: boolean;
  api: boolean;
  node: string;
  online: string[];
}

function ctlArgs(cfg: ParleyConfig): string[] {
  const p = paths(cfg);
  return ['--config-dir', p.etc, '--spool', p.spool, '--logs', p.logs, '--node', nodeName(cfg)];
}

/** ejabberdctl for this node, on its host: inside its network namespace when it has one (hosts.ts). */
export function ctl(cfg: ParleyConfig, ...args: string[]) {
  const ns = nodeNetns(cfg);
  const argv = [...ctlArgs(cfg), ...args];
  return ns ? run('ip', ['netns', 'exec', ns, EJABBERDCTL, ...argv], { timeout: 60000 }) : run(EJABBERDCTL, argv, { timeout: 60000 });
}

function assertInstalled(): void {
  if (!fs.existsSync(EJABBERDCTL)) {
    throw new Error(
      `ejabberd is not installed (${EJABBERDCTL} missing). Run \`npm run setup\` as root, ` +
        'or `apt-get update && apt-get install -y ejabberd`.',
    );
  }
  if (process.getuid?.() !== 0) {
    throw new Error("Debian's ejabberdctl runs only as root or as user ejabberd: run Parley as root.");
  }
}

/**
 * The node runs as user ejabberd: it owns spool, logs and run dirs (0700, files 0600) and reads
 * the config (group ejabberd, 0750/0640). To get there it may traverse, not list, the state
 * directory and its ejabberd/ folder (root:ejabberd 0710); everything else is root's alone.
 */
async function prepareOwnership(cfg: ParleyConfig): Promise<void> {
  const p = paths(cfg);
  secureStateDir(cfg.home);
  const traversed = [...new Set([cfg.home, p.ejabberd, p.node])];
  for (const dir of traversed) fs.chmodSync(dir, 0o710);
  await run('chgrp', [RUN_AS, ...traversed]);
  // A clustered node's own folders, and the cluster's cookie (cluster.ts), are the node's alone.
  const owned = [p.spool, p.logs, p.run, ...(clustered(cfg) ? [ensureCookie(cfg)] : [])];
  await run('chown', ['-R', `${RUN_AS}:${RUN_AS}`, ...owned]);
  await run('chmod', ['-R', 'go-rwx', ...owned]);
  const etcFiles = fs.readdirSync(p.etc).map((f) => path.join(p.etc, f));
  await run('chgrp', [RUN_AS, p.etc, ...etcFiles]);
  fs.chmodSync(p.etc, 0o750);
  // etc/erl, the clustered node's erl wrapper, is run by ejabberd; the rest is read only.
  for (const f of etcFiles) fs.chmodSync(f, path.basename(f) === 'erl' ? 0o750 : 0o640);
  try {
    await run('su', ['-s', '/bin/sh', RUN_AS, '-c', `test -r "${path.join(p.etc, 'ejabberd.yml')}" && test -w "${p.spool}"`]);
  } catch {
    throw new Error(
      `user ${RUN_AS} cannot reach ${cfg.home}: every parent directory must be traversable (o+x). ` +
        'Set PARLEY_HOME to a directory it can reach.',
    );
  }
}

/**
 * `online: false` leaves out who is connected (empty): that is the one call here that authenticates
 * the admin, a SCRAM hash in ejabberd (≈ 10 ms), and `npm start` asks twice before it starts anything.
 */
export async function status(cfg: ParleyConfig, { online: listOnline = true } = {}): Promise<InstanceStatus> {
  const at = hostOf(cfg).listen;
  const [c2s, rooms, agents, calendars, http] = await Promise.all([
    portOpen(cfg.c2sPort, at),
    portOpen(cfg.componentPort, at),
    portOpen(cfg.agentsComponentPort, at),
    portOpen(cfg.calendarsComponentPort, at),
    portOpen(cfg.httpPort, at),
  ]);
  // Every component listener (rooms.<domain>, agents.<domain>, calendars.<domain>) must be up for `component`.
  const component = rooms && agents && calendars;
  const apiOk = http && (await apiAnswers(cfg));
  const online = apiOk && listOnline ? await api.connectedUsers(cfg).catch(() => [] as string[]) : [];
  return { running: c2s && http && apiOk, c2s, component, http, api: apiOk, node: nodeName(cfg), online };
}

function logTail(cfg: ParleyConfig, lines = 20): string {
  const p = paths(cfg);
  for (const f of ['error.log', 'ejabberd.log', 'crash.log']) {
    const file = path.join(p.logs, f);
    if (fs.existsSync(file) && fs.statSync(file).size > 0) {
      return `--- ${file} ---\n` + fs.readFileSync(file, 'utf8').trim().split('\n').slice(-lines).join('\n');
    }
  }
  return '(no ejabberd log yet)';
}

/**
 * Starts this node (`cfg.node` of its cluster). `admin: false` skips creating the admin account: a
 * node about to join a cluster gets it, with every other account, from the cluster (cluster-control.ts).
 */
export async function start(cfg: ParleyConfig, { timeoutMs = 30000, admin = true } = {}): Promise<InstanceStatus> {
  assertInstalled();
  let before = await status(cfg, { online: false });
  if (before.running) return before;
  // Our own node may still hold its ports for a moment: just SIGKILLed (the kernel closes its
  // sockets when the process is reaped) or starting (ports open, API not yet answering). Wait
  // for it to be gone or up before calling the ports someone else's.
  const ours = readPid(cfg);
  if ((before.c2s || before.http) && ours !== undefined) {
    const until = Date.now() + 10_000;
    while (!before.running && (before.c2s || before.http) && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 100));
      before = await status(cfg, { online: false });
    }
    if (before.running) return before;
  }
  if (before.c2s || before.http) {
    throw new Error(`port ${before.c2s ? cfg.c2sPort : cfg.httpPort} is taken by something that is not this Parley instance`);
  }
  renderConfig(cfg, componentSecret(cfg));
  await prepareOwnership(cfg);
  // A node killed with SIGKILL leaves its pid file behind; that stale pid must not pass for
  // the new node dying during start.
  // It may still be dying (a loaded machine reaps slowly; its node name is registered with epmd
  // until then): wait for it, then the file goes whatever it says.
  const stale = readPid(cfg);
  if (stale !== undefined) {
    const until = Date.now() + 10_000;
    while (alive(stale) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    fs.rmSync(path.join(paths(cfg).run, 'ejabberd.pid'), { force: true });
  }
  await ctl(cfg, 'start').catch((err: Error) => {
    throw new Error(`ejabberdctl start failed: ${err.message}\n${logTail(cfg)}`);
  });
  const t0 = Date.now();
  try {
    await waitFor(async () => {
      // A node that refuses its config dies within a second or two: fail fast with its log.
      // The node writes its pid file only once the VM has booted, which takes well over 3 s on
      // a loaded machine: a missing pid file is only fatal after 20 s, a dead pid at once.
      const pid = readPid(cfg);
      const waited = Date.now() - t0;
      if (pid !== undefined && pid !== stale && !alive(pid)) throw new Error('ejabberd node exited during start');
      if (pid === undefined && waited > 20000) throw new Error('ejabberd node exited during start (no pid file after 20 s)');
      const at = hostOf(cfg).listen;
      return (await portOpen(cfg.c2sPort, at)) && (await portOpen(cfg.httpPort, at));
    }, {
      timeoutMs,
      what: `ejabberd ports ${cfg.c2sPort}/${cfg.httpPort}`,
    });
    await waitFor(() => apiAnswers(cfg), { timeoutMs, what: 'ejabberd HTTP API' });
    if (admin) await ensureAdmin(cfg);
  } catch (err) {
    throw new Error(`${(err as Error).message}\n${logTail(cfg)}`);
  }
  return status(cfg);
}

/**
 * The admin account every HTTP API call authenticates as. The API itself refuses everyone until
 * it exists, so the first start creates it with ejabberdctl (one Erlang VM, ~0.3 s, only then);
 * later starts find it and pay nothing. Also converts any plain-text password an older install
 * stored to SCRAM (auth_password_format: scram).
 */
export async function ensureAdmin(cfg: ParleyConfig): Promise<void> {
  const password = new SecretMap(path.join(paths(cfg).secrets, 'accounts.json')).ensure(ADMIN_ACCOUNT);
  const authenticated = () => api.status(cfg).then(() => true, (err: unknown) => {
    if (isAuthRefusal(err)) return false;
    throw err;
  });
  if (!(await authenticated())) {
    await ctl(cfg, 'register', ADMIN_ACCOUNT, cfg.domain, password)
      .catch(() => ctl(cfg, 'change_password', ADMIN_ACCOUNT, cfg.domain, password));
    await waitFor(authenticated, { timeoutMs: 10000, what: 'the admin account to authenticate' });
  }
  await api.convertToScram(cfg);
}

function readPid(cfg: ParleyConfig): number | undefined {
  try {
    const pid = Number(fs.readFileSync(path.join(paths(cfg).run, 'ejabberd.pid'), 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A SIGKILLed node not yet reaped is a zombie: signal 0 still reaches it, but it holds nothing.
  try {
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true; // no /proc (not Linux): trust the signal
  }
}

/** Clean stop through ejabberdctl; SIGTERM, then SIGKILL, on the node's pid if it hangs. */
export async function stop(cfg: ParleyConfig, { timeoutMs = 20000 } = {}): Promise<boolean> {
  const pid = readPid(cfg);
  const at = hostOf(cfg).listen;
  const up = (await portOpen(cfg.c2sPort, at)) || (pid !== undefined && alive(pid));
  if (!up) return false;
  await ctl(cfg, 'stop').catch(() => undefined);
  const gone = async () => !(await portOpen(cfg.c2sPort, at)) && (pid === undefined || !alive(pid));
  try {
    await waitFor(gone, { timeoutMs, what: 'ejabberd to stop' });
  } catch {
    if (pid !== undefined && alive(pid)) process.kill(pid, 'SIGKILL');
    await waitFor(gone, { timeoutMs: 5000, what: 'ejabberd to die' });
  }
  return true;
}

/** Kill the node without a clean shutdown (tests of reconnect and crash recovery). */
export function kill(cfg: ParleyConfig): boolean {
  const pid = readPid(cfg);
  if (pid === undefined || !alive(pid)) return false;
  process.kill(pid, 'SIGKILL');
  return true;
}
