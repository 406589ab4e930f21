// Agents on another host (issue "Beyond one machine" §2): a second state directory shares
// nothing with the operator's but the network. Two specialists join with the operator's tokens
// (`npm run enrol -- issue`, then `npm run join`), register with the DF and answer a person's
// questions; an account that was never enrolled runs a real specialist too, is refused by the
// Registry and never receives a question.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { ensureAccount } from '../../shared/ejabberd/index.js';
import { repoRoot } from '../../shared/runtime/repo-root.js';
import { openDb } from '../../shared/store/index.js';
import { type AgentProcess, killAgents, spawnAgent } from '../support/agent-process.js';
import { ChatPerson } from '../support/chat-person.js';
import { startSupervisor, stopSupervisor, type Supervised } from '../support/supervised.js';

const run = promisify(execFile);
const cli = (script: string, args: string[], env: NodeJS.ProcessEnv) => run(process.execPath, [path.join(repoRoot(), 'dist', 'scripts', script), ...args], { env, timeout: 60000 });

/** The environment of a host that is not the operator's: no PARLEY_* of the operator's at all. */
function remoteEnv(home: string, port: number, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('PARLEY_'))) as NodeJS.ProcessEnv;
  return { ...env, PARLEY_HOME: home, PARLEY_C2S_PORT: String(port), PARLEY_LOG_LEVEL: 'info', ...extra };
}

function inbound(home: string, name: string): string[] {
  const file = path.join(home, 'telemetry', `${name}.sqlite`);
  if (!fs.existsSync(file)) return [];
  const db = openDb(file, { readonly: true });
  try {
    return (db.prepare("SELECT coalesce(content_type, performative) AS k FROM envelopes WHERE direction = 'in'").all() as Array<{ k: string }>).map((r) => r.k);
  } catch {
    return [];
  } finally {
    db.close();
  }
}

describe('Join [remote host] specialists on a host with its own state directory join by token, answer people; an un-enrolled one is refused', function () {
  this.timeout(120000);
  let s: Supervised;
  let remote: string;
  let rogueHome: string;
  const agents: AgentProcess[] = [];
  let alice: ChatPerson;

  before(async function () {
    this.timeout(150000);
    s = await startSupervisor('parley-join-', { PARLEY_AUTOSCALE: '0' });
    remote = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-remote-'));
    rogueHome = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-rogue-'));
    alice = await ChatPerson.connect(s.cfg, 'alice');
  });

  after(async function () {
    this.timeout(60000);
    for (const a of agents) await a.stop().catch(() => undefined);
    killAgents();
    await alice?.close().catch(() => undefined);
    await stopSupervisor(s?.sup, s?.cfg);
    for (const d of [remote, rogueHome]) if (d) fs.rmSync(d, { recursive: true, force: true });
  });

  it('joins two specialists with single-use tokens and nothing copied; they register and answer', async () => {
    for (const name of ['remote1', 'remote2']) {
      const issued = await cli('enrol-cli.js', ['issue', `specialist-${name}`, '--role', 'specialist'], s.env);
      const token = issued.stdout.split('\n').find((l) => l.startsWith('parley-join.v1.')) as string;
      const joined = await cli('join-cli.js', ['--server', `127.0.0.1:${s.cfg.c2sPort}`, '--token', token, '--home', remote], remoteEnv(remote, s.cfg.c2sPort));
      expect(joined.stdout).to.match(new RegExp(`joined: specialist-${name}@${s.cfg.domain} as specialist, did:key:z6Mk`));
      const again = await cli('join-cli.js', ['--server', `127.0.0.1:${s.cfg.c2sPort}`, '--token', token, '--home', fs.mkdtempSync(path.join(os.tmpdir(), 'parley-again-'))], remoteEnv(remote, s.cfg.c2sPort)).catch((err: { stderr: string }) => err);
      expect((again as { stderr: string }).stderr, 'a token works once').to.contain('TOKEN_USED');
    }
    // The remote state directory holds its own keys and credentials, nothing of the operator's.
    expect(fs.existsSync(path.join(remote, 'secrets', 'keys', 'operator.json'))).to.equal(false);
    expect(Object.keys(JSON.parse(fs.readFileSync(path.join(remote, 'secrets', 'accounts.json'), 'utf8')) as object).sort()).to.deep.equal(['specialist-remote1', 'specialist-remote2']);
    expect((fs.statSync(remote).mode & 0o777).toString(8)).to.equal('700');
    for (const name of ['remote1', 'remote2']) {
      const a = spawnAgent('agents/specialist/main.js', remoteEnv(remote, s.cfg.c2sPort, { PARLEY_SPECIALIST_NAME: name, PARLEY_SPECIALIST_SKILLS: 'text_stats' }) as Record<string, string>);
      agents.push(a);
      await a.waitFor('registered', 30000);
    }
    // Only the remote specialists serve text_stats: the answers can only have come from them.
    const { answer } = await alice.ask('text stats: the quick brown fox jumps', { timeoutMs: 30000 });
    expect(answer).to.match(/\b5 words\b/);
    const served = ['specialist-remote1', 'specialist-remote2'].flatMap((n) => inbound(remote, n)).filter((k) => k === 'ASK_EXPERT' || k === 'AGORA_REQUEST');
    expect(served.length, 'a remote specialist got the question').to.be.greaterThan(0);
  });

  it('refuses a specialist on an account nobody enrolled, which never receives a question', async () => {
    // An ordinary account (its password leaked to this host) running a real specialist with a key of its own.
    const { password } = await ensureAccount(s.cfg, 'specialist-intruder');
    fs.mkdirSync(path.join(rogueHome, 'secrets'), { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(rogueHome, 'secrets', 'accounts.json'), JSON.stringify({ 'specialist-intruder': password }), { mode: 0o600 });
    const intruder = spawnAgent('agents/specialist/main.js', remoteEnv(rogueHome, s.cfg.c2sPort, { PARLEY_SPECIALIST_NAME: 'intruder', PARLEY_SPECIALIST_SKILLS: 'text_stats', PARLEY_OPERATOR_DID: 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK' }) as Record<string, string>);
    agents.push(intruder);
    await intruder.waitFor('online', 30000);
    for (let i = 0; i < 3; i++) expect((await alice.ask(`text stats: one two three ${'x '.repeat(i)}`, { timeoutMs: 30000 })).answer).to.match(/\d/);
    expect(intruder.lines.some((l) => /REFUSE|refused|not an enrolled agent|FORBIDDEN_SENDER|UNKNOWN_DID/.test(l)), 'the Registry refused it').to.equal(true);
    expect(inbound(rogueHome, 'specialist-intruder').filter((k) => k === 'ASK_EXPERT' || k === 'AGORA_REQUEST' || k === 'CFP')).to.deep.equal([]);
  });
});
