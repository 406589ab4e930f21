// Supervisor on a fake agent (test/fixtures/fake-agent.ts): readiness from pino lines, restart
// with back-off, SIGKILL after the grace period, and the control endpoint on its UNIX socket.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { loadConfig } from '../../shared/config/index.js';
import {
  Backoff, childEnv, planScale, coreSpec, parseSpecialists, type SpecContext, specialistSpec, Supervisor,
  startControl,
} from '../../shared/supervisor/index.js';
import type { Role } from '../../shared/skills/index.js';
import { repoRoot } from '../../shared/runtime/repo-root.js';
import { controlRequest } from '../../shared/supervisor/ipc.js';
import { until } from '../support/wait.js';

const FAKE = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'fake-agent.js');
const ctx: SpecContext = { agentsDir: '/nonexistent', agentScript: FAKE };
const fastBackoff = { minMs: 50, maxMs: 400, resetAfterMs: 60000 };

const made: Array<{ sup: Supervisor; home: string }> = [];
function harness(env: NodeJS.ProcessEnv = {}) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-sup-'));
  const lines: string[] = [];
  const sup = new Supervisor({ env: { ...process.env, ...env }, logsDir: path.join(home, 'logs'), say: (l) => lines.push(l), backoff: fastBackoff, graceMs: 300 });
  made.push({ sup, home });
  return { home, lines, sup, cfg: loadConfig({ PARLEY_HOME: home }) };
}

/** After each test: a failed assertion must not leave fake agents running. */
function cleanup(): void {
  for (const { sup, home } of made.splice(0)) {
    sup.killAll();
    fs.rmSync(home, { recursive: true, force: true });
  }
}

describe('Supervisor [backoff]', () => {
  it('doubles from 250 ms to a 10 s cap and starts over after 30 s of uptime', () => {
    const b = new Backoff();
    expect([0, 0, 0, 0, 0, 0, 0, 0].map(() => b.next(100))).to.deep.equal([250, 500, 1000, 2000, 4000, 8000, 10000, 10000]);
    expect(b.next(30000)).to.equal(250);
  });
});

describe('Supervisor [spec]', () => {
  it('parses --specialists name:expert+expert lists and refuses bad names and duplicates', () => {
    expect(parseSpecialists('math:arithmetic,time:time+date')).to.deep.equal([{ name: 'math', experts: ['arithmetic'] }, { name: 'time', experts: ['time', 'date'] }]);
    expect(() => parseSpecialists('Bad Name:x')).to.throw(/invalid account name/);
    expect(() => parseSpecialists('a:x,a:y')).to.throw(/twice/);
    expect(parseSpecialists('desk@researcher:define')).to.deep.equal([{ name: 'desk', experts: ['define'], role: 'researcher' }]);
  });

  it('runs dist/agents/<role>/main.js with --name/--role/--skills for specialists', () => {
    const s = specialistSpec({ agentsDir: '/r/dist/agents' }, { name: 'math', experts: ['arithmetic'], role: 'math' });
    expect(s.args).to.deep.equal(['/r/dist/agents/specialist/main.js', '--name', 'math', '--role', 'math', '--skills', 'arithmetic']);
    expect(s).to.include({ role: 'math' });
    expect([s.name, s.readyOn]).to.deep.equal(['specialist-math', 'registered']);
    expect(coreSpec({ agentsDir: '/r/dist/agents' }, 'kb').readyOn).to.equal('online');
  });
});

