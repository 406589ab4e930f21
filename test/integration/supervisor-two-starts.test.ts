// Two `npm start`s for one PARLEY_HOME at the same instant (two terminals, a unit file and a
// person): exactly one goes on. Before the home lock (shared/supervisor/home-lock.ts) both passed
// the check for a running supervisor, both started and provisioned ejabberd, and only the control
// socket's bind, after all that, turned one away.
import { expect } from 'chai';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { ParleyConfig } from '../../shared/config/index.js';
import { ChatPerson } from '../support/chat-person.js';
import { spawnSupervisor, stopSupervisor, supervisorEnv } from '../support/supervised.js';
import { until } from '../support/wait.js';

describe('Supervisor [two starts at once] one PARLEY_HOME, one system', function () {
  this.timeout(240000);
  const procs: Array<{ proc: ChildProcess; out: string }> = [];
  let cfg: ParleyConfig | undefined;
  let gus: ChatPerson | undefined;

  after(async function () {
    this.timeout(90000);
    await gus?.close().catch(() => undefined);
    for (const p of procs) await stopSupervisor(p.proc, cfg);
  });

  it('exactly one goes on; the other changes nothing, says why and exits 1; the system answers', async () => {
    const prepared = await supervisorEnv('parley-twostarts-', { PARLEY_SPECIALISTS: 'math:arithmetic', PARLEY_CONSOLE: '0' });
    cfg = prepared.cfg;
    for (let i = 0; i < 2; i += 1) {
      const p = { proc: spawnSupervisor(prepared.env), out: '' };
      p.proc.stdout?.on('data', (b: Buffer) => (p.out += String(b)));
      p.proc.stderr?.on('data', (b: Buffer) => (p.out += String(b)));
      procs.push(p);
    }
    const exited = () => procs.filter((p) => p.proc.exitCode !== null);
    const ready = () => procs.filter((p) => p.out.includes('parley ready in'));
    await until(() => exited().length === 1 && ready().length === 1, 'one start to give way and the other to be ready', 200000, 100);
    const [loser] = exited();
    const [winner] = ready();
    expect(loser?.proc.exitCode, loser?.out).to.equal(1);
    expect(loser?.out).to.match(/cannot start: (Parley already runs for .* \(supervisor pid \d+\)|another npm start for .* is under way)/);
    // It touched nothing: no ejabberd started, no agent, no socket of its own.
    expect(loser?.out).to.not.match(/ejabberd up|starting \d+ agents/);
    expect(winner?.proc.exitCode).to.equal(null);
    gus = await ChatPerson.connect(cfg, 'gus');
    expect((await gus.ask('what is 7 * 8?')).answer).to.equal('56');
  });

  it('a supervisor that answers on the control socket but holds no lock of this build (an upgrade while it ran) also turns a start away, untouched', async () => {
    const prepared = await supervisorEnv('parley-oldlock-', { PARLEY_SPECIALISTS: 'math:arithmetic', PARLEY_CONSOLE: '0' });
    const run = path.join(prepared.cfg.home, 'run');
    fs.mkdirSync(run, { recursive: true, mode: 0o700 });
    // The running one, as an older build leaves it: its control socket and supervisor.json, no home.lock held.
    const socket = path.join(run, 'supervisor.sock');
    const server = http.createServer((_req, res) => res.end(JSON.stringify({ agents: [] })));
    await new Promise<void>((resolve) => server.listen(socket, resolve));
    fs.writeFileSync(path.join(run, 'supervisor.json'), JSON.stringify({ pid: 1, socket }));
    try {
      const p = { proc: spawnSupervisor(prepared.env), out: '' };
      p.proc.stdout?.on('data', (b: Buffer) => (p.out += String(b)));
      p.proc.stderr?.on('data', (b: Buffer) => (p.out += String(b)));
      await until(() => p.proc.exitCode !== null, 'the start to give way', 60000, 100);
      expect(p.proc.exitCode, p.out).to.equal(1);
      expect(p.out).to.match(/cannot start: Parley already runs for .* \(supervisor pid 1\)/);
      expect(p.out).to.not.match(/ejabberd up|starting \d+ agents/);
      expect(fs.existsSync(path.join(prepared.cfg.home, 'ejabberd')), 'no ejabberd state made').to.equal(false);
    } finally {
      server.close();
      fs.rmSync(prepared.cfg.home, { recursive: true, force: true });
    }
  });
});
