// Issue #14 §1/§3, component connections back home (docs/cluster.md "Back home"): two nodes under
// the real supervisor, a specialist host with four virtual math agents on agents.<domain> and the
// rooms component on rooms.<domain>, both at home on node 1 (the first of componentEndpoints).
// Node 1's beam is killed with SIGKILL: both components fail over to node 2. Node 1 restarts and
// rejoins: both move back to node 1 make-before-break (shared/transport/component-move.ts) while
// people on node 2 keep asking the virtual agents; every question is answered, none twice. Where
// a component is connected is read from its process's own sockets (componentConnections).
import fs from 'node:fs';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { type ParleyConfig, paths } from '../../shared/config/index.js';
import xml from '@xmpp/xml';
import { type ComponentKind, componentConnections, ensureAccount, nodeConfig, nodeName } from '../../shared/ejabberd/index.js';
import { silentLogger } from '../../shared/log/index.js';
import { agentsDomain, roomsDomain } from '../../shared/runtime/index.js';
import { type ClientTransport, clientTransport } from '../../shared/transport/index.js';
import { killNode, listCluster, startNode } from '../../shared/ejabberd/operator.js';
import { agentSnapshot } from '../../shared/ops/index.js';
import { repoRoot } from '../../shared/runtime/repo-root.js';
import type { ChildInfo } from '../../shared/supervisor/index.js';
import { controlRequest } from '../../shared/supervisor/ipc.js';
import { ChatPerson } from '../support/chat-person.js';
import { CLUSTER_RESULT_TIMEOUT_MS as RESULT_TIMEOUT_MS, clusterEnv } from '../support/cluster.js';
import { type Asked, askAll, expectAllAnswered, report, settle, timedOut } from '../support/crash-matrix.js';
import { startSupervisor, stopSupervisor, type Supervised } from '../support/supervised.js';
import { until } from '../support/wait.js';

const run = promisify(execFile);
const PEOPLE = 3;
const MOVED = 'component connection moved home (make-before-break)';