describe('Supervisor [children]', function () {
  this.timeout(10000);
  afterEach(cleanup);

  it('is ready when every agent logged online/registered, and logs each child to logs/<name>.log', async () => {
    const { sup, home } = harness();
    sup.add(coreSpec(ctx, 'registry'));
    sup.add(specialistSpec(ctx, { name: 'math', experts: ['arithmetic'] }));
    await sup.whenReady(['registry', 'specialist-math'], 5000);
    expect(sup.list().map((a) => a.status)).to.deep.equal(['ready', 'ready']);
    await sup.stopAll();
    // The child's last lines reach its log file through a write stream after the exit: wait for them.
    const log = () => fs.readFileSync(path.join(home, 'logs', 'specialist-math.log'), 'utf8');
    await until(() => log().includes('"msg":"stopping"'), 'the "stopping" line in logs/specialist-math.log', 5000);
    expect(log()).to.contain('"msg":"registered"').and.contain('"msg":"stopping"');
  });

  it('tells every child once the whole start is ready, and each child that is ready later (a restart)', async () => {
    const { sup, home } = harness();
    sup.add(coreSpec(ctx, 'registry'));
    const math = sup.add(specialistSpec(ctx, { name: 'math', experts: ['arithmetic'] }));
    await sup.whenReady(['registry', 'specialist-math'], 5000);
    const log = (name: string) => fs.readFileSync(path.join(home, 'logs', `${name}.log`), 'utf8');
    const told = (name: string) => (log(name).match(/"msg":"system ready"/g) ?? []).length;
    expect(told('registry') + told('specialist-math'), 'nobody is told before markSystemReady').to.equal(0);
    sup.markSystemReady();
    await until(() => told('registry') === 1 && told('specialist-math') === 1, 'both children told', 5000);
    process.kill(math.pid as number, 'SIGKILL');
    await until(() => math.restarts === 1 && math.status === 'ready', 'the specialist back', 5000);
    await until(() => told('specialist-math') === 2, 'the restarted specialist told too', 5000);
    expect(told('registry')).to.equal(1);
  });

  it('starts agents without NODE_EXTRA_CA_CERTS (≈ 65 ms of CPU each), but a specialist with a model keeps it', async () => {
    const { sup, home } = harness({ NODE_EXTRA_CA_CERTS: '/etc/ssl/certs/ca-certificates.crt', PARLEY_LLM_URL: undefined });
    sup.add(coreSpec(ctx, 'registry'));
    sup.add(specialistSpec(ctx, { name: 'math', experts: ['arithmetic'] }));
    await sup.whenReady(['registry', 'specialist-math'], 5000);
    const started = (name: string) => JSON.parse(fs.readFileSync(path.join(home, 'logs', `${name}.log`), 'utf8').split('\n')[0] as string) as { extra_ca: string | null };
    expect(started('registry').extra_ca, 'a core agent').to.equal(null);
    expect(started('specialist-math').extra_ca, 'a specialist without a model').to.equal(null);
    const env = { NODE_EXTRA_CA_CERTS: '/ca.pem', PARLEY_LLM_URL: 'https://models.example/v1', PARLEY_OTLP_URL: 'https://otel.example/v1/traces' };
    expect(childEnv({ kind: 'specialist' }, env).NODE_EXTRA_CA_CERTS, 'a specialist with a model').to.equal('/ca.pem');
    expect(childEnv({ kind: 'console' }, env).NODE_EXTRA_CA_CERTS, 'the console exporting traces').to.equal('/ca.pem');
    expect(childEnv({ kind: 'console' }, { NODE_EXTRA_CA_CERTS: '/ca.pem' })).to.not.have.property('NODE_EXTRA_CA_CERTS');
    for (const kind of ['core', 'calendar', 'rooms'] as const) expect(childEnv({ kind }, env), kind).to.deep.equal({ PARLEY_LLM_URL: env.PARLEY_LLM_URL, PARLEY_OTLP_URL: env.PARLEY_OTLP_URL });
    // Under `npm start` the supervisor itself runs without it (scripts/start.sh): the file comes from PARLEY_CHILD_CA_CERTS.
    const moved = { PARLEY_CHILD_CA_CERTS: '/ca.pem', PARLEY_LLM_URL: 'https://models.example/v1' };
    expect(childEnv({ kind: 'specialist' }, moved), 'a specialist with a model, under npm start').to.deep.equal({ NODE_EXTRA_CA_CERTS: '/ca.pem', PARLEY_LLM_URL: moved.PARLEY_LLM_URL });
    expect(childEnv({ kind: 'core' }, moved), 'a core agent, under npm start').to.deep.equal({ PARLEY_LLM_URL: moved.PARLEY_LLM_URL });
  });

  it('npm start runs the supervisor without NODE_EXTRA_CA_CERTS and keeps the file for its children (scripts/start.sh)', () => {
    // A stand-in `node` first on PATH prints what the script started it with.
    const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-start-'));
    fs.writeFileSync(path.join(bin, 'node'), '#!/bin/sh\necho "args=$*"\necho "extra=${NODE_EXTRA_CA_CERTS-unset}"\necho "child=${PARLEY_CHILD_CA_CERTS-unset}"\n', { mode: 0o755 });
    const run = (env: NodeJS.ProcessEnv) => execFileSync('sh', ['scripts/start.sh', '--specialists='], { cwd: repoRoot(), env: { ...env, PATH: `${bin}:${process.env.PATH}` }, encoding: 'utf8' });
    const base = { ...process.env };
    delete base.NODE_EXTRA_CA_CERTS;
    delete base.PARLEY_CHILD_CA_CERTS;
    expect(run({ ...base, NODE_EXTRA_CA_CERTS: '/etc/ssl/certs/ca-certificates.crt' })).to.equal(
      'args=dist/scripts/supervisor.js --specialists=\nextra=unset\nchild=/etc/ssl/certs/ca-certificates.crt\n');
    expect(run(base), 'nothing to move').to.equal('args=dist/scripts/supervisor.js --specialists=\nextra=unset\nchild=unset\n');
    fs.rmSync(bin, { recursive: true, force: true });
  });

  it('restarts a killed agent with growing back-off and says so in one line', async () => {
    const { sup, lines } = harness();
    const child = sup.add(coreSpec(ctx, 'kb'));
    await sup.whenReady(['kb'], 5000);
    const first = child.pid as number;
    // The status when the supervisor saw the exit (before that, whenReady would still see 'ready').
    const exited = () => new Promise<string>((r) => child.once('exit', () => r(child.status)));
    let exit = exited();
    process.kill(first, 'SIGKILL');
    expect(await exit).to.equal('backoff');
    await sup.whenReady(['kb'], 5000);
    exit = exited();
    process.kill(child.pid as number, 'SIGKILL');
    expect(await exit).to.equal('backoff');
    await sup.whenReady(['kb'], 5000);
    expect(child.pid).to.not.equal(first);
    expect(child.restarts).to.equal(2);
    expect(lines.filter((l) => l.includes('killed by'))).to.deep.equal([
      'kb killed by SIGKILL; restart #1 in 50 ms (log: logs/kb.log)',
      'kb killed by SIGKILL; restart #2 in 100 ms (log: logs/kb.log)',
    ]);
    await sup.stopAll();
  });

  it('SIGKILLs an agent that ignores SIGTERM after the grace period', async () => {
    const { sup } = harness({ FAKE_IGNORE_TERM: '1' });
    const child = sup.add(coreSpec(ctx, 'coordinator'));
    await sup.whenReady(['coordinator'], 5000);
    const pid = child.pid as number;
    const t0 = Date.now();
    await sup.stopAll();
    expect(Date.now() - t0).to.be.within(250, 2000);
    expect(() => process.kill(pid, 0)).to.throw();
    expect(child.info()).to.include({ status: 'stopped', pid: null, restarts: 0 });
  });
});

