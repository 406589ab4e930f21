// Separate hosts for a cluster's nodes (issue #14 §1, docs/cluster.md "One machine, separate
// hosts"). Where the sandbox permits it (root, iproute2, `ip netns add` works: probed once per
// start, and cleaned up), node i > 1 runs in a network namespace of its own, `parley-<id>-n<i>`,
// joined by a veth pair to a bridge in the root namespace. The bridge makes one private /24
// (10.214.X.0/24, X picked free per installation): the bridge is X.1, which node 1 (in the root
// namespace, the operator's host) uses for its Erlang distribution, and node i is X.i. A bridge
// rather than bare veth pairs, because Mnesia is a full mesh: node 2 must reach node 3 without the
// root namespace forwarding (ip_forward is the whole machine's setting). Otherwise node i gets a
// loopback address of the root namespace (127.0.0.(10+i)), as before, and the plan says why.
//
// The plan is recorded in $PARLEY_HOME/ejabberd/hosts.json, so every process of the installation
// (agents, CLIs, tests) computes the same endpoints. Nothing is written to /etc: `ip netns add`
// only makes /run/netns/<name>.
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { type ParleyConfig, envEnum, paths } from '../config/index.js';

const run = promisify(execFile);

export interface ClusterHosts {
  mode: 'netns' | 'loopback';
  /** Why not network namespaces (mode loopback). */
  reason?: string;
  /** netns: the cluster's private /24 as 'a.b.c': the bridge (and node 1's distribution) at a.b.c.1, node i at a.b.c.i. */
  subnet?: string;
}

/** Six hex digits, stable per installation: its state directory and its first node's client port. */
export function hostsId(cfg: ParleyConfig): string {
  const base = cfg.c2sPort - (cfg.node - 1) * cfg.ejabberdPortStep;
  return crypto.createHash('sha256').update(`${path.resolve(cfg.home)}:${base}`).digest('hex').slice(0, 6);
}

/** Interface names stay within Linux's 15 characters: 'pcv' + 6 + 'n' + the node's number. */
export const netnsName = (cfg: ParleyConfig, i: number) => `parley-${hostsId(cfg)}-n${i}`;
export const bridgeName = (cfg: ParleyConfig) => `pcb${hostsId(cfg)}`;
const vethRoot = (cfg: ParleyConfig, i: number) => `pcv${hostsId(cfg)}n${i}`;
const vethNs = (cfg: ParleyConfig, i: number) => `pcn${hostsId(cfg)}n${i}`;
const stateFile = (cfg: ParleyConfig) => path.join(paths(cfg).ejabberd, 'hosts.json');
const exists = (p: string) => fs.existsSync(p);

function readState(cfg: ParleyConfig): ClusterHosts | undefined {
  try {
    return JSON.parse(fs.readFileSync(stateFile(cfg), 'utf8')) as ClusterHosts;
  } catch {
    return undefined;
  }
}

/**
 * The installation's plan, or undefined before its first clustered start (and after `stop`). A
 * namespace plan whose bridge is gone (a reboot, a teardown) is no plan: an address of its subnet
 * would be routed off the machine, so nothing may connect to one.
 */
export function readHosts(cfg: ParleyConfig): ClusterHosts | undefined {
  const h = readState(cfg);
  if (h?.mode === 'netns' && !exists(`/sys/class/net/${bridgeName(cfg)}`)) return undefined;
  return h;
}

/** For `status` and `start`: which kind of separate hosts the nodes have, and why. */
export function describeHosts(cfg: ParleyConfig, h = readHosts(cfg)): string {
  if (!h) return 'not set up (no node started)';
  if (h.mode === 'loopback') return `loopback addresses 127.0.0.(10+i) (no netns: ${h.reason ?? 'unknown'})`;
  return `network namespaces ${netnsName(cfg, 2)}…, bridge ${bridgeName(cfg)} ${h.subnet}.0/24 (node 1 in the root namespace)`;
}

const ip = (...args: string[]) => run('ip', args, { timeout: 10000 });
const quietly = (...args: string[]) => ip(...args).then(() => undefined, () => undefined);

