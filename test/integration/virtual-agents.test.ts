// Thousands of agents in one process (issue 14 §3), first part: `npm run spawn -- specialist
// --count 100 --host vm --role math` under the real supervisor starts one host process whose 100
// virtual specialists (vm-001@agents.<domain> …) each register with the DF; people's questions are
// answered by them (telemetry says which one); and a person's account cannot pass for one.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { makeEnvelope } from '../../shared/acl/index.js';
import { paths, type ParleyConfig } from '../../shared/config/index.js';
import { ensureAccount } from '../../shared/ejabberd/index.js';
import { silentLogger } from '../../shared/log/index.js';
import { repoRoot } from '../../shared/runtime/repo-root.js';
import { openDb } from '../../shared/store/index.js';
import type { ChildInfo } from '../../shared/supervisor/index.js';
import { controlRequest } from '../../shared/supervisor/ipc.js';
import { Person } from '../../shared/trace/index.js';
import { readConversation } from '../../shared/trace/collect.js';
import { clientTransport } from '../../shared/transport/index.js';
import { sendAsSomeoneElse } from '../support/raw-xmpp.js';
import { startSupervisor, stopSupervisor } from '../support/supervised.js';
import { until } from '../support/wait.js';

const run = promisify(execFile);
const COUNT = 100;

