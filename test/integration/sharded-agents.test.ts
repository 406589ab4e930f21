// Several host processes on one component domain (issue 14 §3): with PARLEY_AGENTS_SHARDS=2
// ejabberd balances agents.<domain> over two connections by bare destination (domain_balancing).
// Both processes run the same 40 virtual specialists vs-01 … vs-40; each registers and serves
// those ejabberd routes to it. People's questions are answered by agents of both; after a kill -9
// of one process the other keeps serving its own agents.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { paths, type ParleyConfig } from '../../shared/config/index.js';
import { repoRoot } from '../../shared/runtime/repo-root.js';
import { openDb } from '../../shared/store/index.js';
import { Person } from '../../shared/trace/index.js';
import { startSupervisor, stopSupervisor } from '../support/supervised.js';
import { until } from '../support/wait.js';

const run = promisify(execFile);
const COUNT = 40;
const LEASE_MS = 4000;

describe('Virtual agents [shards] two host processes share agents.<domain> through ejabberd domain_balancing', function () {
  this.timeout(180000);
  let cfg: ParleyConfig;
  let env: NodeJS.ProcessEnv;
  let sup: Awaited<ReturnType<typeof startSupervisor>>['sup'] | undefined;
  let alice: Person | undefined;
  let shardB: ChildProcess | undefined;
  const rows = (file: string, sql: string) => {
    const f = path.join(paths(cfg).telemetry, file);
    if (!fs.existsSync(f)) return [];
    const db = openDb(f, { readonly: true });
    try {
      return db.prepare(sql).all() as Array<Record<string, string>>;
    } finally {
      db.close();
    }
  };
  const registeredIn = (file: string) => rows(file, `SELECT DISTINCT agent FROM envelopes WHERE direction = 'in' AND content_type = 'REGISTERED'`).map((r) => String(r.agent));
  const ANSWERED = `SELECT DISTINCT agent FROM envelopes WHERE direction = 'out' AND performative = 'INFORM' AND content_type NOT IN ('HEARTBEAT', 'REGISTER', 'DEREGISTER')`;
  const answeredBy = (file: string) => rows(file, ANSWERED).map((r) => String(r.agent));
  /** The DF's live entries among `jids` (data/registry.sqlite, live while last_seen + lease > now). */
  const liveInDf = (jids: string[]) => {
    const db = openDb(path.join(paths(cfg).data, 'registry.sqlite'), { readonly: true });
    try {
      const now = Date.now();
      return jids.filter((j) => {
        const r = db.prepare('SELECT last_seen FROM registrations WHERE jid = ?').get(j) as { last_seen: number } | undefined;
        return r !== undefined && now - r.last_seen < LEASE_MS;
      });
    } finally {
      db.close();
    }
  };
  let mine: { a: string[]; b: string[] } = { a: [], b: [] };

  before(async function () {
    this.timeout(180000);
    // Up to 48 questions in quick rounds from one person: above the Presenter's chat rate (5/s
    // after a burst of 20), which would set some aside (chat-experience tests that limit).
    ({ sup, cfg, env } = await startSupervisor('parley-shards-', {
      PARLEY_SPECIALISTS: 'time:time', PARLEY_AGENTS_SHARDS: '2', PARLEY_LEASE_MS: String(LEASE_MS), PARLEY_CHAT_RATE_PER_S: '100', PARLEY_CHAT_BURST: '100',
    }));
    alice = await Person.connect(cfg, 'alice');
  });
  after(async function () {
    this.timeout(60000);
    shardB?.kill('SIGKILL');
    await alice?.close().catch(() => undefined);
    await stopSupervisor(sup, cfg);
  });

  it('ejabberd runs with domain_balancing for agents.<domain>; two shard processes split the 40 agents, each registering only its own', async () => {
    const yml = fs.readFileSync(path.join(paths(cfg).etc, 'ejabberd.yml'), 'utf8');
    expect(yml).to.contain(`domain_balancing:\n  "agents.${cfg.domain}":\n    type: bare_destination\n    component_number: 2`);
    // Shard a under the supervisor (spawn CLI); it creates and enrols the 40 agents' keys first.
    const t0 = Date.now();
    const r = await run(process.execPath, [path.join(repoRoot(), 'dist', 'scripts', 'spawn-cli.js'), 'specialist', '--count', String(COUNT), '--host', 'vs', '--role', 'math', '--shard', 'a'], { env, timeout: 90000 });
    console.log(`      ${r.stdout.trim()} (${Date.now() - t0} ms)`);
    expect(r.stdout).to.match(/agents-vs-a registered in \d+ ms/);
    // Shard b as a plain child of this test, so that the test can kill -9 it and nobody restarts it.
    const t1 = Date.now();
    shardB = spawn(process.execPath, [path.join(repoRoot(), 'dist', 'agents', 'specialist', 'host.js'), '--host', 'vs', '--count', String(COUNT), '--role', 'math', '--shard', 'b'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    const ready = await new Promise<Record<string, unknown>>((resolve, reject) => {
      readline.createInterface({ input: shardB!.stdout! }).on('line', (line) => {
        const rec = JSON.parse(line) as Record<string, unknown>;
        if (rec.msg === 'agents registered') resolve(rec);
      });
      shardB!.once('exit', (code) => reject(new Error(`shard b exited ${code}`)));
    });
    console.log(`      shard b: ${String(ready.agents)} of ${String(ready.of)} agents registered in ${Date.now() - t1} ms`);
    mine = { a: registeredIn('agents-vs-a.sqlite'), b: registeredIn('agents-vs-b.sqlite') };
    console.log(`      shard a serves ${mine.a.length}, shard b ${mine.b.length}`);
    expect(ready.agents).to.equal(mine.b.length);
    // Disjoint, and together every agent: each agent's stanzas reach exactly one process.
    expect(mine.a.filter((j) => mine.b.includes(j))).to.deep.equal([]);
    expect(new Set([...mine.a, ...mine.b]).size).to.equal(COUNT);
    expect(mine.a.length).to.be.greaterThan(0);
    expect(mine.b.length).to.be.greaterThan(0);
  });

  it('people\'s questions are answered by agents of both processes, each in the process ejabberd routes it to', async () => {
    // The DF offers the least recently used first: rounds of 8 questions until both shards answered
    // (shard a's agents registered first, so they come up first).
    let asked = 0;
    for (let round = 0; round < 6 && (answeredBy('agents-vs-a.sqlite').length === 0 || answeredBy('agents-vs-b.sqlite').length === 0); round++) {
      const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => alice!.ask(`what is ${17 + asked + i} * 23?`, { timeoutMs: 60000 })));
      answers.forEach((a, i) => expect(a.answer, a.answer).to.include(String((17 + asked + i) * 23)));
      asked += 8;
      await until(() => answeredBy('agents-vs-a.sqlite').length + answeredBy('agents-vs-b.sqlite').length > 0, 'answers recorded', 5000);
    }
    console.log(`      ${asked} questions asked`);
    const byA = answeredBy('agents-vs-a.sqlite');
    const byB = answeredBy('agents-vs-b.sqlite');
    console.log(`      answered by ${byA.length} agents of shard a, ${byB.length} of shard b`);
    expect(byA.every((j) => mine.a.includes(j)), `a answered as ${byA.join(', ')}`).to.equal(true);
    expect(byB.every((j) => mine.b.includes(j)), `b answered as ${byB.join(', ')}`).to.equal(true);
    expect(byA.length).to.be.greaterThan(0);
    expect(byB.length).to.be.greaterThan(0);
  });

  it('kill -9 of shard b: its agents leave the DF when their leases end; shard a keeps serving its own', async () => {
    shardB!.kill('SIGKILL');
    const killedAt = Date.now();
    await until(() => liveInDf(mine.b).length === 0, "shard b's agents out of the DF", LEASE_MS * 4);
    console.log(`      shard b's ${mine.b.length} agents out of the DF ${Date.now() - killedAt} ms after the kill`);
    expect(liveInDf(mine.a)).to.have.length(mine.a.length);
    const countAnswers = () => rows('agents-vs-a.sqlite', ANSWERED.replace('SELECT DISTINCT agent', 'SELECT agent')).length;
    const before = countAnswers();
    const t0 = Date.now();
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => alice!.ask(`what is ${41 + i} * 7?`, { timeoutMs: 60000 })));
    answers.forEach((a, i) => expect(a.answer, a.answer).to.include(String((41 + i) * 7)));
    console.log(`      8 questions answered by shard a alone in ${Date.now() - t0} ms`);
    const after = answeredBy('agents-vs-a.sqlite');
    expect(after.every((j) => mine.a.includes(j))).to.equal(true);
    await until(() => countAnswers() >= before + 8, 'eight more answers from shard a recorded', 5000);
  });
});