function reasonOf(args: string[], err: unknown): string {
  const e = err as NodeJS.ErrnoException & { stderr?: string };
  if (e.code === 'ENOENT') return 'iproute2 is not installed (no `ip` command)';
  const line = (e.stderr || e.message || String(err)).trim().split('\n')[0];
  return `\`ip ${args.join(' ')}\` failed: ${line}`;
}

/**
 * Whether this sandbox lets us make what the namespace plan needs: a namespace we can enter, a
 * veth pair with one end moved into it, and a bridge. Everything made here is removed again.
 * Returns undefined when it does, else the reason.
 */
export async function probeNetns(cfg: ParleyConfig): Promise<string | undefined> {
  const wanted = envEnum<'auto' | 'netns' | 'loopback'>('PARLEY_CLUSTER_HOSTS');
  if (wanted === 'loopback') return 'PARLEY_CLUSTER_HOSTS=loopback';
  if (process.platform !== 'linux') return `not Linux (${process.platform})`;
  if (process.getuid?.() !== 0) return 'not root';
  const id = hostsId(cfg);
  const [ns, a, b, br] = [`parley-${id}-probe`, `pcq${id}a`, `pcq${id}b`, `pcq${id}br`];
  const steps = [
    ['netns', 'add', ns], ['link', 'add', a, 'type', 'veth', 'peer', 'name', b], ['link', 'set', b, 'netns', ns],
    ['link', 'add', br, 'type', 'bridge'], ['link', 'set', a, 'master', br], ['netns', 'exec', ns, 'ip', 'link', 'set', 'lo', 'up'],
  ];
  try {
    for (const s of steps) await ip(...s).catch((err: unknown) => { throw new Error(reasonOf(s, err)); });
    return undefined;
  } catch (err) {
    return (err as Error).message;
  } finally {
    await quietly('link', 'del', a);
    await quietly('link', 'del', br);
    await quietly('netns', 'del', ns);
  }
}

