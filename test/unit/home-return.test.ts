// Back to the home node (shared/transport/home.ts, docs/cluster.md "Back home"): an agent moves
// back only when its home node accepts connections, it is online, nothing is queued or
// unacknowledged either way, and no stanza passed for the quiet period; then the next reconnect
// goes home. The real move (XEP-0198 resumption across nodes) runs in
// test/integration/cluster-rejoin.test.ts.
import net from 'node:net';
import { expect } from 'chai';
import { Endpoints, HomeReturn } from '../../shared/transport/index.js';

describe('Cluster [home] an agent moves back to its node at a quiet moment', () => {
  let server: net.Server;
  let open: number;
  let closed: number;

  before(async () => {
    server = net.createServer((s) => s.destroy());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    open = (server.address() as net.AddressInfo).port;
    const probe = net.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    closed = (probe.address() as net.AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  const setup = (homePort: number, state: { online: boolean; settled: boolean; lastTrafficAt: number }) => {
    const e = new Endpoints([`xmpp://127.0.0.1:${homePort}`, 'xmpp://127.0.0.1:1', 'xmpp://127.0.0.1:2']);
    e.next(); // failed over to node 2
    let moves = 0;
    const h = new HomeReturn({ endpoints: e, everyMs: 1000, quietMs: 200, state: () => state, move: () => { moves += 1; } });
    return { e, h, moves: () => moves };
  };
  const quiet = () => ({ online: true, settled: true, lastTrafficAt: Date.now() - 1000 });

  it('moves when home is back and all is quiet: the next reconnect goes home', async () => {
    const { e, h, moves } = setup(open, quiet());
    expect(await h.check(), 'first sighting: a node just started may not have joined yet').to.equal(false);
    expect(await h.check()).to.equal(true);
    expect(moves()).to.equal(1);
    expect(e.next()).to.equal(e.home);
    expect(e.atHome).to.equal(true);
    expect(await h.check(), 'at home: nothing to do').to.equal(false);
  });

  it('stays while the home node refuses connections, or was open on one check only', async () => {
    const { e, h, moves } = setup(closed, quiet());
    expect(await h.check()).to.equal(false);
    expect(await h.check()).to.equal(false);
    expect([moves(), e.atHome]).to.deep.equal([0, false]);
  });

  it('stays while stanzas are queued or unacknowledged, traffic is recent, or the stream is down', async () => {
    for (const bad of [{ settled: false }, { lastTrafficAt: Date.now() }, { online: false }]) {
      const { e, h, moves } = setup(open, { ...quiet(), ...bad });
      expect(await h.check(), JSON.stringify(bad)).to.equal(false);
      expect(await h.check(), JSON.stringify(bad)).to.equal(false);
      expect([moves(), e.atHome]).to.deep.equal([0, false]);
    }
  });

  it('stays if a stanza passed while it probed the home node', async () => {
    const st = quiet();
    const { h, moves } = setup(open, st);
    expect(await h.check()).to.equal(false); // first sighting
    const checking = h.check();
    st.lastTrafficAt = Date.now(); // the state object is read again after the probe
    expect(await checking).to.equal(false);
    expect(moves()).to.equal(0);
  });

  it('never runs with one endpoint or when turned off (0)', () => {
    const one = new HomeReturn({ endpoints: new Endpoints(['xmpp://127.0.0.1:1']), everyMs: 1000, quietMs: 0, state: quiet, move: () => { throw new Error('moved'); } });
    one.start();
    one.stop();
  });
});
