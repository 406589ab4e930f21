// Issue #3 under load, real processes: a busy system is slower, not failing. One specialist with
// a single worker slot (and no queue) gets 100 questions at once through the real Presenter
// and Coordinator, with no supervisor to scale up: it REFUSEs busy beyond its queue, the
// Coordinator waits (BUSY_RETRY with back-off) and asks again, and every person gets the right
// product; nobody gets NO_CANDIDATE.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { expect } from 'chai';
import { question } from '../../shared/bench/index.js';
import { openDb } from '../../shared/store/index.js';
import { Person } from '../../shared/trace/index.js';
import { type AgentProcess, spawnAgent } from '../support/agent-process.js';
import { sharedInstance, type TestInstance } from '../support/ejabberd.js';
import { untilRecorded } from '../support/wait.js';

const tag = randomUUID().slice(0, 6);

describe('Load [busy] 100 questions at once on a one-slot specialist are all answered', function () {
  this.timeout(90000);
  let inst: TestInstance;
  const procs: AgentProcess[] = [];
  const people: Person[] = [];

  async function start(script: string, env: Record<string, string>, ready = 'online'): Promise<void> {
    const p = spawnAgent(script, { ...inst.env, PARLEY_AUTOSCALE: '0', ...env });
    procs.push(p);
    await p.waitFor(ready, 30000);
  }

  before(async function () {
    this.timeout(120000);
    inst = await sharedInstance();
    await start('agents/registry/main.js', {});
    await start('agents/kb/main.js', {});
    await start('agents/coordinator/main.js', {});
    await start('agents/presenter/main.js', {});
    await start('agents/specialist/main.js', {
      PARLEY_SPECIALIST_NAME: `solo${tag}`, PARLEY_SPECIALIST_EXPERTS: 'arithmetic', PARLEY_SPECIALIST_CONCURRENCY: '1', PARLEY_SPECIALIST_QUEUE: '0',
    }, 'registered');
    people.push(...(await Promise.all(Array.from({ length: 10 }, (_, i) => Person.connect(inst.cfg, `load${i}${tag}`)))));
  });

  after(async () => {
    await Promise.all(people.map((p) => p.close().catch(() => undefined)));
    for (const p of procs.reverse()) await p.stop();
  });

  it('every one of 100 concurrent questions gets its product; the Coordinator waited instead of failing', async () => {
    const t0 = Date.now();
    const asked = Array.from({ length: 100 }, (_, i) => ({ i, ...question(i + 1) }));
    const answers = await Promise.all(asked.map((q) => (people[q.i % people.length] as Person).ask(q.text, { timeoutMs: 60000 }).then((a) => ({ q, a }))));
    const ms = Date.now() - t0;
    const wrong = answers.filter(({ q, a }) => !q.expect.test(a.answer));
    expect(wrong.map(({ q, a }) => `${q.text} → ${a.answer.slice(0, 200)}`), 'wrong or missing answers').to.deep.equal([]);
    expect(answers.some(({ a }) => /NO_CANDIDATE|none of the specialists/i.test(a.answer))).to.equal(false);

    // The Coordinator's trace shows the mechanism: busy refusals were followed by waits.
    await untilRecorded(inst.cfg.home, 'Coordinator', answers.map(({ a }) => a.thread));
    const db = openDb(path.join(inst.cfg.home, 'telemetry', 'Coordinator.sqlite'), { readonly: true });
    try {
      const ids = answers.map(({ a }) => a.thread);
      const marks = ids.map(() => '?').join(',');
      const count = (decision: string) => (db.prepare(`SELECT COUNT(*) AS n FROM envelopes WHERE decision = ? AND conversation_id IN (${marks})`).get(decision, ...ids) as { n: number }).n;
      const waits = count('busy-wait');
      console.log(`      100 questions on a 1-slot specialist (no queue): all answered in ${ms} ms, ${waits} busy waits`);
      expect(waits, 'some questions found the specialist busy and waited').to.be.greaterThan(0);
    } finally {
      db.close();
    }
  });
});
