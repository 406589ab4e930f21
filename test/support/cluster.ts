// Ports for a test cluster (shared/ejabberd/cluster.ts): one block of consecutive free ports, so
// node i's listeners (every port + (i − 1) × step) never land on another test's random port.
import net from 'node:net';
import { freePort, nodeHost } from '../../shared/ejabberd/index.js';
import { flowTimeouts } from './crash-matrix.js';

function bindable(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', () => resolve(false));
    srv.listen(port, host, () => srv.close(() => resolve(true)));
  });
}

/**
 * Settings for `nodes` nodes: c2s, component, HTTP, dist, console, agents and calendars component ports at base … base + 6,
 * node i's listeners at base + 7(i − 1) …; the dist port is also free on every node's loopback address
 * (its own under the loopback plan; under network namespaces the nodes' addresses are a private /24
 * of their own, shared/ejabberd/hosts.ts).
 */
export async function clusterPorts(nodes: number): Promise<Record<string, string>> {
  const step = 7;
  for (let tries = 0; tries < 50; tries++) {
    const base = await freePort();
    const ports = Array.from({ length: step * nodes }, (_, k) => base + k);
    const hosts = Array.from({ length: nodes }, (_, k) => nodeHost(k + 1).ip.join('.'));
    const free = (await Promise.all(ports.map((p) => bindable(p, '127.0.0.1')))).every(Boolean)
      && (await Promise.all(hosts.map((h) => bindable(base + 3, h)))).every(Boolean);
    if (!free) continue;
    return {
      PARLEY_EJABBERD_NODES: String(nodes),
      PARLEY_EJABBERD_PORT_STEP: String(step),
      PARLEY_C2S_PORT: String(base),
      PARLEY_COMPONENT_PORT: String(base + 1),
      PARLEY_HTTP_PORT: String(base + 2),
      PARLEY_DIST_PORT: String(base + 3),
      PARLEY_CONSOLE_PORT: String(base + 4),
      PARLEY_AGENTS_COMPONENT_PORT: String(base + 5),
      PARLEY_CALENDARS_COMPONENT_PORT: String(base + 6),
    };
  }
  throw new Error(`no block of ${step * nodes} free ports`);
}

/** The RESULT timeout of the cluster tests' flow (the Presenter waits twice as long). */
export const CLUSTER_RESULT_TIMEOUT_MS = 6000;

/**
 * The supervisor's settings for a cluster test of `nodes` nodes: free ports, no autoscaling, the
 * flow's timeouts, and `extra` (the specialists, back-home period…) on top.
 */
export async function clusterEnv(nodes: number, extra: Record<string, string>): Promise<Record<string, string>> {
  return {
    ...(await clusterPorts(nodes)),
    PARLEY_AUTOSCALE: '0',
    ...flowTimeouts(CLUSTER_RESULT_TIMEOUT_MS, CLUSTER_RESULT_TIMEOUT_MS * 2),
    ...extra,
  };
}