describe('ejabberd cluster [cluster]: component connections move back home after a failover', function () {
  this.timeout(300000);
  let s: Supervised | undefined;
  let cfg: ParleyConfig;
  let people: ChatPerson[] = [];
  let prober: ClientTransport | undefined;

  /** XEP-0199 pings from a client on node 2 to a virtual agent and to the rooms component: their outcome. */
  const pings = { sent: 0, ok: 0, failed: [] as string[], pending: [] as Array<Promise<void>> };
  const ping = (): void => {
    for (const to of [`vs-0001@${agentsDomain(cfg.domain)}`, roomsDomain(cfg.domain)]) {
      const id = `probe-${++pings.sent}`;
      pings.pending.push(prober!.iq(xml('iq', { type: 'get', to, id }, xml('ping', { xmlns: 'urn:xmpp:ping' })), 10000)
        .then(() => void (pings.ok += 1), (err: Error) => void pings.failed.push(`${id} to ${to}: ${err.message}`)));
    }
  };

  const child = async (name: string): Promise<ChildInfo> => {
    const all = ((await controlRequest(cfg, 'GET', '/agents'))?.body.agents ?? []) as ChildInfo[];
    const c = all.find((a) => a.name === name);
    if (!c?.pid) throw new Error(`${name} is not running (${all.map((a) => a.name).join(', ')})`);
    return c;
  };
  /** The nodes (1-based) process `name`'s `which` component connections go to, one entry per connection. */
  const nodesOf = async (name: string, which: ComponentKind): Promise<number[]> =>
    componentConnections(cfg, (await child(name)).pid as number).filter((c) => c.which === which).map((c) => c.node);
  const onlyOn = async (i: number): Promise<boolean> =>
    JSON.stringify(await nodesOf('agents-vs', 'agents')) === `[${i}]` && JSON.stringify(await nodesOf('rooms', 'rooms')) === `[${i}]`;
  /** The host's and the rooms process's log records of completed moves. */
  const moves = (): Array<Record<string, unknown>> => ['agents-vs', 'rooms'].flatMap((n) => {
    const f = path.join(paths(cfg).logsDir, `${n}.log`);
    if (!fs.existsSync(f)) return [];
    return fs.readFileSync(f, 'utf8').split('\n').filter((l) => l.includes(MOVED)).map((l) => ({ process: n, ...(JSON.parse(l) as Record<string, unknown>) }));
  });

  /** `npm run status` and the console (agentSnapshot) name node i for the rooms and a virtual agent. */
  const statusShows = async (i: number): Promise<void> => {
    const rows = (await agentSnapshot(cfg)).agents;
    expect(rows.find((a) => a.name === 'rooms')?.node, 'the rooms row').to.equal(nodeName(nodeConfig(cfg, i)));
    expect(rows.find((a) => a.jid === `vs-0001@${agentsDomain(cfg.domain)}`)?.node, 'the vs-0001 row').to.equal(nodeName(nodeConfig(cfg, i)));
  };

  before(async function () {
    this.timeout(240000);
    s = await startSupervisor('parley-cluster-comp-', await clusterEnv(2, {
      // Arithmetic only from the virtual agents of the host below.
      PARLEY_SPECIALISTS: 'time:time',
      // Back home checked every 1–3 s; the old component connection closes after 500 ms without a stanza on it.
      PARLEY_RETURN_HOME_MS: '2000',
    }), { timeoutMs: 200000 });
    cfg = s.cfg;
    const r = await run(process.execPath, [path.join(repoRoot(), 'dist', 'scripts', 'spawn-cli.js'), 'specialist', '--count', '4', '--host', 'vs', '--role', 'math'], { env: s.env, timeout: 90000 });
    console.log(`      ${r.stdout.trim()}`);
    // People on node 2, which is never killed here: their client has one endpoint.
    people = await Promise.all(Array.from({ length: PEOPLE }, (_, i) => ChatPerson.connect(nodeConfig(cfg, 2), `comp-${i}`)));
    const { jid, password } = await ensureAccount(cfg, 'comp-prober');
    const n2 = nodeConfig(cfg, 2);
    prober = clientTransport({ jid, password, host: n2.host, port: n2.c2sPort, logger: silentLogger(), resource: 'probe' });
    await prober.start();
    await expectAllAnswered(people, 'warm-up');
  });

  after(async function () {
    this.timeout(60000);
    await Promise.all(people.map((p) => p.close().catch(() => undefined)));
    await prober?.stop().catch(() => undefined);
    await stopSupervisor(s?.sup, cfg);
  });

  it('the components start on node 1, their home (one connection each, seen from their own sockets and in npm run status)', async () => {
    await until(() => onlyOn(1), 'agents-vs and rooms connected to node 1 only', 10000, 100);
    await statusShows(1);
  });

  it('node 1 killed: the components fail over to node 2, and the virtual agents keep answering', async () => {
    expect(killNode(cfg, 1), 'node 1 killed').to.equal(true);
    const t0 = Date.now();
    await until(() => onlyOn(2), 'agents-vs and rooms on node 2', 20000, 50);
    console.log(`      (components on node 2 ${Date.now() - t0} ms after the kill)`);
    await statusShows(2);
    // What was in flight on the dead node may end in a clear failure (docs/cluster.md "Measured");
    // the virtual agents keep answering: a round in which every question is answered, within 3.
    let ok = false;
    for (let round = 1; round <= 3 && !ok; round++) {
      const v = await settle(askAll(people, 1), 30000, 500);
      console.log(`      (${report(`after the failover, round ${round}`, v)})`);
      expect(v.lost, 'questions without a line').to.equal(0);
      ok = v.answered === people.length;
    }
    expect(ok, 'a round fully answered on node 2').to.equal(true);
  });

  it('node 1 restarts: both move back make-before-break while questions run; none lost, none twice', async () => {
    const before = moves().length;
    // The rounds below start with the restart: a component may move before startNode returns
    // (node 1 accepts connections once it has loaded its tables; the join check comes after).
    const t0 = Date.now();
    let rejoinMs = 0;
    const rejoined = startNode(cfg, 1).then(() => void (rejoinMs = Date.now() - t0));
    // Rounds until both moves are done, and one more: every person asks a question, and pings go
    // out every 100 ms until the round is answered; then 700 ms of silence, in which an old
    // connection that waits for 500 ms without a stanza can close. Node 2 routes the pings, and
    // the Coordinator's stanzas while it is on node 2, through the connection on node 2 while it
    // exists (ejabberd_router:balancing_route prefers a route on the routing node).
    const asked: Asked[] = [];
    let doneAt = 0;
    let rounds = 0;
    const twoSeen = new Set<string>(); // processes seen holding two connections at once (make-before-break observed)
    const t1 = Date.now();
    const answeredRound = (round: Asked[]) => round.every((q) => q.person.lines.some((l) => l.thread === q.thread && !l.progress));
    // Pings every 100 ms on their own timer (the polling below may be slow on a busy machine), paused in the silences.
    let silent = false;
    const pinger = setInterval(() => silent || ping(), 100);
    try {
      for (let extra = 0; extra < 2; rounds++) {
        const round = askAll(people, 1);
        asked.push(...round);
        const roundEnds = Date.now() + 20000;
        while (!answeredRound(round) && Date.now() < roundEnds) {
          if ((await nodesOf('agents-vs', 'agents')).length > 1) twoSeen.add('agents-vs');
          if ((await nodesOf('rooms', 'rooms')).length > 1) twoSeen.add('rooms');
          await new Promise((r) => setTimeout(r, 100)); // pacing of the polling
        }
        // No silence until each process has been seen with two connections (or has moved): the old
        // connection cannot close, so the pings and questions of the next rounds overlap the two.
        const moved = new Set(moves().slice(before).map((m) => String(m.process)));
        if (['agents-vs', 'rooms'].every((n) => twoSeen.has(n) || moved.has(n))) {
          silent = true;
          await new Promise((r) => setTimeout(r, 700)); // the silence between rounds (pacing)
          silent = false;
        }
        if (doneAt === 0 && rejoinMs > 0 && moves().length >= before + 2 && (await onlyOn(1))) doneAt = Date.now();
        if (doneAt > 0) extra += 1;
        if (Date.now() - t1 > 90000) throw new Error(`not back on node 1 within 90 s: agents-vs ${JSON.stringify(await nodesOf('agents-vs', 'agents'))}, rooms ${JSON.stringify(await nodesOf('rooms', 'rooms'))}`);
      }
    } finally {
      clearInterval(pinger);
    }
    await Promise.all(pings.pending);
    await rejoined;
    const all = [nodeName(nodeConfig(cfg, 1)), nodeName(nodeConfig(cfg, 2))].sort();
    expect((await listCluster(nodeConfig(cfg, 2))).sort(), 'node 2 sees').to.deep.equal(all);
    const v = await settle(asked, RESULT_TIMEOUT_MS * 3 + 10000, 1500);
    const done = moves().slice(before).map((m) => `${String(m.process)}: drain ${String(m.drain_ms)} ms, ${String(m.old_inbound)} stanzas on the old connection after the switch, route gap ${String(m.route_gap_ms)} ms`);
    // A stanza lost at the XMPP level shows as a Coordinator timeout (the question then goes to the next offer).
    const waited = timedOut(cfg, t1);
    // When the slow answers were asked (from the restart on), against when node 1 rejoined and the moves ended.
    const waits = asked.map((q) => ({ at: q.at - t0, ms: (q.person.lines.find((l) => l.thread === q.thread && !l.progress)?.at ?? Date.now()) - q.at }))
      .sort((a, b) => b.ms - a.ms);
    // settle's slowest counts from its own start for lines that came before it; these are from each question.
    const slowest = waits.slice(0, 3).map((w) => `${w.ms} ms asked at +${w.at} ms`);
    console.log(`      (node 1 rejoined in ${rejoinMs} ms; both back on node 1 ${doneAt - t0} ms after the restart began (${done.join('; ')}); seen with two connections at once: ${[...twoSeen].join(', ') || 'none'}; ${report(`${asked.length} questions during the moves`, { ...v, slowestMs: waits[0]?.ms ?? 0 })}; ${waited.size} waited for a Coordinator timeout${waited.size ? `: ${[...waited].slice(0, 5).join(' ')}` : ''}; ${rounds} rounds, slowest: ${slowest.join(', ')}; pings from node 2: ${pings.ok} of ${pings.sent} answered)`);
    expect(pings.failed, 'pings to the components lost').to.deep.equal([]);
    expect(twoSeen.size, 'processes seen with two component connections at once').to.be.greaterThan(0);
    expect(v.lost, 'questions without a line').to.equal(0);
    expect(v.duplicated, 'questions answered twice').to.equal(0);
    expect(v.answered, 'answered').to.equal(asked.length);
    await statusShows(1);
    await expectAllAnswered(people, 'after the moves');
  });
});
