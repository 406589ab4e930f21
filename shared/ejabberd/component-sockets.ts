// Which node of the cluster a component process is connected to (issue #14 §1, docs/cluster.md
// "Back home"). ejabberd 23.01 has no command that lists external components or the route table
// (connected_users_info covers c2s sessions only), so this reads it from the process's own side:
// its sockets (/proc/<pid>/fd → socket:[inode]) and the kernel's TCP table (/proc/<pid>/net/tcp, the
// table of the process's network namespace), every established connection to a node's component
// listener (componentEndpoints: its address and port). Linux only, same user (the operator's
// host runs the supervisor and its children); elsewhere it finds nothing.
import fs from 'node:fs';
import type { ParleyConfig } from '../config/index.js';
import { clusterNodes, componentEndpoints, nodeName } from './cluster.js';

export type ComponentKind = 'rooms' | 'agents' | 'calendars';

export interface ComponentConnection {
  which: ComponentKind;
  /** 1-based node index and its Erlang node name. */
  node: number;
  nodeName: string;
  /** The process's local TCP port (tells two connections to the same node apart). */
  localPort: number;
}

/** The socket inodes `pid` holds open. */
function socketInodes(pid: number): Set<string> {
  const out = new Set<string>();
  let fds: string[];
  try {
    fds = fs.readdirSync(`/proc/${pid}/fd`);
  } catch {
    return out;
  }
  for (const fd of fds) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) out.add(m[1] as string);
    } catch {
      // closed meanwhile
    }
  }
  return out;
}

/** "0100007F:3BD4" (little-endian IPv4, hex port) → { ip: '127.0.0.1', port }. */
function hexAddress(s: string): { ip: string; port: number } {
  const [h, p] = s.split(':') as [string, string];
  const ip = h.length === 8 ? [3, 2, 1, 0].map((i) => parseInt(h.slice(i * 2, i * 2 + 2), 16)).join('.') : h;
  return { ip, port: parseInt(p, 16) };
}

/** Every established connection of process `pid` to a component listener of `cfg`'s cluster. */
export function componentConnections(cfg: ParleyConfig, pid: number): ComponentConnection[] {
  const inodes = socketInodes(pid);
  if (inodes.size === 0) return [];
  // Each node's listener address and port (127.0.0.1, or a node's namespace address: cluster.ts).
  const names = clusterNodes(cfg).map((n) => nodeName(n));
  const byAddress = new Map<string, { which: ComponentKind; node: number; nodeName: string }>();
  for (const which of ['rooms', 'agents', 'calendars'] as const) {
    componentEndpoints(cfg, which).forEach((e, k) => byAddress.set(`${e.host}:${e.port}`, { which, node: k + 1, nodeName: names[k] as string }));
  }
  let table: string;
  try {
    table = fs.readFileSync(`/proc/${pid}/net/tcp`, 'utf8');
  } catch {
    return [];
  }
  const out: ComponentConnection[] = [];
  for (const line of table.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    // sl local rem st … inode (field 9); st 01 = ESTABLISHED
    if (f.length < 10 || f[3] !== '01' || !inodes.has(f[9] as string)) continue;
    const rem = hexAddress(f[2] as string);
    const hit = byAddress.get(`${rem.ip}:${rem.port}`);
    if (hit) out.push({ ...hit, localPort: hexAddress(f[1] as string).port });
  }
  return out.sort((a, b) => a.node - b.node);
}
