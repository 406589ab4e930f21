// How `npm start` waits for its agents (shared/supervisor/start-wait.ts): one that gives up is
// left out with a line saying why (a core agent ends the start), never waited for again. Before,
// the wait began again at once and rejected at once, forever: 100 % CPU and a supervisor that no
// signal could stop (the real process: test/integration/supervisor-start.test.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { FailedToStart, Supervisor, waitForStart } from '../../shared/supervisor/index.js';

const BACKOFF = { minMs: 10, maxMs: 40, resetAfterMs: 60000, maxFailedStarts: 3 };
const ready = (moment: string) => ['-e', `process.send({ type: 'ready', moment: '${moment}' }); setInterval(() => {}, 1000)`];
const broken = ['-e', 'console.error("error: unknown skill \\"nosuchskill\\""); process.exit(1)'];

describe('Supervisor [start] waiting for the agents of a start', function () {
  this.timeout(20000);
  let logsDir: string;
  let sup: Supervisor;
  const lines: string[] = [];
  beforeEach(() => {
    logsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-start-wait-'));
    sup = new Supervisor({ env: process.env, logsDir, say: () => undefined, backoff: BACKOFF });
    lines.length = 0;
  });
  afterEach(async () => {
    await sup.stopAll();
    fs.rmSync(logsDir, { recursive: true, force: true });
  });
  const wait = (specs: Parameters<typeof waitForStart>[1]) => {
    for (const s of specs) sup.add(s);
    return waitForStart(sup, specs, { timeoutMs: 15000, say: (l) => lines.push(l), stopping: () => false, logsDir });
  };

  it('a specialist that gives up is left out, said once; the others are waited for', async () => {
    const left = await wait([
      { name: 'specialist-bad', kind: 'specialist', command: process.execPath, args: broken, readyOn: 'registered' },
      { name: 'kb', kind: 'core', command: process.execPath, args: ready('online'), readyOn: 'online' },
      { name: 'console', kind: 'console', command: process.execPath, args: ready('online'), readyOn: 'online' },
    ]);
    expect(left).to.deep.equal(['specialist-bad']);
    expect(lines).to.deep.equal(['specialist-bad failed to start (error: unknown skill "nosuchskill") and is not restarted; see logs/specialist-bad.log; going on without it']);
    expect(sup.list().filter((a) => a.status === 'ready').map((a) => a.name)).to.have.members(['kb', 'console']);
  });

  it('a core agent that gives up ends the start (the system is of no use without it)', async () => {
    const err = await wait([
      { name: 'coordinator', kind: 'core', command: process.execPath, args: broken, readyOn: 'online' },
      { name: 'kb', kind: 'core', command: process.execPath, args: ready('online'), readyOn: 'online' },
    ]).then(() => undefined, (e: Error) => e);
    expect(err).to.be.instanceOf(FailedToStart);
    expect(err?.message).to.match(/^coordinator failed to start \(error: unknown skill "nosuchskill"\)/);
  });

  it('ends at once, without a line, when the start is being stopped', async () => {
    sup.add({ name: 'specialist-bad', kind: 'specialist', command: process.execPath, args: broken, readyOn: 'registered' });
    const left = await waitForStart(sup, [{ name: 'specialist-bad', kind: 'specialist', command: process.execPath, args: broken, readyOn: 'registered' }],
      { timeoutMs: 15000, say: (l) => lines.push(l), stopping: () => true, logsDir });
    expect(left).to.equal(undefined);
    expect(lines).to.deep.equal([]);
  });
});
