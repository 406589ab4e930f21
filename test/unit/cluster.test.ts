// The cluster's layout and the transport's endpoints (issue #14 §1, docs/cluster.md): node i's
// name, ports and simulated host, the single node unchanged, agents spread by name, and failover
// order. The real cluster runs in test/integration/cluster.test.ts.
import net from 'node:net';
import { expect } from 'chai';
import { loadConfig, paths } from '../../shared/config/index.js';
import {
  c2sEndpoints, clusterNodes, componentEndpoints, inetrcHosts, nodeConfig, nodeName, startIndex,
} from '../../shared/ejabberd/index.js';
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
