// A component moves back to its home node make-before-break (shared/transport/component-move.ts,
// docs/cluster.md "Back home"): the new connection is online before outbound switches to it, the
// old one is closed only after a quiet spell on it, a stanza still arriving on it is handled, and
// a failed or refused new connection leaves the old one as it was. First the move on a fake
// connection pair, then the transport around it with fake xmpp.js entities. The real move on a
// two-node ejabberd cluster runs in test/integration/cluster-components.test.ts.
import { EventEmitter } from 'node:events';
import net from 'node:net';
import { expect } from 'chai';
import xml, { type Element } from '@xmpp/xml';
import { silentLogger } from '../../shared/log/index.js';
import { ComponentMove, type InboundMessage, type MovableConnection, XmppTransport, type XmppEntity } from '../../shared/transport/index.js';
import { until } from '../support/wait.js';

type Outcome = 'online' | 'error' | 'hang';

/** An xmpp.js component entity without a socket: start() goes online (or fails), stop() records when. */
class FakeEntity extends EventEmitter implements MovableConnection {
  status = 'offline';
  socket = null;
  reconnect = { stop: () => undefined };
  readonly sent: Element[] = [];
  startedAt = 0;
  stoppedAt = 0;
  /** Runs inside stop(), between our </stream:stream> and the server's. */
  onStop?: () => void;
  constructor(readonly options: { service: string; domain: string }, public outcome: Outcome = 'online', readonly log: string[] = []) {
    super();
  }
  async start(): Promise<void> {
    this.startedAt = Date.now();
    this.log.push(`start ${this.options.service}`);
    if (this.outcome === 'hang') return new Promise<void>(() => undefined);
    await Promise.resolve();
    if (this.outcome === 'error') {
      this.emit('error', new Error('not-authorized'));
      return new Promise<void>(() => undefined); // xmpp.js: the start never resolves after a failed handshake
    }
    this.status = 'online';
    this.emit('online');
  }
  async stop(): Promise<void> {
    this.stoppedAt = Date.now();
    this.log.push(`stop ${this.options.service}`);
    this.onStop?.();
    this.status = 'offline';
    this.emit('disconnect');
  }
  async connect(): Promise<void> {}
  async open(): Promise<void> {}
  async send(el: Element): Promise<void> {
    this.sent.push(el);
  }
  /** ejabberd routed a stanza through this connection. */
  deliver(text: string): void {
    this.emit('stanza', xml('message', { from: 'p@localhost/x', to: 'vs-01@agents.localhost', type: 'normal' }, xml('body', {}, text)));
  }
}

const QUIET = 80;

