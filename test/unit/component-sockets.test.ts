// Which node a component process is connected to, read from its own sockets
// (shared/ejabberd/component-sockets.ts, docs/cluster.md "npm run status"): this test process
// plays the component host. Two listeners stand for node 1's rooms port and node 2's agents port;
// a connection elsewhere, a listening socket and another process's sockets must not count.
import net from 'node:net';
import { expect } from 'chai';
import { loadConfig } from '../../shared/config/index.js';
import { componentConnections, nodeConfig, nodeName } from '../../shared/ejabberd/index.js';

const listen = async (port = 0): Promise<net.Server> => {
  const s = net.createServer((c) => c.on('error', () => undefined));
  await new Promise<void>((r, j) => s.once('error', j).listen(port, '127.0.0.1', () => r()));
  return s;
};
const portOf = (s: net.Server) => (s.address() as net.AddressInfo).port;
const connect = (port: number) => new Promise<net.Socket>((r) => {
  const c = net.connect(port, '127.0.0.1', () => r(c));
});

describe('Cluster [status] the node of a component connection, from the process\'s sockets', () => {
  it('finds each established connection to a node\'s component port, with its kind and node', async function () {
    if (process.platform !== 'linux') this.skip();
    // Node 2's ports are node 1's + step: pick the step so that node 2's agents port is a free one.
    const rooms1 = await listen();
    const agents2 = await listen();
    const other = await listen();
    const step = 100;
    const cfg = loadConfig({
      PARLEY_HOME: '/tmp/p', PARLEY_EJABBERD_NODES: '2', PARLEY_EJABBERD_PORT_STEP: String(step),
      PARLEY_COMPONENT_PORT: String(portOf(rooms1)), PARLEY_AGENTS_COMPONENT_PORT: String(portOf(agents2) - step),
    });
    const sockets = [await connect(portOf(rooms1)), await connect(portOf(agents2)), await connect(portOf(agents2)), await connect(portOf(other))];
    try {
      const found = componentConnections(cfg, process.pid);
      expect(found.map((c) => [c.which, c.node, c.nodeName])).to.deep.equal([
        ['rooms', 1, nodeName(cfg)], ['agents', 2, nodeName(nodeConfig(cfg, 2))], ['agents', 2, nodeName(nodeConfig(cfg, 2))],
      ]);
      expect(found.map((c) => c.localPort).sort()).to.deep.equal([sockets[0], sockets[1], sockets[2]].map((s) => s!.localPort).sort());
      expect(componentConnections(cfg, 1), 'another process (init) holds none of them').to.deep.equal([]);
      expect(componentConnections(cfg, 2 ** 22 + 1), 'no such process').to.deep.equal([]);
    } finally {
      for (const s of sockets) s.destroy();
      for (const s of [rooms1, agents2, other]) s.close();
    }
  });
});
