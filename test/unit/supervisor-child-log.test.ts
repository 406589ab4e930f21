// A child's log that cannot be written must not end the supervisor (and every agent with it):
// an unhandled 'error' on the log stream was an uncaught exception (CI, stop 43: a logs folder
// removed while a stopped child's log was still opening).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { Supervisor } from '../../shared/supervisor/index.js';
import { until } from '../support/wait.js';

const BACKOFF = { minMs: 10, maxMs: 40, resetAfterMs: 60000, maxFailedStarts: 3 };
const ready = ['-e', "process.send({ type: 'ready', moment: 'online' }); setInterval(() => {}, 1000)"];

describe('Supervisor [child log] a log that cannot be written is said, never a crash', function () {
  this.timeout(20000);
  let logsDir: string;
  beforeEach(() => (logsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-child-log-'))));
  afterEach(() => fs.rmSync(logsDir, { recursive: true, force: true }));

  it('attack: the log path is a folder (EISDIR): the agent still starts and the supervisor says why its log is missing', async () => {
    fs.mkdirSync(path.join(logsDir, 'kb.log'));
    const said: string[] = [];
    const sup = new Supervisor({ env: process.env, logsDir, say: (l) => said.push(l), backoff: BACKOFF });
    sup.add({ name: 'kb', kind: 'core', command: process.execPath, args: ready, readyOn: 'online' });
    await sup.whenReady(['kb'], 15000);
    await until(() => said.some((l) => /kb: its log cannot be written: EISDIR/.test(l)), 'the log error said', 5000, 10);
    await sup.stopAll();
    expect(sup.list().map((a) => a.status)).to.deep.equal(['stopped']);
  });

  it('a stop resolves only once the log is closed: the folder can go at once after it', async () => {
    for (let i = 0; i < 20; i += 1) {
      const dir = fs.mkdtempSync(path.join(logsDir, 'run-'));
      const sup = new Supervisor({ env: process.env, logsDir: dir, say: () => undefined, backoff: BACKOFF });
      sup.add({ name: 'kb', kind: 'core', command: process.execPath, args: ready, readyOn: 'online' });
      await sup.stopAll(); // at once, while the child and its log are still starting
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