describe('Cluster [home] a component connection moves home make-before-break', () => {
  describe('the move (fake connection pair)', () => {
    const setup = (outcome: Outcome, accept = true) => {
      const log: string[] = [];
      const old = new FakeEntity({ service: 'xmpp://node2', domain: 'agents.localhost' }, 'online', log);
      old.status = 'online';
      const inbound = new Map<FakeEntity, number>();
      let current = old;
      let fresh: FakeEntity | undefined;
      const released: FakeEntity[] = [];
      const move = new ComponentMove<FakeEntity>({
        open: (service) => (fresh = new FakeEntity({ service, domain: 'agents.localhost' }, outcome, log)),
        current: () => current,
        adopt: (c) => {
          log.push(`adopt ${c.options.service} (online: ${c.status === 'online'})`);
          if (accept) current = c;
          return accept;
        },
        lastInbound: (c) => inbound.get(c) ?? 0,
        inboundCount: () => 0,
        release: (c) => void released.push(c),
      }, { deadlineMs: 300, quietMs: QUIET, logger: silentLogger() });
      return { move, old, log, released, inbound, fresh: () => fresh as FakeEntity, current: () => current };
    };

    it('opens the home connection, switches once it is online, closes the old one after a quiet spell', async () => {
      const { move, old, log, released, current, fresh } = setup('online');
      const r = await move.to('xmpp://node1');
      expect(r.moved).to.equal(true);
      expect(log).to.deep.equal(['start xmpp://node1', 'adopt xmpp://node1 (online: true)', 'stop xmpp://node2']);
      expect(current()).to.equal(fresh());
      expect(released).to.deep.equal([old]);
      expect(fresh().stoppedAt, 'the new connection stays').to.equal(0);
    });

    it('keeps the old connection open while stanzas still arrive on it', async () => {
      const { move, old, inbound } = setup('online');
      inbound.set(old, Date.now());
      const moving = move.to('xmpp://node1');
      // Traffic on the old connection every 20 ms for 200 ms: no quiet spell of 80 ms yet.
      const t0 = Date.now();
      while (Date.now() - t0 < 200) {
        expect(old.stoppedAt, 'closed while stanzas arrived on it').to.equal(0);
        inbound.set(old, Date.now());
        await new Promise((r) => setTimeout(r, 20));
      }
      const lastAt = Date.now();
      expect(move.moving).to.equal(true);
      const r = await moving;
      expect(r.moved).to.equal(true);
      expect(old.stoppedAt - lastAt, 'closed a quiet spell after the last stanza').to.be.at.least(QUIET - 25);
    });

    for (const outcome of ['error', 'hang'] as const) {
      it(`stays on the old connection when the new one ${outcome === 'error' ? 'is refused' : 'never comes online'}`, async () => {
        const { move, old, log, released, current, fresh } = setup(outcome);
        const r = await move.to('xmpp://node1');
        expect(r.moved).to.equal(false);
        expect(current()).to.equal(old);
        expect(old.stoppedAt, 'the old connection untouched').to.equal(0);
        expect(fresh().stoppedAt, 'the new one closed').to.be.greaterThan(0);
        expect(released).to.deep.equal([fresh()]);
        expect(log.some((l) => l.startsWith('adopt'))).to.equal(false);
        expect(move.moving).to.equal(false);
      });
    }

    it('closes the new connection if the transport refuses it (it went offline meanwhile)', async () => {
      const { move, old, fresh } = setup('online', false);
      const r = await move.to('xmpp://node1');
      expect(r).to.deep.include({ moved: false });
      expect(old.stoppedAt).to.equal(0);
      expect(fresh().stoppedAt).to.be.greaterThan(0);
    });

    it('one move at a time; stop() closes an old connection still draining', async () => {
      const { move, old, inbound } = setup('online');
      inbound.set(old, Date.now() + 60000); // never quiet
      const first = move.to('xmpp://node1');
      await until(() => move.moving && old.stoppedAt === 0, 'first move under way');
      expect(await move.to('xmpp://node1')).to.deep.include({ moved: false, reason: 'a move is under way' });
      await move.stop();
      expect(old.stoppedAt).to.be.greaterThan(0);
      expect((await first).moved).to.equal(true);
    });
  });

  describe('the transport (fake xmpp.js entities)', () => {
    let open: net.Server;
    let home: number;
    before(async () => {
      // The home node is down at the start: a port that refuses, opened later.
      const probe = net.createServer();
      await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
      home = (probe.address() as net.AddressInfo).port;
      await new Promise<void>((r) => probe.close(() => r()));
      open = net.createServer((s) => s.destroy());
      await new Promise<void>((r) => open.listen(0, '127.0.0.1', r));
    });
    after(() => new Promise<void>((r) => open.close(() => r())));

    it('both connections feed the same handlers; outbound moves to the home connection; the old one\'s end is no outage', async () => {
      const other = `xmpp://127.0.0.1:${(open.address() as net.AddressInfo).port}`;
      const homeService = `xmpp://127.0.0.1:${home}`;
      const entities: FakeEntity[] = [];
      const make = (service: string) => {
        const e = new FakeEntity({ service, domain: 'agents.localhost' });
        entities.push(e);
        return e as unknown as XmppEntity;
      };
      // returnHomeMs 400: checks 200–600 ms apart, the old connection closes after 100 ms without a stanza on it.
      const t = new XmppTransport({ address: 'agents.localhost', entity: make(homeService), logger: silentLogger(), endpoints: [homeService, other], returnHomeMs: 400, spare: make });
      const got: string[] = [];
      t.onMessage((m: InboundMessage) => got.push(m.body ?? ''));
      let offline = 0;
      t.on('offline', () => (offline += 1));
      await t.start();
      const [old] = entities as [FakeEntity];
      expect(t.service, 'started on node 2: node 1 refused connections').to.equal(other);
      t.send({ to: 'p@localhost', from: 'vs-01@agents.localhost', body: 'before' });
      // ejabberd on node 2 keeps routing stanzas through the old connection, every 10 ms.
      let ticks = 0;
      const ticker = setInterval(() => old.deliver(`tick ${ticks++}`), 10);
      // Node 1 is back: the home connection opens (two sightings), then outbound switches.
      const homeNode = net.createServer((s) => s.destroy());
      await new Promise<void>((r) => homeNode.listen(home, '127.0.0.1', r));
      try {
        await until(() => t.service === homeService, 'outbound on the home connection', 5000, 2);
        const fresh = entities[1] as FakeEntity;
        expect(old.status, 'the old connection still open while stanzas arrive on it').to.equal('online');
        old.deliver('on the old connection');
        fresh.deliver('on the new connection');
        // xmpp.js's iq-callee answers on the connection the IQ came in on: the old one hands it to the new.
        await old.send(xml('iq', { type: 'result', id: 'ping-1', to: 'p@localhost/x' }));
        t.send({ to: 'p@localhost', from: 'vs-01@agents.localhost', body: 'after' });
        clearInterval(ticker);
        const lastAt = Date.now();
        // xmpp.js still emits what arrives between our </stream:stream> and the server's.
        old.onStop = () => old.deliver('while the old one closes');
        await until(() => old.stoppedAt > 0, 'the old connection closed after its quiet spell', 5000, 5);
        expect(old.stoppedAt - lastAt, 'closed only after 100 ms without a stanza on it').to.be.at.least(75);
        await until(() => got.length === ticks + 3, 'every inbound stanza handled', 2000).catch((err: Error) => {
          throw new Error(`${err.message}: ${got.length} of ${ticks + 3}`);
        });
        expect(got.filter((b) => !b.startsWith('tick'))).to.deep.equal(['on the old connection', 'on the new connection', 'while the old one closes']);
        expect(old.sent.map((e) => e.getChildText('body'))).to.deep.equal(['before']);
        expect(fresh.sent.map((e) => e.getChildText('body') ?? e.attrs.id)).to.deep.equal(['ping-1', 'after']);
        expect([t.status, offline], 'no offline and no reconnect for the old connection\'s end').to.deep.equal(['online', 0]);
        expect(entities.length, 'no third connection').to.equal(2);
      } finally {
        clearInterval(ticker);
        await t.stop();
        await new Promise<void>((r) => homeNode.close(() => r()));
      }
    });
  });
});
