// An agent ends with its supervisor (shared/runtime/process-end.ts): when the supervisor is killed
// with SIGKILL (no chance to stop its children), the IPC channel closes and the agent shuts down
// as on SIGTERM, instead of living on as an orphan beside the next supervisor's copy.
import { type ChildProcess, fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect } from 'chai';
import { until } from '../support/wait.js';

const processEnd = pathToFileURL(path.resolve('dist/shared/runtime/process-end.js')).href;
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('Process end [orphans] an agent ends with its supervisor', function () {
  this.timeout(20000);
  let dir: string;
  const started: ChildProcess[] = [];

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-process-end-'));
    // The agent: installs onProcessEnd, then idles (a timer keeps it running) until told to end.
    fs.writeFileSync(path.join(dir, 'agent.mjs'), `
import fs from 'node:fs';
const { onProcessEnd } = await import(${JSON.stringify(processEnd)});
const log = { error() {}, info() {} };
onProcessEnd(log, async (why) => { fs.writeFileSync(process.argv[2], why); process.exit(0); });
setInterval(() => {}, 1000);
process.send?.({ type: 'up' });
`);
    // An agent whose shutdown never ends (it waits on a server that is gone), with a 300 ms grace.
    fs.writeFileSync(path.join(dir, 'stuck.mjs'), `
import fs from 'node:fs';
const { onProcessEnd } = await import(${JSON.stringify(processEnd)});
const log = { error: (o, msg) => fs.writeFileSync(process.argv[2], msg), info() {} };
onProcessEnd(log, () => new Promise(() => {}), 300);
setInterval(() => {}, 1000);
process.send?.({ type: 'up' });
`);
    // The supervisor: forks the agent with an IPC channel and reports its pid.
    fs.writeFileSync(path.join(dir, 'supervisor.mjs'), `
import { fork } from 'node:child_process';
const agent = fork(process.argv[2], [process.argv[3]]);
agent.once('message', () => process.send({ agent: agent.pid }));
setInterval(() => {}, 1000);
`);
  });

  after(() => {
    for (const c of started) c.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('kill -9 of the supervisor: the agent runs its shutdown ("supervisor gone") and exits', async () => {
    const marker = path.join(dir, 'ended-1');
    const sup = fork(path.join(dir, 'supervisor.mjs'), [path.join(dir, 'agent.mjs'), marker]);
    started.push(sup);
    const agentPid = await new Promise<number>((resolve) => sup.once('message', (m: { agent: number }) => resolve(m.agent)));
    expect(alive(agentPid)).to.equal(true);
    sup.kill('SIGKILL');
    await until(() => !alive(agentPid), 'the orphaned agent to exit', 10000);
    expect(fs.readFileSync(marker, 'utf8')).to.equal('supervisor gone');
  });

  it('with its supervisor still there, SIGTERM ends it as before (shutdown told SIGTERM)', async () => {
    const marker = path.join(dir, 'ended-2');
    const agent = fork(path.join(dir, 'agent.mjs'), [marker], { stdio: ['ignore', 'ignore', 'ignore', 'ipc'] });
    started.push(agent);
    await new Promise((resolve) => agent.once('message', resolve));
    agent.kill('SIGTERM');
    await new Promise((resolve) => agent.once('exit', resolve));
    expect(fs.readFileSync(marker, 'utf8')).to.equal('SIGTERM');
  });

  it('a shutdown that never finishes (its server gone) still ends the process after the grace, code 1', async () => {
    const marker = path.join(dir, 'ended-3');
    const agent = fork(path.join(dir, 'stuck.mjs'), [marker], { stdio: ['ignore', 'ignore', 'ignore', 'ipc'] });
    started.push(agent);
    await new Promise((resolve) => agent.once('message', resolve));
    const exited = new Promise<number | null>((resolve) => agent.once('exit', (code) => resolve(code)));
    agent.kill('SIGTERM');
    expect(await exited).to.equal(1);
    expect(fs.readFileSync(marker, 'utf8')).to.equal('shutdown did not finish in time: exiting');
  });
});