describe('Supervisor [control]', function () {
  this.timeout(10000);
  afterEach(cleanup);

  it('lists, spawns, stops (no restart) and starts agents over its UNIX socket', async () => {
    const { sup, cfg } = harness();
    sup.add(coreSpec(ctx, 'registry'));
    const control = await startControl(cfg, { supervisor: sup, specialistSpec: (d) => specialistSpec(ctx, d), readyTimeoutMs: 5000 });
    try {
      expect(control.info.socket).to.equal(path.join(cfg.home, 'run', 'supervisor.sock'));
      const spawned = await controlRequest(cfg, 'POST', '/spawn', { kind: 'specialist', name: 'extra', experts: ['trivia'] });
      expect(spawned?.status).to.equal(201);
      expect(spawned?.body.agent).to.include({ name: 'specialist-extra', status: 'ready', restarts: 0 });
      const again = await controlRequest(cfg, 'POST', '/spawn', { kind: 'specialist', name: 'extra' });
      expect(again?.body).to.include({ error: 'ALREADY_RUNNING' });
      const stopped = await controlRequest(cfg, 'POST', '/stop', { name: 'registry' });
      expect(stopped?.body.agent).to.include({ status: 'stopped', pid: null });
      const list = await controlRequest(cfg, 'GET', '/agents');
      const agents = list?.body.agents as Array<{ name: string; status: string; pid: number | null }>;
      expect(agents.map((a) => [a.name, a.status])).to.deep.equal([['registry', 'stopped'], ['specialist-extra', 'ready']]);
      const started = await controlRequest(cfg, 'POST', '/start', { name: 'registry' });
      expect(started?.body.agent).to.include({ status: 'ready' });
    } finally {
      await control.close();
      await sup.stopAll();
    }
    expect(await controlRequest(cfg, 'GET', '/agents')).to.equal(undefined);
  });

  it('answers bad requests with a JSON error code, never a dropped connection', async () => {
    const { sup, cfg } = harness();
    const control = await startControl(cfg, { supervisor: sup, specialistSpec: (d) => specialistSpec(ctx, d) });
    try {
      expect((await controlRequest(cfg, 'POST', '/spawn', { kind: 'room', name: 'x' }))?.body).to.include({ error: 'INVALID_ARGS' });
      expect((await controlRequest(cfg, 'POST', '/spawn', { kind: 'specialist', name: 'Bad Name' }))?.status).to.equal(400);
      expect((await controlRequest(cfg, 'POST', '/stop', { name: 'nobody' }))?.body).to.include({ error: 'NO_SUCH_AGENT' });
      expect((await controlRequest(cfg, 'GET', '/nope'))?.status).to.equal(404);
    } finally {
      await control.close();
    }
  });
});

