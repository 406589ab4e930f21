// Issue #14 §1, joins without node 1 (docs/cluster.md "Start, join, stop"): three nodes under the
// real supervisor, people on node 2. Node 1's beam is killed with SIGKILL; node 3, killed too and
// its spool wiped (a new host in its place), must join through node 2 while node 1 is down. Then
// node 1 comes back and rejoins the two survivors; then it dies again and comes back on an empty
// spool (a replaced host), and must join them rather than seed a cluster of its own. After each
// step the agents keep answering.
import fs from 'node:fs';
import { expect } from 'chai';
import { type ParleyConfig, paths } from '../../shared/config/index.js';
import { api, nodeConfig, nodeName, startIndex } from '../../shared/ejabberd/index.js';
import { connectedSessions, describeHosts, killNode, listCluster, startNode } from '../../shared/ejabberd/operator.js';
import { identify } from '../../shared/runtime/index.js';
import { ChatPerson } from '../support/chat-person.js';
import { CLUSTER_RESULT_TIMEOUT_MS as RESULT_TIMEOUT_MS, clusterEnv } from '../support/cluster.js';
import { askAll, expectAllAnswered, report, settle } from '../support/crash-matrix.js';
import { startSupervisor, stopSupervisor, type Supervised } from '../support/supervised.js';
import { until } from '../support/wait.js';

const PEOPLE = 3;

