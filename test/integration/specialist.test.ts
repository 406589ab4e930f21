// The Specialist as a real process on a real ejabberd (issue "The seed contract end to end"):
// it provisions its own account, registers with the real Registry process (retrying until the
// Registry starts, re-registering after the Registry lost its lease), heartbeats, answers
// ASK_EXPERT from an in-process Coordinator agent, and deregisters on SIGTERM.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { waitFor } from 'xstate';
import { type Envelope, makeEnvelope } from '../../shared/acl/index.js';
import { echoRequester, type RequesterOutput, runtimeAgent, type RuntimeAgent } from '../../shared/bench/index.js';
import type { DirectoryEntry } from '../../shared/contracts/index.js';
import { accountSecrets } from '../../shared/ejabberd/index.js';
import { openDb } from '../../shared/store/index.js';
import { packageVersion } from '../../shared/runtime/repo-root.js';
import { type AgentProcess, killAgents, spawnAgent } from '../support/agent-process.js';
import { sharedInstance, type TestInstance } from '../support/ejabberd.js';
import { outputOf, until } from '../support/wait.js';
import { oneShot } from '../support/one-shot.js';


const LEASE_MS = 1500;
const HEARTBEAT_MS = 300;

describe('Specialist [integration] real specialist and Registry processes', function () {
  this.timeout(60000);
  const name = `specialist-it${randomUUID().slice(0, 8)}`;
  let inst: TestInstance;
  let coord: RuntimeAgent;
  let specialist: AgentProcess;
  let registry: AgentProcess | undefined;
  const registeredLines = () => specialist.lines.filter((l) => l.includes('"msg":"registered"')).length;
  const startRegistry = async () => {
    registry = spawnAgent('agents/registry/main.js', { ...inst.env, PARLEY_LEASE_MS: String(LEASE_MS) });
    await registry.waitFor('online');
  };

  const askExpert = async (question: string) => {
    const cid = `sess-${randomUUID()}`;
    const t0 = performance.now();
    const actor = coord.agent.router.start(`${cid}/ask`, echoRequester, {
      self: 'Coordinator', peer: name, conversationId: cid, question, agreeTimeoutMs: 3000, resultTimeoutMs: 30000,
    });
    await waitFor(actor, (s) => s.status !== 'active', { timeout: 15000 }); // event-driven, unlike polling
    const ms = performance.now() - t0;
    return { replies: (await outputOf<RequesterOutput>(actor)).replies, ms };
  };
  const queryRegistry = async (content: object) => {
    const envelope = makeEnvelope({ performative: 'QUERY-REF', sender: 'Coordinator', receiver: 'Registry', conversation_id: `sess-${randomUUID()}`, content });
    const actor = coord.agent.router.start(`${envelope.conversation_id}/q`, oneShot, { envelope });
    return (await outputOf<Envelope>(actor)).content as Record<string, unknown>;
  };
  const directoryEntry = async () =>
    ((await queryRegistry({ type: 'DESCRIBE', capability: 'ASK_EXPERT' })).agents as DirectoryEntry[]).find((a) => a.profile.name === name);

  before(async () => {
    inst = await sharedInstance();
    coord = await runtimeAgent(inst.cfg, 'coordinator', { telemetry: 'memory' });
    await coord.agent.start();
  });
  after(async () => {
    await specialist?.stop();
    await registry?.stop();
    await coord?.agent.stop();
    killAgents();
  });

  it('creates its own account, and retries REGISTER until the Registry starts', async () => {
    expect(accountSecrets(inst.cfg).get(name)).to.equal(undefined);
    specialist = spawnAgent('agents/specialist/main.js', {
      ...inst.env, PARLEY_SPECIALIST_NAME: name, PARLEY_SPECIALIST_EXPERTS: 'arithmetic,time', PARLEY_HEARTBEAT_MS: String(HEARTBEAT_MS),
    });
    const online = await specialist.waitFor('online');
    expect(online).to.deep.include({ skills: ['arithmetic', 'time'], role: 'general', concurrency: 8 }); // --experts is an alias of --skills
    expect(accountSecrets(inst.cfg).get(name)).to.be.a('string');
    await new Promise((r) => setTimeout(r, 1200)); // REGISTER sent at 0, 500, 1500 ms: nobody answers
    expect(registeredLines()).to.equal(0);
    const t0 = Date.now();
    await startRegistry();
    await specialist.waitFor('registered', 15000);
    console.log(`      registered ${Date.now() - t0} ms after the Registry was started`);
  });

  it('is in the DF directory with its full profile, and its heartbeats keep the lease', async () => {
    const entry = await directoryEntry();
    expect(entry?.profile).to.deep.include({ jid: `${name}@${inst.cfg.domain}`, name, version: packageVersion(), capabilities: ['ASK_EXPERT'], max_concurrent: 8, role: 'general', skills: ['arithmetic', 'time'] });
    expect(entry?.profile.topics).to.include.members(['arithmetic', 'time', 'timezone']);
    expect(entry?.profile.examples).to.include.members(['what is 17 * 23?', 'what time is it in Tokyo?']);
    const seen = entry!.last_seen;
    await new Promise((r) => setTimeout(r, 3 * LEASE_MS)); // three leases: alive only by heartbeats
    const later = await directoryEntry();
    expect(later, 'still registered after 3 leases').not.to.equal(undefined);
    expect(Date.parse(String(later!.last_seen)) - Date.parse(String(seen))).to.be.greaterThan(3 * LEASE_MS - 2 * HEARTBEAT_MS);
    const candidates = (await queryRegistry({ need: 'ASK_EXPERT', hint: 'arithmetic' })).candidates as string[];
    expect(candidates).to.include(`${name}@${inst.cfg.domain}`);
    // The Registry's own telemetry saw the HEARTBEATs (seed contract §5).
    const db = openDb(`${inst.cfg.home}/telemetry/Registry.sqlite`, { readonly: true });
    const beats = (db.prepare("SELECT COUNT(*) AS n FROM envelopes WHERE direction = 'in' AND sender = ? AND content_type = 'HEARTBEAT'").get(name) as { n: number }).n;
    db.close();
    expect(beats).to.be.greaterThan(10);
  });

  // A quick answer goes out alone; an AGREE comes first only when the skill took longer than
  // PARLEY_SPECIALIST_AGREE_AFTER_MS (250 ms), which a loaded machine can make happen.
  const agreedThen = (replies: Envelope[], last: string) => {
    expect(replies.map((r) => r.performative)).to.be.deep.oneOf([[last], ['AGREE', last]]);
    if (replies.length === 2) expect(replies[0]?.content).to.deep.equal({ status: 'accepted' });
    return replies.at(-1) as Envelope;
  };

  it('answers ASK_EXPERT from the Coordinator: RESULT "391" (AGREE first only for a slow skill)', async () => {
    const { replies, ms } = await askExpert('what is 17 * 23?');
    expect(agreedThen(replies, 'INFORM').content).to.deep.equal({ type: 'RESULT', result: { answer: '391', meta: { expression: '17 * 23', skill: 'arithmetic', version: '1.0.0' } } });
    for (const r of replies) expect(r).to.include({ sender: name, receiver: 'Coordinator' });
    const times = [];
    for (let i = 0; i < 20; i += 1) times.push((await askExpert(`what is ${i} * 3?`)).ms);
    times.sort((a, b) => a - b);
    console.log(`      ASK_EXPERT → RESULT round trip: first ${ms.toFixed(1)} ms, median of 20 ${times[10]!.toFixed(1)} ms`);
  });

  it('answers a time question with the time expert', async () => {
    const { replies } = await askExpert('what time is it in Tokyo?');
    const result = (agreedThen(replies, 'INFORM').content as { result: { answer: string; meta: Record<string, unknown> } }).result;
    expect(result.answer).to.match(/^It is \d\d:\d\d in Tokyo \(Asia\/Tokyo, UTC\+09:00\) on \w+day, \d{1,2} \w+ \d{4}\.$/);
    expect(result.meta).to.include({ skill: 'time', zone: 'Asia/Tokyo' });
  });

  it('REFUSEs OUT_OF_SCOPE at once, and answers FAILURE INVALID_ARGS for broken maths', async () => {
    const out = await askExpert('who wrote Hamlet?');
    expect(out.replies.map((r) => r.performative)).to.deep.equal(['REFUSE']);
    expect(out.replies[0]?.content).to.deep.include({ reason: 'OUT_OF_SCOPE' });
    const bad = await askExpert('what is 5 / ');
    expect(agreedThen(bad.replies, 'FAILURE').content).to.deep.include({ reason: 'INVALID_ARGS' });
  });

  it('registers again after the Registry restarts having lost its lease (FAILURE NOT_REGISTERED)', async () => {
    expect(registeredLines()).to.equal(1);
    await registry!.stop();
    await new Promise((r) => setTimeout(r, LEASE_MS + 500)); // the lease expires while the DF is down
    await startRegistry();
    await until(() => registeredLines() >= 2, 'a second "registered" line', 15000);
    const again = specialist.lines.filter((l) => l.includes('"msg":"registered"')).map((l) => JSON.parse(l) as { count: number });
    expect(again.map((l) => l.count)).to.deep.equal([1, 2]);
    expect(await directoryEntry()).not.to.equal(undefined);
  });

  it('on SIGTERM deregisters and exits 0', async () => {
    expect(await specialist.stop()).to.equal(0);
    expect(await directoryEntry()).to.equal(undefined);
    const db = openDb(`${inst.cfg.home}/telemetry/Registry.sqlite`, { readonly: true });
    const dereg = db.prepare("SELECT COUNT(*) AS n FROM envelopes WHERE direction = 'in' AND sender = ? AND content_type = 'DEREGISTER'").get(name) as { n: number };
    db.close();
    expect(dereg.n).to.equal(1);
  });
});