const ROLES = new Map<string, Role>([
  ['math', { name: 'math', description: '', capabilities: ['ASK_EXPERT'], skills: ['arithmetic'], maxConcurrent: 2 }],
  ['time', { name: 'time', description: '', capabilities: ['ASK_EXPERT'], skills: ['time'], maxConcurrent: 1 }],
]);
const child = (name: string, role: string, extra = false, status: 'ready' | 'starting' = 'ready') =>
  ({ name, kind: 'specialist' as const, pid: 1, status, restarts: 0, uptime_s: 1, role, experts: [role === 'math' ? 'arithmetic' : 'time'], ...(extra ? { extra } : {}) });

describe('Supervisor [scale] planning one more specialist for busy ones', () => {
  it('spawns <role>-x<n> with the busy specialist\'s role and skills, up to maxConcurrent', () => {
    const plan = planScale([child('specialist-math', 'math')], ROLES, ['specialist-math'], 5000);
    expect(plan).to.deep.include({ action: 'spawn', def: { name: 'math-x1', experts: ['arithmetic'], role: 'math', idleAfterMs: 5000, extra: true } });
    const full = planScale([child('specialist-math', 'math'), child('specialist-math-x1', 'math', true)], ROLES, ['specialist-math'], 5000);
    expect(full).to.deep.include({ action: 'refuse', code: 'AT_LIMIT' });
  });

  it('waits for an extra of the role that is still starting, and refuses unknown specialists', () => {
    const kids = [child('specialist-math', 'math'), child('specialist-math-x1', 'math', true, 'starting')];
    expect(planScale(kids, ROLES, ['specialist-math'], 5000)).to.deep.equal({ action: 'wait', name: 'specialist-math-x1' });
    expect(planScale([], ROLES, ['specialist-foreign'], 5000)).to.deep.include({ action: 'refuse', code: 'NO_FITTING_ROLE' });
  });
});

describe('Supervisor [scale] POST /scale and scale-down of idle extras', function () {
  this.timeout(10000);
  afterEach(cleanup);

  it('starts an extra for a busy specialist, and stops and forgets it once it says idle', async () => {
    const { sup, cfg, lines } = harness();
    sup.add(specialistSpec(ctx, { name: 'math', experts: ['arithmetic'], role: 'math' }));
    await sup.whenReady(['specialist-math'], 5000);
    const control = await startControl(cfg, { supervisor: sup, specialistSpec: (d) => specialistSpec(ctx, d), roles: ROLES, idleAfterMs: 400, readyTimeoutMs: 5000 });
    try {
      const r = await controlRequest(cfg, 'POST', '/scale', { busy: ['specialist-math'] });
      expect(r?.status).to.equal(201);
      expect(r?.body.agent).to.include({ name: 'specialist-math-x1', role: 'math', extra: true, status: 'ready' });
      const limit = await controlRequest(cfg, 'POST', '/scale', { busy: ['specialist-math'] });
      expect(limit?.body).to.include({ error: 'AT_LIMIT' });
      await until(() => !sup.has('specialist-math-x1'), 'the idle extra to be gone', 5000);
      expect(lines).to.include('specialist-math-x1 was idle: stopping it (scale-down)');
      expect(sup.list().map((a) => [a.name, a.status])).to.deep.equal([['specialist-math', 'ready']]); // the original stays
    } finally {
      await control.close();
      await sup.stopAll();
    }
  });
});