/** A free /24 of 10.214.0.0/16 (test/support/netns.ts uses 10.213.x): ours again if it still is. */
async function pickSubnet(cfg: ParleyConfig, previous: string | undefined): Promise<string> {
  const { stdout } = await ip('-4', '-o', 'addr', 'show');
  const used = new Map<string, string>();
  for (const m of stdout.matchAll(/^\d+:\s+(\S+)\s+inet\s+(10\.214\.\d+)\.\d+\//gm)) used.set(m[2] as string, m[1] as string);
  if (previous && (!used.has(previous) || used.get(previous) === bridgeName(cfg))) return previous;
  const start = parseInt(hostsId(cfg).slice(0, 2), 16);
  for (let k = 0; k < 256; k++) {
    const s = `10.214.${(start + k) % 256}`;
    if (!used.has(s)) return s;
  }
  throw new Error('no free /24 left in 10.214.0.0/16 for the cluster\'s namespaces');
}

/**
 * Decides the plan and makes the namespaces of the nodes that do not run. `running`: the nodes
 * that already run keep the plan they run under (its namespaces are left alone). Otherwise the
 * sandbox is probed: namespaces if it permits them (PARLEY_CLUSTER_HOSTS=netns: or fail), else
 * loopback addresses. Idempotent: a crashed run's namespaces are reused when intact, remade when not.
 */
export async function ensureHosts(cfg: ParleyConfig, nodes: number, running: number[]): Promise<ClusterHosts> {
  const raw = readState(cfg);
  let hosts: ClusterHosts;
  if (running.length > 0) {
    // Nodes that run were started under some plan: keep it. None recorded means an older Parley
    // started them on loopback addresses.
    hosts = raw ?? { mode: 'loopback', reason: 'nodes already running were started on loopback addresses' };
  } else {
    const reason = await probeNetns(cfg);
    if (reason && envEnum('PARLEY_CLUSTER_HOSTS') === 'netns') throw new Error(`PARLEY_CLUSTER_HOSTS=netns, but network namespaces are not possible here: ${reason}`);
    hosts = reason ? { mode: 'loopback', reason } : { mode: 'netns', subnet: await pickSubnet(cfg, raw?.subnet) };
    if (raw?.mode === 'netns' && (hosts.mode !== 'netns' || hosts.subnet !== raw.subnet)) await removeNetns(cfg);
  }
  if (hosts.mode === 'netns') await ensureNetns(cfg, hosts.subnet as string, nodes, running);
  fs.mkdirSync(paths(cfg).ejabberd, { recursive: true });
  fs.writeFileSync(stateFile(cfg), JSON.stringify(hosts) + '\n', { mode: 0o600 }); // like every file of the state dir
  return hosts;
}

async function ensureNetns(cfg: ParleyConfig, subnet: string, nodes: number, running: number[]): Promise<void> {
  const br = bridgeName(cfg);
  if (!exists(`/sys/class/net/${br}`)) await ip('link', 'add', br, 'type', 'bridge');
  await ip('addr', 'replace', `${subnet}.1/24`, 'dev', br);
  await ip('link', 'set', br, 'up');
  for (let i = 2; i <= nodes; i++) if (!running.includes(i)) await ensureNode(cfg, subnet, i);
}

async function ensureNode(cfg: ParleyConfig, subnet: string, i: number): Promise<void> {
  const [ns, v, p, br] = [netnsName(cfg, i), vethRoot(cfg, i), vethNs(cfg, i), bridgeName(cfg)];
  const intact = exists(`/run/netns/${ns}`) && exists(`/sys/class/net/${v}`)
    && (await ip('netns', 'exec', ns, 'ip', '-4', '-o', 'addr', 'show', 'dev', p).then((r) => r.stdout.includes(` ${subnet}.${i}/24 `), () => false));
  if (!intact) {
    await removeNode(cfg, i);
    await ip('netns', 'add', ns);
    await ip('link', 'add', v, 'type', 'veth', 'peer', 'name', p);
    await ip('link', 'set', p, 'netns', ns);
    await ip('netns', 'exec', ns, 'ip', 'addr', 'add', `${subnet}.${i}/24`, 'dev', p);
    await ip('netns', 'exec', ns, 'ip', 'link', 'set', p, 'up');
    await ip('netns', 'exec', ns, 'ip', 'link', 'set', 'lo', 'up');
  }
  await ip('link', 'set', v, 'master', br);
  await ip('link', 'set', v, 'up');
}

/**
 * Node i's namespace and veth pair, gone. A process still inside (a node that would not stop, or
 * a crashed run's) was started there by us: it is killed by its pid, else the namespace would
 * outlive `ip netns del` with that process.
 */
async function removeNode(cfg: ParleyConfig, i: number): Promise<void> {
  const ns = netnsName(cfg, i);
  if (exists(`/run/netns/${ns}`)) {
    const pids = await ip('netns', 'pids', ns).then((r) => r.stdout.split('\n').map(Number).filter((n) => n > 0), () => [] as number[]);
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch { /* already gone */ }
    }
  }
  if (exists(`/sys/class/net/${vethRoot(cfg, i)}`)) await quietly('link', 'del', vethRoot(cfg, i));
  if (exists(`/run/netns/${ns}`)) await quietly('netns', 'del', ns);
}

/** Every namespace, veth and the bridge of this installation (any node count a crashed run had). */
async function removeNetns(cfg: ParleyConfig): Promise<void> {
  const prefix = `parley-${hostsId(cfg)}-n`;
  let names: string[] = [];
  try {
    names = fs.readdirSync('/run/netns').filter((n) => n.startsWith(prefix));
  } catch { /* no namespace was ever made on this machine */ }
  for (const n of names) {
    const i = Number(n.slice(prefix.length));
    if (Number.isInteger(i) && i > 1) await removeNode(cfg, i);
  }
  if (exists(`/sys/class/net/${bridgeName(cfg)}`)) await quietly('link', 'del', bridgeName(cfg));
}

/** After `stop` (and by tests' teardown): the namespaces, veths and bridge removed, the plan forgotten. */
export async function removeHosts(cfg: ParleyConfig): Promise<void> {
  await removeNetns(cfg);
  fs.rmSync(stateFile(cfg), { force: true });
}
