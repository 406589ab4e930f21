// Roles, automatic spawning and delegation end to end (issue "Skills, roles and spawning"):
// `node dist/scripts/supervisor.js` with an operator's role and skill in PARLEY_HOME. Two people
// asking a one-slot specialist at once make the Coordinator scale up (POST /scale) and the extra
// stops again once idle; a planner's delegation is a sub-request in the person's session and
// shows in its trace.
import { type ChildProcess, execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import type { ParleyConfig } from '../../shared/config/index.js';
import { repoRoot } from '../../shared/runtime/repo-root.js';
import type { ChildInfo } from '../../shared/supervisor/index.js';
import { controlRequest } from '../../shared/supervisor/ipc.js';
import { Person } from '../../shared/trace/index.js';
import { startSupervisor, stopWith } from '../support/supervised.js';
import { writeSkill } from '../support/skills.js';
import { until } from '../support/wait.js';

const run = promisify(execFile);
const root = repoRoot();
const IDLE_MS = 3000;
const SLOW = `export async function run(input) { await new Promise((r) => setTimeout(r, 2500)); return 'slow answer to ' + input.question; }\n`;

describe('Scaling [end to end] roles, automatic spawning, scale-down and delegation', function () {
  this.timeout(90000);
  let cfg: ParleyConfig;
  let env: NodeJS.ProcessEnv;
  let sup: ChildProcess;
  let out: string[] = [];
  let alice: Person;
  let bob: Person;
  const agents = async () => ((await controlRequest(cfg, 'GET', '/agents'))?.body.agents ?? []) as ChildInfo[];

  before(async function () {
    this.timeout(180000);
    // The operator's role and skill: one slow skill, at most two specialists of the role.
    const prepare = (home: string) => {
      fs.writeFileSync(path.join(home, 'roles.json'), JSON.stringify({ roles: { slowpoke: { skills: ['slow'], maxConcurrent: 2 } } }));
      writeSkill(path.join(home, 'skills'), 'slow', SLOW, { limits: { timeoutMs: 8000 } });
    };
    ({ sup, cfg, env, out } = await startSupervisor('parley-scale-', {
      PARLEY_SPECIALISTS: 'slowpoke:slow,math:arithmetic,time:time,planner:plan+delegate_task',
      PARLEY_SPECIALIST_CONCURRENCY: '1',
      // One slot and no waiting queue: the second question finds it busy (scale-up is tested here).
      PARLEY_SPECIALIST_QUEUE: '0',
      PARLEY_SPAWN_IDLE_MS: String(IDLE_MS),
    }, { prepare }));
    [alice, bob] = await Promise.all([Person.connect(cfg, 'alice'), Person.connect(cfg, 'bob')]);
  });

  after(async function () {
    this.timeout(60000);
    await stopWith([alice, bob], sup, cfg);
  });

  it('every specialist runs with its role and skills', async () => {
    const list = await agents();
    const roleOf = (n: string) => list.find((a) => a.name === n)?.role;
    expect([roleOf('specialist-slowpoke'), roleOf('specialist-math'), roleOf('specialist-planner')]).to.deep.equal(['slowpoke', 'math', 'planner']);
  });

  it('npm run status shows every agent with role, skills, presence, its ejabberd node and a XEP-0199 ping', async () => {
    const r = await run(process.execPath, [path.join(root, 'dist', 'scripts', 'status-cli.js')], { env, timeout: 60000 });
    const row = (name: string) => r.stdout.split('\n').find((l) => l.startsWith(`${name} `)) ?? '';
    expect(row('specialist-math')).to.match(/^specialist-math\s+math\s+arithmetic\s+ready pid \d+\s+yes \(heard [\d.]+ s ago\)\s+online \(1\)\s+parley\d+@\S+\s+ok [\d.]+ ms$/);
    expect(row('specialist-planner')).to.match(/planner\s+delegate_task,plan\s+ready/);
    // The sessions agent registers (its RFC 0001 sessions manifest, docs/sessions.md); the Coordinator does not.
    expect(row('Sessions'), r.stdout).to.match(/^Sessions\s+sessions\s+-\s+ready pid \d+\s+yes \(heard [\d.]+ s ago\)\s+online \(1\)\s+parley\d+@\S+\s+ok/);
    expect(row('Coordinator'), r.stdout).to.match(/^Coordinator\s+coordinator\s+-\s+ready pid \d+\s+-\s+online \(1\)\s+parley\d+@\S+\s+ok/);
    // Rooms have no c2s session: the Room component answers for them (presence "component").
    for (const room of r.stdout.split('\n').filter((l) => l.startsWith('room-'))) expect(room).to.match(/\s+room\s+.*component\)?\s+parley\d+@\S+\s+ok [\d.]+ ms/);
    expect(r.stdout, r.stdout).to.match(/\d+ agents, \d+ online and answering pings\n$/);
    console.log(r.stdout.trim().split('\n').map((l) => `      ${l}`).join('\n'));
  });

  it('under load: every candidate busy → the Coordinator gets one more specialist of the role, both people are answered', async () => {
    const t0 = Date.now();
    const [a, b] = await Promise.all([alice.ask('slow one', { timeoutMs: 60000 }), bob.ask('slow two', { timeoutMs: 60000 })]);
    expect(a.answer).to.contain('slow answer to slow one');
    expect(b.answer).to.contain('slow answer to slow two');
    const extra = (await agents()).find((x) => x.name === 'specialist-slowpoke-x1');
    expect(extra).to.include({ role: 'slowpoke', extra: true, status: 'ready' });
    console.log(`      (two slow questions on a one-slot specialist answered in ${Date.now() - t0} ms, the second by a scaled-up extra)`);
  });

  it('scale-down: the idle extra is stopped after PARLEY_SPAWN_IDLE_MS and leaves the list', async () => {
    await until(async () => !(await agents()).some((x) => x.name === 'specialist-slowpoke-x1'), 'specialist-slowpoke-x1 to leave the list', 30000, 250);
    expect(out.join('\n')).to.contain('specialist-slowpoke-x1 was idle: stopping it (scale-down)');
    expect((await agents()).find((x) => x.name === 'specialist-slowpoke')).to.include({ status: 'ready' });
  });

  it('delegation: a planner splits the request and delegates through the Coordinator, visible in the trace', async () => {
    const a = await alice.ask('answer both: what is 17 * 23; what time is it in Tokyo?', { timeoutMs: 60000 });
    expect(a.answer).to.match(/1\. what is 17 \* 23: 391 \[specialist-math\]/);
    expect(a.answer).to.match(/2\. what time is it in Tokyo: It is \d\d:\d\d in Tokyo/);
    const r = await run(process.execPath, [path.join(root, 'dist', 'scripts', 'trace-cli.js'), '--conversation', a.thread], { env, timeout: 60000 })
      .catch((e: { stdout: string }) => ({ stdout: e.stdout }));
    const rows = r.stdout.split('\n');
    expect(rows.filter((l) => l.includes('DELEGATE_TASK')).length, r.stdout).to.be.at.least(2);
    expect(rows.some((l) => l.includes('specialist-planner') && l.includes('Coordinator'))).to.equal(true);
    expect(r.stdout).to.contain('invariants: all hold');
  });
});