describe('ejabberd cluster [cluster]: nodes (re)join while node 1 is down', function () {
  this.timeout(300000);
  let s: Supervised | undefined;
  let cfg: ParleyConfig;
  let people: ChatPerson[] = [];
  const name = (i: number) => nodeName(nodeConfig(cfg, i));
  const sorted = (xs: string[]) => [...xs].sort();

  /** Every agent session (not people, not the admin), cluster-wide: bare JID and Erlang node. */
  const agentSessions = async (): Promise<Array<{ jid: string; node: string }>> => (await connectedSessions(cfg))
    .filter((x) => !['person', 'foreign', 'admin'].includes(identify(x.jid, cfg.domain).role))
    .map((x) => ({ jid: x.jid.split('/')[0] as string, node: x.node }));
  const agentNodes = async (): Promise<string[]> => (await agentSessions()).map((x) => x.node);

  /** SIGKILL of node i, then every agent off it (failover, docs/cluster.md "Agents on a cluster"). */
  const kill = async (i: number): Promise<void> => {
    expect(killNode(cfg, i), `node ${i} killed`).to.equal(true);
    await until(async () => {
      const where = await agentNodes();
      return where.length > 0 && !where.includes(name(i));
    }, `every agent off node ${i}`, 20000, 50);
  };

  /** A replacement host: the node's Mnesia spool is gone. */
  const wipe = (i: number) => fs.rmSync(paths(nodeConfig(cfg, i)).spool, { recursive: true, force: true });

  before(async function () {
    this.timeout(240000);
    s = await startSupervisor('parley-cluster-rejoin-', await clusterEnv(3, {
      PARLEY_SPECIALISTS: 'math:arithmetic,mathb@math:arithmetic',
      // Back home (shared/transport/home.ts) checked every 1–3 s after a 500 ms quiet.
      PARLEY_RETURN_HOME_MS: '2000',
    }), { timeoutMs: 200000 });
    cfg = s.cfg;
    console.log(`      (hosts: ${describeHosts(cfg)})`); // network namespaces or loopback addresses (docs/cluster.md)
    // People on node 2, which is never killed here: their client has one endpoint.
    people = await Promise.all(Array.from({ length: PEOPLE }, (_, i) => ChatPerson.connect(nodeConfig(cfg, 2), `rej-${i}`)));
    expect(sorted(await listCluster(nodeConfig(cfg, 2)))).to.deep.equal(sorted([name(1), name(2), name(3)]));
    await expectAllAnswered(people, 'warm-up');
  });

  after(async function () {
    this.timeout(60000);
    await Promise.all(people.map((p) => p.close().catch(() => undefined)));
    await stopSupervisor(s?.sup, cfg);
  });

  it('node 1 killed: a new node 3 (empty spool) joins through node 2; the agents keep answering', async () => {
    await kill(1);
    await kill(3);
    wipe(3);
    const t0 = Date.now();
    await startNode(cfg, 3);
    console.log(`      (new node 3 joined through node 2 in ${Date.now() - t0} ms, node 1 down)`);
    const two = sorted([name(2), name(3)]);
    expect(sorted(await listCluster(nodeConfig(cfg, 2))), 'node 2 sees').to.deep.equal(two);
    expect(sorted(await listCluster(nodeConfig(cfg, 3))), 'node 3 sees').to.deep.equal(two);
    await expectAllAnswered(people, 'after node 3 joined');
  });

  it('node 1 restarts while nodes 2 and 3 run: it rejoins them; its agents move back, no question lost', async () => {
    const t0 = Date.now();
    await startNode(cfg, 1);
    console.log(`      (node 1 rejoined in ${Date.now() - t0} ms)`);
    const all = sorted([name(1), name(2), name(3)]);
    for (const i of [1, 2, 3]) expect(sorted(await listCluster(nodeConfig(cfg, i))), `node ${i} sees`).to.deep.equal(all);
    // Node 1's own agents (their JID hashes to it, shared/ejabberd/cluster.ts startIndex) are
    // elsewhere now; they move back while 3 questions per person are in flight.
    const homeOnOne = (await agentSessions()).filter((x) => startIndex(x.jid, 3) === 0).map((x) => x.jid);
    expect(homeOnOne.length, 'agents whose home is node 1').to.be.greaterThan(0);
    const asked = askAll(people, 3);
    const t1 = Date.now();
    await until(async () => {
      const now = await agentSessions();
      return homeOnOne.every((jid) => now.some((x) => x.jid === jid && x.node === name(1)));
    }, 'node 1\'s agents back on node 1', 60000, 100);
    const backMs = Date.now() - t1;
    const v = await settle(asked, RESULT_TIMEOUT_MS * 3 + 10000, 1500);
    console.log(`      (${homeOnOne.length} agents back on node 1 in ${backMs} ms (${homeOnOne.join(', ')}); ${report('questions during the moves', v)})`);
    expect(v.lost, 'questions without a line').to.equal(0);
    expect(v.duplicated, 'questions answered twice').to.equal(0);
    expect(v.answered, 'answered').to.equal(PEOPLE * 3);
    await expectAllAnswered(people, 'after the moves');
  });

  it('node 1 back on an empty spool (a replaced host) joins the survivors, not a cluster of its own', async () => {
    await kill(1);
    wipe(1);
    const t0 = Date.now();
    await startNode(cfg, 1);
    console.log(`      (node 1, empty spool, joined in ${Date.now() - t0} ms)`);
    const all = sorted([name(1), name(2), name(3)]);
    for (const i of [1, 2, 3]) expect(sorted(await listCluster(nodeConfig(cfg, i))), `node ${i} sees`).to.deep.equal(all);
    // Node 1 serves the cluster's database: the admin authenticates there (no ejabberdctl register
    // ran), and it sees the agents' sessions held by the other nodes.
    await api.status(nodeConfig(cfg, 1));
    const seen = await api.connectedUsersInfo(nodeConfig(cfg, 1));
    expect(seen.some((x) => x.jid.startsWith(`coordinator@${cfg.domain}`)), 'the Coordinator seen from node 1').to.equal(true);
    // A person who logs in on node 1 reaches the agents on the others.
    const onOne = await ChatPerson.connect(nodeConfig(cfg, 1), 'rej-one');
    people.push(onOne);
    await expectAllAnswered([onOne, ...people.slice(0, PEOPLE)], 'after node 1 came back empty');
  });
});
