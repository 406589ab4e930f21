// Several specialist hosts on one component domain (PARLEY_AGENTS_SHARDS): the ejabberd config
// they need, and how a process learns which agents ejabberd routes to it (shard-claims.ts).
import { expect } from 'chai';
import { loadConfig } from '../../shared/config/index.js';
import { domainBalancingYaml } from '../../shared/ejabberd/operator.js';
import { silentLogger } from '../../shared/log/index.js';
import { ComponentHost, ShardClaims } from '../../shared/runtime/component-host.js';
import { MemoryTelemetry } from '../../shared/runtime/index.js';
import { readMessage, messageStanza, type OutboundMessage } from '../../shared/transport/index.js';
import { FakeTransport } from '../support/fake-transport.js';

const JIDS = ['a-0001@agents.localhost', 'a-0002@agents.localhost', 'a-0003@agents.localhost', 'a-0004@agents.localhost'];

/** What ejabberd delivers for `msg` sent by a component: the same stanza, `from` as sent. */
const asDelivered = (msg: OutboundMessage, from = msg.from ?? '') => readMessage(messageStanza({ ...msg, from }));

describe('Runtime [shards] several host processes on agents.<domain> (ejabberd domain_balancing)', () => {
  it('renders domain_balancing (bare_destination, component_number) only with PARLEY_AGENTS_SHARDS > 1', () => {
    expect(domainBalancingYaml(loadConfig({}))).to.equal('');
    const cfg = loadConfig({ PARLEY_AGENTS_SHARDS: '3', PARLEY_DOMAIN: 'example.test' });
    expect(cfg.agentsShards).to.equal(3);
    expect(domainBalancingYaml(cfg)).to.contain('domain_balancing:\n  "agents.example.test":\n    type: bare_destination\n    component_number: 3\n');
    // ejabberd 23.01 accepts component_number 2..1000 only.
    expect(() => domainBalancingYaml({ domain: 'x', agentsShards: 1001 })).to.throw(/at most 1000/);
  });

  it('claims exactly the agents whose probes come back; waits no longer than the quiet time for the rest', async () => {
    const t = new FakeTransport('agents.localhost');
    const claimed: string[] = [];
    const claims = new ShardClaims({ transport: t, logger: silentLogger(), onClaim: (j) => claimed.push(j) });
    expect(claims.probe(JIDS)).to.equal(4);
    // Each probe goes from the agent's own JID to itself, as a headline (never stored offline).
    expect(t.sent.map((m) => [m.from, m.to, m.type])).to.deep.equal(JIDS.map((j) => [j, j, 'headline']));
    // ejabberd routes a-0001 and a-0003 here, the others to another process.
    for (const i of [0, 2]) expect(claims.handle(asDelivered(t.sent[i]!))).to.equal(true);
    expect(claimed).to.deep.equal([JIDS[0], JIDS[2]]);
    const t0 = Date.now();
    await claims.settled(150);
    expect(Date.now() - t0).to.be.lessThan(1000);
    expect(claims.size).to.equal(2);
    // A probe that comes back twice (a second round after a reconnect) claims once; a late one still claims.
    claims.handle(asDelivered(t.sent[0]!));
    claims.handle(asDelivered(t.sent[1]!));
    expect(claimed).to.deep.equal([JIDS[0], JIDS[2], JIDS[1]]);
    // A new round probes only the unclaimed.
    expect(claims.probe(JIDS)).to.equal(1);
  });

  it('a forged probe claims nothing: another process\'s nonce, or a sender other than the agent itself', () => {
    const t = new FakeTransport('agents.localhost');
    const mine = new ShardClaims({ transport: t, logger: silentLogger(), onClaim: () => expect.fail('claimed') });
    const other = new FakeTransport('agents.localhost');
    const theirs = new ShardClaims({ transport: other, logger: silentLogger(), onClaim: () => undefined });
    mine.probe([JIDS[0]!]);
    theirs.probe([JIDS[0]!]);
    // The other shard's probe routed here: consumed, not claimed.
    expect(mine.handle(asDelivered(other.sent[0]!))).to.equal(true);
    // Our own probe's payload, replayed by someone else (a person's account, another agent).
    expect(mine.handle(asDelivered(t.sent[0]!, 'mallory@localhost/x'))).to.equal(true);
    expect(mine.handle(asDelivered(t.sent[0]!, `${JIDS[1]!}/x`))).to.equal(true);
    expect(mine.size).to.equal(0);
    // An ordinary message is not a probe.
    expect(mine.handle(asDelivered({ from: 'coordinator@localhost/a', to: JIDS[0]!, body: '{}' }))).to.equal(false);
  });

  it('the component host lets the claims see probes before any agent does', async () => {
    const t = new FakeTransport('agents.localhost');
    const host = new ComponentHost({ transport: t, domain: 'localhost', logger: silentLogger() });
    host.host(JIDS[0]!, { telemetry: new MemoryTelemetry() });
    await host.start();
    const claims = new ShardClaims({ transport: t, logger: silentLogger(), onClaim: () => undefined });
    host.intercept((m) => claims.handle(m));
    claims.probe([JIDS[0]!, JIDS[1]!]);
    t.deliver(asDelivered(t.sent[0]!));
    // A probe for a JID this process does not host is consumed too: no FIPA error goes back.
    t.deliver(asDelivered({ ...t.sent[1]!, from: `${JIDS[1]!}` }));
    expect(claims.size).to.equal(2);
    expect(t.sent).to.have.length(2);
  });
});
