// The runtime against a real ejabberd: a full fipa-request exchange between two agents, and the
// same exchange surviving a SIGKILL of the server in the middle (issue "Foundation" §3–§4).
import { expect } from 'chai';
import { fromPromise } from 'xstate';
import type { Envelope } from '../../shared/acl/index.js';
import {
  echoRequester, echoResponder, type RequesterInput, type RequesterOutput, runtimeAgent,
  type RuntimeAgent,
} from '../../shared/bench/index.js';
import { provisionCore } from '../../shared/ejabberd/index.js';
import { control as ejabberd } from '../../shared/ejabberd/operator.js';
import { createLogger } from '../../shared/log/index.js';
import { openDb } from '../../shared/store/index.js';
import { killAgents, spawnAgent } from '../support/agent-process.js';
import { sharedInstance, startInstance } from '../support/ejabberd.js';
import { outputOf, until } from '../support/wait.js';

const ask = (conversationId: string, question: string, over: Partial<RequesterInput> = {}): RequesterInput => ({
  self: 'Coordinator', peer: 'specialist-echo', conversationId, question, agreeTimeoutMs: 3000, resultTimeoutMs: 30000, ...over,
});

interface Row { direction: string; performative: string; reply_with: string; in_reply_to: string | null; decision: string; conversation_id: string }

function rows(file: string, conversationId: string): Row[] {
  const db = openDb(file, { readonly: true });
  try {
    return db.prepare('SELECT * FROM envelopes WHERE conversation_id = ? ORDER BY at, seq').all(conversationId) as Row[];
  } finally {
    db.close();
  }
}

describe('runtime [exchange] two agents over a real ejabberd', function () {
  this.timeout(60000);
  let coord: RuntimeAgent | undefined;
  afterEach(async () => {
    await coord?.agent.stop();
    coord = undefined;
    killAgents();
  });

  it('completes REQUEST ASK_EXPERT → AGREE → INFORM RESULT in one thread with an echo-agent process', async () => {
    const inst = await sharedInstance();
    await inst.account('specialist-echo');
    const echo = spawnAgent('test/fixtures/echo-agent.js', inst.env);
    await echo.waitFor('online');
    coord = await runtimeAgent(inst.cfg, 'coordinator');
    const inbound: Array<{ thread?: string; body?: string }> = [];
    coord.transport.onMessage((m) => inbound.push({ thread: m.thread, body: m.body }));
    await coord.agent.start();

    const cid = 'sess-runtime-exchange-1';
    const actor = coord.agent.router.start(`${cid}/ask`, echoRequester, ask(cid, 'what is 6x7?'));
    const out = await outputOf<RequesterOutput>(actor);
    expect(out).to.include({ ok: true, answer: 'echo: what is 6x7?', agreed: true });

    const replies = out.replies;
    expect(replies.map((r) => r.performative)).to.deep.equal(['AGREE', 'INFORM']);
    const sentRequest = rows(coord.telemetryPath as string, cid).find((r) => r.direction === 'out') as Row;
    expect(sentRequest).to.include({ performative: 'REQUEST', decision: 'sent' });
    for (const r of replies) expect(r).to.include({ conversation_id: cid, in_reply_to: sentRequest.reply_with, sender: 'specialist-echo', receiver: 'Coordinator' });
    expect(inbound.map((m) => m.thread)).to.deep.equal([cid, cid]); // XMPP <thread> = conversation_id (seed §1)
    expect(coord.agent.router.size).to.equal(0);

    // Telemetry on both sides tells the same story (seed contract §5).
    coord.telemetry.flush();
    expect(rows(coord.telemetryPath as string, cid).map((r) => `${r.direction} ${r.performative} ${r.decision}`))
      .to.deep.equal(['out REQUEST sent', 'in AGREE routed', 'in INFORM routed']);
    expect(await echo.stop()).to.equal(0); // SIGTERM → clean shutdown flushes its telemetry
    const theirs = rows(`${inst.cfg.home}/telemetry/specialist-echo.sqlite`, cid);
    expect(theirs.map((r) => `${r.direction} ${r.performative} ${r.decision}`))
      .to.deep.equal(['in REQUEST opened', 'out AGREE sent', 'out INFORM sent']);
  });
});

describe('runtime [reconnect] ejabberd killed mid-exchange', function () {
  this.timeout(90000);
  const agents: RuntimeAgent[] = [];
  after(async () => {
    for (const a of agents) await a.agent.stop().catch(() => undefined);
  });

  it('reconnects both agents after SIGKILL and a restart, and the exchange completes', async () => {
    const inst = await startInstance('parley-kill-');
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let received = false;
    const answer = fromPromise<string, { question: string }>(async ({ input }) => {
      received = true;
      await gate;
      return `late echo: ${input.question}`;
    });
    // PARLEY_TEST_DEBUG=1 shows the transports' reconnect story.
    const logger = (name: string) => (process.env.PARLEY_TEST_DEBUG ? { logger: createLogger(name, 'debug') } : {});
    const spec = await runtimeAgent(inst.cfg, 'specialist-echo', logger('specialist-echo'));
    const coord = await runtimeAgent(inst.cfg, 'coordinator', logger('coordinator'));
    agents.push(spec, coord);
    spec.agent.router.on('ASK_EXPERT', (request, from) => ({
      machine: echoResponder.provide({ actors: { answer } }), input: { request, from, self: spec.agent.name, agree: true },
    }));
    await spec.agent.start();
    await coord.agent.start();

    const cid = 'sess-runtime-kill-1';
    const actor = coord.agent.router.start(`${cid}/ask`, echoRequester, ask(cid, 'survive?', { resultTimeoutMs: 60000 }));
    await until(() => received && actor.getSnapshot().value === 'awaitingResult', 'the specialist to take the request and AGREE');

    expect(ejabberd.kill(inst.cfg)).to.equal(true);
    await until(() => spec.transport.status !== 'online' && coord.transport.status !== 'online', 'both agents to notice the server died');
    release(); // the specialist answers while the server is down
    // Held unsigned by the agent, signed when the transport is back (never STALE after an outage).
    await until(() => spec.agent.held > 0, 'the RESULT to wait in the outbox');

    await ejabberd.start(inst.cfg);
    // As `npm run ejabberd -- start` does after every start: mnesia may lose a registration made
    // just before a SIGKILL; the transports keep retrying their refused logins until it is back.
    await provisionCore(inst.cfg, ['specialist-echo']);
    const out = await outputOf<RequesterOutput>(actor, 30000);
    expect(out).to.include({ ok: true, answer: 'late echo: survive?', agreed: true });
    const [agree, result] = out.replies as [Envelope, Envelope];
    expect(result.in_reply_to).to.equal(agree.in_reply_to);
    expect(result.conversation_id).to.equal(cid);
    expect(spec.transport.status).to.equal('online');
    expect(coord.transport.status).to.equal('online');
    expect(spec.transport.queued + spec.agent.held).to.equal(0);
    expect(coord.agent.router.size + spec.agent.router.size).to.equal(0);
    // A stanza resent after the stream broke (XEP-0198, or the resend of what went out just before
    // the server died) that had already arrived is REPLAYED: recorded, never acted upon; a resent
    // request is answered again with the reply already sent (RepliesSent), which the requester
    // drops as REPLAYED too. So at most two copies of each of the two replies; nothing else rejected.
    const { REPLAYED: resent = 0, ...rejected } = coord.agent.counters.rejected;
    expect(rejected).to.deep.equal({});
    expect(resent).to.be.at.most(4);
  });
});