describe('Virtual agents [end to end] one host process serving 100 specialists over agents.<domain>', function () {
  this.timeout(120000);
  let cfg: ParleyConfig;
  let env: NodeJS.ProcessEnv;
  let sup: Awaited<ReturnType<typeof startSupervisor>>['sup'] | undefined;
  let alice: Person | undefined;
  const domain = () => `agents.${cfg.domain}`;
  const hostRows = (sql: string) => {
    const db = openDb(path.join(paths(cfg).telemetry, 'agents-vm.sqlite'), { readonly: true });
    try {
      return db.prepare(sql).all() as Array<Record<string, string>>;
    } finally {
      db.close();
    }
  };

  before(async function () {
    this.timeout(180000);
    // No process specialist serves arithmetic: only the virtual ones can answer it.
    ({ sup, cfg, env } = await startSupervisor('parley-virtual-', { PARLEY_SPECIALISTS: 'time:time' }));
    alice = await Person.connect(cfg, 'alice');
  });
  after(async function () {
    this.timeout(60000);
    await alice?.close().catch(() => undefined);
    await stopSupervisor(sup, cfg);
  });

  it(`npm run spawn -- specialist --count ${COUNT} --host vm starts one supervised host; every agent registers with the DF`, async () => {
    const t0 = Date.now();
    const r = await run(process.execPath, [path.join(repoRoot(), 'dist', 'scripts', 'spawn-cli.js'), 'specialist', '--count', String(COUNT), '--host', 'vm', '--role', 'math'], { env, timeout: 90000 });
    console.log(`      ${r.stdout.trim()} (${Date.now() - t0} ms)`);
    expect(r.stdout).to.match(/agents-vm registered in \d+ ms/);
    const agents = ((await controlRequest(cfg, 'GET', '/agents'))?.body.agents ?? []) as ChildInfo[];
    expect(agents.find((a) => a.name === 'agents-vm')).to.deep.include({ kind: 'specialist', status: 'ready', role: 'math' });
    // One REGISTERED per virtual agent, each to its own JID. The host's telemetry is written in
    // batches, so its last rows may follow the ready line (CI read 92 of 100 once): wait for them.
    const registeredRows = () => hostRows(`SELECT DISTINCT agent FROM envelopes WHERE direction = 'in' AND content_type = 'REGISTERED'`).map((x) => x.agent);
    await until(() => registeredRows().length >= COUNT, `${COUNT} REGISTERED in the host's telemetry`, 10000, 100);
    const registered = registeredRows();
    expect(registered).to.have.length(COUNT);
    expect(registered.every((a) => a?.endsWith(`@${domain()}`))).to.equal(true);
    // They reached the DF in REGISTER_MANY batches (shared/runtime/register-batch.ts), not one message each.
    const db = openDb(path.join(paths(cfg).telemetry, 'Registry.sqlite'), { readonly: true });
    try {
      const batches = (db.prepare(`SELECT COUNT(*) AS n FROM envelopes WHERE direction = 'in' AND content_type = 'REGISTER_MANY'`).get() as { n: number }).n;
      expect(batches).to.be.within(1, COUNT - 1);
    } finally {
      db.close();
    }
    // The rooms process runs too, on its own component listener: it logs every stanza for a JID
    // it does not serve that it answers with an error (a CFP, a REQUEST; not an INFORM such as
    // REGISTERED), and none named an agent of agents.<domain>.
    const roomsLog = fs.readFileSync(path.join(paths(cfg).logsDir, 'rooms.log'), 'utf8');
    expect(roomsLog).to.include('"msg":"online"');
    expect(roomsLog).to.not.include(`@${domain()}`);
  });

  it('people\'s questions are answered by virtual agents (telemetry names which one)', async () => {
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => alice!.ask(`what is ${17 + i} * 23?`, { timeoutMs: 60000 })));
    answers.forEach((a, i) => expect(a.answer, a.answer).to.include(String((17 + i) * 23)));
    await until(() => hostRows(`SELECT 1 FROM envelopes WHERE direction = 'out' AND performative = 'INFORM' AND content_type NOT IN ('HEARTBEAT', 'REGISTER', 'DEREGISTER')`).length >= 6, 'six answers recorded', 5000);
    const answeredBy = hostRows(`SELECT DISTINCT agent FROM envelopes WHERE direction = 'out' AND performative = 'INFORM' AND content_type NOT IN ('HEARTBEAT', 'REGISTER', 'DEREGISTER')`).map((x) => x.agent);
    console.log(`      answered by ${answeredBy.join(', ')}`);
    expect(answeredBy.length).to.be.greaterThan(0);
    expect(answeredBy.every((a) => /^vm-\d+@agents\./.test(a ?? ''))).to.equal(true);
  });

  it('a person\'s account cannot pass for a virtual agent: its envelopes are refused, a spoofed from never reaches an agent', async () => {
    const { jid, password } = await ensureAccount(cfg, 'mallory');
    const t = clientTransport({ jid, password, host: cfg.host, port: cfg.c2sPort, logger: silentLogger(), resource: 'm' });
    await t.start();
    try {
      const victim = `vm-0001@${domain()}`;
      const cid = `sess-${randomUUID()}`;
      // Claims the virtual agent's name in the envelope: the DF judges the authenticated JID.
      const register = makeEnvelope({
        performative: 'REQUEST', sender: victim, receiver: 'Registry', conversation_id: cid,
        content: { type: 'REGISTER', profile: { jid: victim, name: victim, version: '1', capabilities: ['ASK_EXPERT'], topics: ['math'] } },
      });
      t.send({ to: `registry@${cfg.domain}`, type: 'normal', id: register.reply_with, thread: cid, body: JSON.stringify(register) });
      const dir = paths(cfg).telemetry;
      await until(() => readConversation(dir, cid).some((r) => r.agent === 'Registry' && r.direction === 'in'), 'the Registry saw the REGISTER', 10000);
      const seen = readConversation(dir, cid).filter((r) => r.agent === 'Registry' && r.direction === 'in');
      expect(seen.map((r) => r.decision)).to.satisfy((d: string[]) => d.every((x) => x.startsWith('rejected:')));
      // And a stanza that claims the virtual agent's address, over a raw stream (xmpp.js throws
      // from its socket handler when the server closes the stream under it): ejabberd answers a
      // client's foreign `from` with the invalid-from stream error (RFC 6120 §4.9.3.9) and
      // closes the stream, so the stanza is never routed.
      const spoofCid = `sess-${randomUUID()}`;
      const spoof = makeEnvelope({ ...register, conversation_id: spoofCid });
      await sendAsSomeoneElse({ host: cfg.host, port: cfg.c2sPort, domain: cfg.domain }, 'mallory', password, victim, `registry@${cfg.domain}`, spoof);
      const spoofed = readConversation(dir, spoofCid).filter((r) => r.direction === 'in');
      expect(spoofed.every((r) => r.decision.startsWith('rejected:')), JSON.stringify(spoofed)).to.equal(true);
    } finally {
      await t.stop();
    }
  });
});
