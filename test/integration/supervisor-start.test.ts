// `npm start` with a specialist that cannot start (PARLEY_SPECIALISTS naming a skill that does not
// exist): the rest of the system comes up and says so, people are answered, a second start for
// the same home is refused, and the supervisor stops on SIGTERM. Before (shared/supervisor/
// start-wait.ts): it never printed its ready line, printed "… still waiting" ≈ 11,000 times a
// second at 70–100 % of a core, and no signal stopped it.
import { expect } from 'chai';
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import type { ParleyConfig } from '../../shared/config/index.js';
import { repoRoot } from '../../shared/runtime/repo-root.js';
import { ChatPerson } from '../support/chat-person.js';
import { startSupervisor, stopSupervisor } from '../support/supervised.js';
import { until } from '../support/wait.js';

describe('Supervisor [start] an agent that cannot start is left out, not waited for forever', function () {
  this.timeout(120000);
  let sup: ChildProcess | undefined;
  let cfg: ParleyConfig | undefined;
  let out: string[] = [];
  let env: NodeJS.ProcessEnv = {};
  let readyLine = '';
  let erin: ChatPerson | undefined;

  before(async function () {
    this.timeout(180000);
    ({ sup, cfg, out, readyLine, env } = await startSupervisor('parley-badspec-', { PARLEY_SPECIALISTS: 'math:arithmetic,bad:nosuchskill' }));
  });

  after(async function () {
    this.timeout(60000);
    await erin?.close().catch(() => undefined);
    await stopSupervisor(sup, cfg);
  });

  it('says ready without it, after one line naming why', () => {
    expect(readyLine).to.match(/parley ready in [\d.]+ s without specialist-bad \(failed to start: see .*logs\) — chat with presenter@/);
    const why = out.filter((l) => l.includes('specialist-bad failed to start (') && l.includes('going on without it'));
    expect(why).to.have.length(1);
    expect(why[0]).to.contain('unknown skill "nosuchskill"');
    expect(out.filter((l) => l.includes('still waiting'))).to.deep.equal([]);
  });

  it('the others serve: a person\'s question is answered', async () => {
    erin = await ChatPerson.connect(cfg as ParleyConfig, 'erin');
    expect((await erin.ask('what is 6 * 7?')).answer).to.equal('42');
  });

  it('a second start for the same PARLEY_HOME changes nothing: it says who runs and exits 1; the first still answers', async () => {
    // Before, the second started every agent again on the same accounts, and each agent of the
    // first was cut off ("replaced by a newer session of this account: not reconnecting").
    const second = spawn(process.execPath, [path.join(repoRoot(), 'dist', 'scripts', 'supervisor.js')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    second.stdout?.on('data', (b: Buffer) => (text += String(b)));
    second.stderr?.on('data', (b: Buffer) => (text += String(b)));
    const code = await new Promise<number | null>((resolve) => second.once('exit', (c) => resolve(c)));
    expect(code, text).to.equal(1);
    expect(text).to.match(new RegExp(`cannot start: Parley already runs for ${(cfg as ParleyConfig).home} \\(supervisor pid ${(sup as ChildProcess).pid}\\)`));
    expect(text).to.not.contain('starting');
    expect((await (erin as ChatPerson).ask('what is 6 * 8?')).answer).to.equal('48');
  });

  it('stops on SIGTERM by itself (exit code 0)', async () => {
    const proc = sup as ChildProcess;
    await erin?.close().catch(() => undefined);
    erin = undefined;
    proc.kill('SIGTERM');
    await until(() => proc.exitCode !== null || proc.signalCode !== null, 'the supervisor to exit after SIGTERM', 30000);
    expect(proc.exitCode).to.equal(0);
  });
});
