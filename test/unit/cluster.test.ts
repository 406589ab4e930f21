// The cluster's layout and the transport's endpoints (issue #14 §1, docs/cluster.md): node i's
// name, ports and simulated host, the single node unchanged, agents spread by name, and failover
// order. The real cluster runs in test/integration/cluster.test.ts.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { loadConfig, paths } from '../../shared/config/index.js';
import {
  c2sEndpoints, clusterNodes, componentEndpoints, inetrcHosts, nodeConfig, nodeHost, nodeName, startIndex,
} from '../../shared/ejabberd/index.js';
import { type ClusterHosts, describeHosts, netnsName, probeNetns, readHosts } from '../../shared/ejabberd/operator.js';
import { Endpoints } from '../../shared/transport/index.js';

describe('Cluster [layout] nodes, ports, names', () => {
  it('keeps the single node exactly as before', () => {
    const cfg = loadConfig({ PARLEY_HOME: '/tmp/p' });
    expect(cfg.ejabberdNodes).to.equal(1);
    expect(clusterNodes(cfg)).to.have.length(1);
    expect(nodeName(cfg)).to.equal('parley15222@localhost');
    expect(paths(cfg).etc).to.equal('/tmp/p/ejabberd/etc');
    expect(inetrcHosts(cfg)).to.equal('');
    expect(c2sEndpoints(cfg)).to.deep.equal([{ host: '127.0.0.1', port: 15222 }]);
  });

  it('gives node i its own name, host, folders and ports (+ (i − 1) × step), the same dist port', () => {
    const cfg = loadConfig({ PARLEY_HOME: '/tmp/p', PARLEY_EJABBERD_NODES: '3' });
    const n3 = nodeConfig(cfg, 3);
    expect(nodeName(n3)).to.equal('parley15222@parley-node3');
    expect([n3.c2sPort, n3.componentPort, n3.agentsComponentPort, n3.httpPort, n3.distPort]).to.deep.equal([15422, 15475, 15476, 15480, 15370]);
    expect(paths(n3).spool).to.equal('/tmp/p/ejabberd/node3/spool');
    expect(paths(n3).cookie).to.equal(paths(cfg).cookie);
    expect(inetrcHosts(cfg)).to.equal('{host,{127,0,0,12}, ["parley-node2"]}.\n{host,{127,0,0,13}, ["parley-node3"]}.\n');
    expect(clusterNodes(n3).map((n) => n.c2sPort)).to.deep.equal([15222, 15322, 15422]);
    expect(componentEndpoints(cfg).map((e) => e.port)).to.deep.equal([15275, 15375, 15475]);
    expect(componentEndpoints(cfg, 'agents').map((e) => e.port)).to.deep.equal([15276, 15376, 15476]);
    expect(componentEndpoints(cfg, 'calendars').map((e) => e.port)).to.deep.equal([15277, 15377, 15477]);
  });

  it('under the namespace plan: node 1 on 127.0.0.1 with its distribution on the bridge, node i on 10.214.X.i, the same names and ports', () => {
    const cfg = loadConfig({ PARLEY_HOME: '/tmp/p', PARLEY_EJABBERD_NODES: '3' });
    const hosts: ClusterHosts = { mode: 'netns', subnet: '10.214.7' };
    expect(nodeHost(1, hosts)).to.deep.equal({ name: 'localhost', ip: [10, 214, 7, 1], listen: '127.0.0.1' });
    expect(nodeHost(3, hosts)).to.deep.equal({ name: 'parley-node3', ip: [10, 214, 7, 3], listen: '10.214.7.3' });
    expect(nodeHost(3)).to.deep.equal({ name: 'parley-node3', ip: [127, 0, 0, 13], listen: '127.0.0.1' });
    const nodes = clusterNodes(cfg, hosts);
    expect(nodes.map((n) => [n.host, n.c2sPort])).to.deep.equal([['127.0.0.1', 15222], ['10.214.7.2', 15322], ['10.214.7.3', 15422]]);
    expect(nodes.map((n) => nodeName(n))).to.deep.equal(['parley15222@localhost', 'parley15222@parley-node2', 'parley15222@parley-node3']);
    // From node 3's own configuration, node 1 is back on loopback.
    expect(clusterNodes(nodes[2] as typeof cfg, hosts)[0]?.host).to.equal('127.0.0.1');
    // Inside a namespace 127.0.0.1 is the node itself: `localhost` (node 1) is the bridge's address.
    expect(inetrcHosts(cfg, hosts)).to.equal('{host,{10,214,7,1}, ["localhost"]}.\n{host,{10,214,7,2}, ["parley-node2"]}.\n{host,{10,214,7,3}, ["parley-node3"]}.\n');
    expect(netnsName(cfg, 2)).to.match(/^parley-[0-9a-f]{6}-n2$/);
    expect(netnsName(loadConfig({ PARLEY_HOME: '/tmp/q', PARLEY_EJABBERD_NODES: '3' }), 2)).to.not.equal(netnsName(cfg, 2));
    // Agents that joined from another machine (PARLEY_XMPP_HOST) keep their host.
    const remote = loadConfig({ PARLEY_HOME: '/tmp/p', PARLEY_EJABBERD_NODES: '2', PARLEY_XMPP_HOST: '192.0.2.7' });
    expect(nodeConfig(remote, 2, hosts).host).to.equal('192.0.2.7');
  });

  it('never trusts a namespace plan whose bridge is gone (its addresses would be routed off the machine)', () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-hosts-'));
    try {
      const cfg = loadConfig({ PARLEY_HOME: home, PARLEY_EJABBERD_NODES: '2' });
      expect(readHosts(cfg)).to.equal(undefined);
      fs.mkdirSync(paths(cfg).ejabberd, { recursive: true });
      fs.writeFileSync(path.join(paths(cfg).ejabberd, 'hosts.json'), JSON.stringify({ mode: 'netns', subnet: '10.214.9' }));
      expect(readHosts(cfg)).to.equal(undefined);
      expect(c2sEndpoints(cfg).map((e) => e.host)).to.deep.equal(['127.0.0.1', '127.0.0.1']);
      expect(describeHosts(cfg)).to.equal('not set up (no node started)');
      fs.writeFileSync(path.join(paths(cfg).ejabberd, 'hosts.json'), JSON.stringify({ mode: 'loopback', reason: 'not root' }));
      expect(describeHosts(cfg)).to.equal('loopback addresses 127.0.0.(10+i) (no netns: not root)');
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });

  it('PARLEY_CLUSTER_HOSTS=loopback: no probe, the reason says so', async () => {
    const before = process.env.PARLEY_CLUSTER_HOSTS;
    process.env.PARLEY_CLUSTER_HOSTS = 'loopback';
    try {
      expect(await probeNetns(loadConfig({ PARLEY_HOME: '/tmp/p', PARLEY_EJABBERD_NODES: '2' }))).to.equal('PARLEY_CLUSTER_HOSTS=loopback');
    } finally {
      if (before === undefined) delete process.env.PARLEY_CLUSTER_HOSTS;
      else process.env.PARLEY_CLUSTER_HOSTS = before;
    }
  });

  it('spreads accounts over the nodes, each always on the same one', () => {
    const names = ['presenter', 'coordinator', 'registry', 'kb', 'specialist-math', 'specialist-time'].map((n) => `${n}@localhost`);
    const at = names.map((n) => startIndex(n, 2));
    expect([...new Set(at)].sort()).to.deep.equal([0, 1]);
    expect(names.map((n) => startIndex(n, 2))).to.deep.equal(at);
    expect(startIndex('anyone@localhost', 1)).to.equal(0);
  });
});

describe('Transport [endpoints] failover order', () => {
  it('moves to the next node on every reconnect, round the list', () => {
    const e = new Endpoints(['xmpp://a:1', 'xmpp://b:2', 'xmpp://c:3']);
    expect([e.current, e.next(), e.next(), e.next()]).to.deep.equal(['xmpp://a:1', 'xmpp://b:2', 'xmpp://c:3', 'xmpp://a:1']);
  });

  it('starts on the first node that accepts a connection', async () => {
    const srv = net.createServer().listen(0, '127.0.0.1');
    await new Promise((r) => srv.once('listening', r));
    const live = (srv.address() as net.AddressInfo).port;
    const dead = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    try {
      const e = new Endpoints([`xmpp://127.0.0.1:${dead}`, `xmpp://127.0.0.1:${live}`]);
      expect(await e.firstReachable()).to.equal(`xmpp://127.0.0.1:${live}`);
      const none = new Endpoints([`xmpp://127.0.0.1:${dead}`]);
      expect(await none.firstReachable()).to.equal(`xmpp://127.0.0.1:${dead}`);
    } finally {
      srv.close();
    }
  });
});
