// Issue #14 §1, "simulate separate hosts faithfully" (docs/cluster.md "One machine, separate
// hosts"): a two-node cluster started without the supervisor. Where the sandbox permits network
// namespaces (root and iproute2, as here and in CI) node 2's beam runs in a namespace of its own and
// its Erlang distribution cannot be reached on any loopback address of ours; a crashed run's
// namespaces are reused, and `stop` removes them. PARLEY_CLUSTER_HOSTS=loopback forces the old
// loopback addresses. Both say which was used.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { configEnv, loadConfig, type ParleyConfig, paths } from '../../shared/config/index.js';
import { api, c2sEndpoints, nodeConfig, nodeHost, nodeName, portOpen } from '../../shared/ejabberd/index.js';
import {
  bridgeName, describeHosts, killNode, listCluster, netnsName, probeNetns, readHosts, startCluster, stopCluster,
} from '../../shared/ejabberd/operator.js';
import { repoRoot } from '../../shared/runtime/repo-root.js';
import { clusterPorts } from '../support/cluster.js';
import { until } from '../support/wait.js';

const netInode = (pid: number | 'self') => fs.statSync(`/proc/${pid}/ns/net`).ino;
const beamPid = (cfg: ParleyConfig, i: number) => Number(fs.readFileSync(path.join(paths(nodeConfig(cfg, i)).run, 'ejabberd.pid'), 'utf8').trim());
const alive = (pid: number) => {
  try {
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

describe('ejabberd cluster [cluster]: separate hosts, network namespaces where permitted', function () {
  this.timeout(240000);
  let cfg: ParleyConfig | undefined;
  const forced = process.env.PARLEY_CLUSTER_HOSTS;

  async function newCluster(): Promise<ParleyConfig> {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-cluster-hosts-'));
    cfg = loadConfig({ PARLEY_HOME: home, ...(await clusterPorts(2)) });
    return cfg;
  }

  /** `npm run ejabberd -- status` for this cluster: its output and exit code. */
  async function statusCli(c: ParleyConfig): Promise<{ stdout: string; code: number }> {
    const env = { ...process.env, ...configEnv(c) };
    return promisify(execFile)(process.execPath, [path.join(repoRoot(), 'dist', 'scripts', 'ejabberd-cli.js'), 'status'], { env, timeout: 60000 })
      .then((r) => ({ stdout: r.stdout, code: 0 }), (err: { stdout: string; code: number }) => ({ stdout: err.stdout, code: err.code }));
  }

  afterEach(async function () {
    this.timeout(60000);
    if (forced === undefined) delete process.env.PARLEY_CLUSTER_HOSTS;
    else process.env.PARLEY_CLUSTER_HOSTS = forced;
    if (!cfg) return;
    await stopCluster(cfg).catch(() => undefined);
    if (!process.env.PARLEY_KEEP_TEST_HOME) fs.rmSync(cfg.home, { recursive: true, force: true });
    cfg = undefined;
  });

  it('by default: node 2 in a namespace of its own (or says why not); its distribution off our loopback; a crash\'s namespaces reused; stop removes them', async function () {
    const c = await newCluster();
    const reason = await probeNetns(c);
    const t0 = Date.now();
    await startCluster(c);
    const startMs = Date.now() - t0;
    const hosts = readHosts(c);
    const { stdout, code } = await statusCli(c);
    expect(code, stdout).to.equal(0);
    expect(stdout).to.include(`hosts     ${describeHosts(c, hosts)}`);
    console.log(`      (started in ${startMs} ms; hosts: ${describeHosts(c, hosts)})`);
    if (reason !== undefined) {
      // Not root, no iproute2, or a sandbox without namespaces: the loopback plan, with its reason.
      expect(hosts).to.deep.equal({ mode: 'loopback', reason });
      expect(stdout).to.include(`(no netns: ${reason})`);
      this.skip();
    }
    expect(hosts?.mode).to.equal('netns');
    expect(stdout).to.match(/hosts {5}network namespaces /);

    // Node 1 is the operator's host (our namespace); node 2's beam is in /run/netns/<its name>.
    const ns = `/run/netns/${netnsName(c, 2)}`;
    expect(netInode(beamPid(c, 1)), 'node 1 in our namespace').to.equal(netInode('self'));
    expect(netInode(beamPid(c, 2)), 'node 2 not in our namespace').to.not.equal(netInode('self'));
    expect(netInode(beamPid(c, 2)), 'node 2 in its own').to.equal(fs.statSync(ns).ino);

    // Node 2's distribution listens on its namespace's address only: from here it is reachable
    // through the bridge, never on a loopback address (its old one included).
    const two = nodeHost(2, hosts);
    expect(await portOpen(c.distPort, two.ip.join('.')), 'dist at node 2\'s address').to.equal(true);
    for (const a of ['127.0.0.1', nodeHost(2).ip.join('.')]) {
      expect(await portOpen(c.distPort, a), `dist on ${a}`).to.equal(false);
    }
    // Clients here reach every node's listeners; the nodes reach each other (one cluster), and
    // node 2 serves the cluster's accounts over its HTTP API.
    for (const e of c2sEndpoints(c)) expect(await portOpen(e.port, e.host), `c2s ${e.host}:${e.port}`).to.equal(true);
    expect(c2sEndpoints(c)[1]?.host).to.equal(two.listen);
    const names = [nodeName(nodeConfig(c, 1)), nodeName(nodeConfig(c, 2))].sort();
    expect((await listCluster(nodeConfig(c, 2))).sort()).to.deep.equal(names);
    await api.status(nodeConfig(c, 2));

    // A crashed run: both beams SIGKILLed, the namespace left behind. The next start reuses it.
    const [p1, p2] = [beamPid(c, 1), beamPid(c, 2)];
    const inode = fs.statSync(ns).ino;
    expect(killNode(c, 1) && killNode(c, 2)).to.equal(true);
    await until(() => !alive(p1) && !alive(p2), 'both beams dead', 15000, 50);
    const t1 = Date.now();
    await startCluster(c);
    console.log(`      (restart after kill -9 of both, namespace reused: ${Date.now() - t1} ms)`);
    expect(fs.statSync(ns).ino, 'the same namespace').to.equal(inode);
    expect(netInode(beamPid(c, 2))).to.equal(inode);
    expect((await listCluster(c)).sort()).to.deep.equal(names);

    // stop: no namespace, veth or bridge left, and no plan.
    await stopCluster(c);
    expect(fs.existsSync(ns), ns).to.equal(false);
    expect(fs.existsSync(`/sys/class/net/${bridgeName(c)}`), 'bridge').to.equal(false);
    expect(readHosts(c)).to.equal(undefined);
  });

  it('PARLEY_CLUSTER_HOSTS=loopback: node 2 on its loopback address in our namespace, and status says so', async () => {
    process.env.PARLEY_CLUSTER_HOSTS = 'loopback';
    const c = await newCluster();
    await startCluster(c);
    const hosts = readHosts(c);
    expect(hosts).to.deep.equal({ mode: 'loopback', reason: 'PARLEY_CLUSTER_HOSTS=loopback' });
    const { stdout } = await statusCli(c);
    expect(stdout).to.include('hosts     loopback addresses 127.0.0.(10+i) (no netns: PARLEY_CLUSTER_HOSTS=loopback)');
    expect(netInode(beamPid(c, 2)), 'node 2 in our namespace').to.equal(netInode('self'));
    expect(fs.existsSync(`/run/netns/${netnsName(c, 2)}`)).to.equal(false);
    expect(await portOpen(c.distPort, nodeHost(2).ip.join('.')), 'dist at 127.0.0.12').to.equal(true);
    expect(c2sEndpoints(c).map((e) => e.host)).to.deep.equal(['127.0.0.1', '127.0.0.1']);
    expect((await listCluster(nodeConfig(c, 2))).sort()).to.deep.equal([nodeName(nodeConfig(c, 1)), nodeName(nodeConfig(c, 2))].sort());
  });
});
