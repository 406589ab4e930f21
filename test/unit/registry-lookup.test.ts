// The DF lookup as a child actor (agents/coordinator/registry-lookup.ts, issue #10 §1): its
// QUERY-REFs reach the router through the parent, the Registry's answers reach it through the
// router's correlation and the parent, and it survives a crash mid-lookup — xstate restores it
// inside the parent's snapshot, the router re-arms its REGISTRY_TIMEOUT on it and pauses it with
// the exchange's own timers. SimulatedClock and a durable router over SQLite, as durable.test.ts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { type AnyStateMachine, SimulatedClock } from 'xstate';
import { type Envelope, replyTo } from '../../shared/acl/index.js';
import type { AgentProfile } from '../../shared/contracts/index.js';
import { silentLogger } from '../../shared/log/index.js';
import { identify, Router } from '../../shared/runtime/index.js';
import { ExchangeStore } from '../../shared/store/index.js';
import { userMsgFactory } from '../../agents/coordinator/factory.js';
import { REGISTRY_LOOKUP } from '../../agents/coordinator/registry-lookup.js';
import { parseMeet, type ScheduleRequest } from '../../agents/coordinator/scheduling/parse.js';
import { scheduleMachine } from '../../agents/coordinator/scheduling/schedule.js';
import { DOMAIN, T, userMsg } from './coordinator-harness.js';

const presenter = identify(`presenter@${DOMAIN}`, DOMAIN);
const registry = identify(`registry@${DOMAIN}`, DOMAIN);
const cal = (p: string): AgentProfile => ({ jid: `calendar-${p}@localhost`, name: `calendar-${p}`, version: '1', capabilities: ['CALENDAR'], topics: [p, `${p}@localhost`] });
const room = (n: string, capacity: number): AgentProfile => ({ jid: `${n}@rooms.localhost`, name: `room-${n}`, version: '1', capabilities: ['ROOM'], room: { capacity } });
const directory = (profiles: AgentProfile[]) => ({ type: 'DIRECTORY', agents: profiles.map((profile) => ({ profile, registered_at: '2026-12-09T09:00:00Z', last_seen: '2026-12-09T09:59:00Z' })) });

/** One Coordinator process over `file`, its clock at `now` (the restart time). */
function coordinator(file: string, now: number) {
  const clock = new SimulatedClock();
  clock.set(now);
  const store = new ExchangeStore(file, { now: () => clock.now() });
  const sent: Envelope[] = [];
  const router = new Router({ logger: silentLogger(), clock, persist: store, send: (envelope) => sent.push(envelope), note: () => undefined, crashed: () => undefined });
  router.on('USER_MSG', userMsgFactory({ self: 'Coordinator', domain: DOMAIN, timeouts: T }));
  const restore = (machine?: AnyStateMachine) => store.exchanges().map((rec) => router.restore(rec, machine));
  return { clock, store, sent, router, restore };
}

describe('Coordinator [DF lookup] one child actor asks the Registry, else REGISTRY_TIMEOUT', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-lookup-'));
    file = path.join(dir, 'coordinator-exchanges.sqlite');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("sends the child's QUERY-REF through the parent and persists the child's timer with the exchange", () => {
    const a = coordinator(file, 1_000_000);
    a.router.deliver(userMsg('help'), 'USER_MSG', presenter);
    expect(a.sent.map((e) => `${e.performative} ${e.receiver}`)).to.deep.equal(['QUERY-REF Registry']);
    const [rec] = a.store.exchanges();
    // The query's reply_with is the exchange's: the Registry's answer is routed to it.
    expect(rec?.outbound).to.include(a.sent[0]?.reply_with);
    expect(rec?.timers).to.have.length(1);
    expect(rec?.timers[0]).to.deep.include({ actor: REGISTRY_LOOKUP, deadline: 1_000_000 + T.registryTimeoutMs });
    a.store.close();
  });

  it('restored mid-lookup, the Registry silent: the REGISTRY_TIMEOUT re-armed on the child fires for the time left', () => {
    const a = coordinator(file, 1_000_000);
    a.router.deliver(userMsg('help'), 'USER_MSG', presenter);
    a.clock.increment(1000);
    a.store.close(); // SIGKILL

    const b = coordinator(file, 1_001_500); // 1.5 s of the 3 s left
    expect(b.restore().every(Boolean)).to.equal(true);
    b.clock.increment(1499);
    expect(b.sent).to.have.length(0);
    b.clock.increment(1);
    expect(b.sent.map((e) => `${e.performative} ${e.receiver} ${String(e.content.type)}`)).to.deep.equal(['INFORM Presenter PRESENTER_REPLY']);
    expect((b.sent[0]?.content.rich as { directory: string }).directory).to.equal('unavailable');
    expect(b.router.size).to.equal(0);
    b.store.close();
  });

  it('restored with one of two DESCRIBEs answered: the second answer after the restart completes the lookup', () => {
    const NOW = new Date('2026-12-09T10:00:00Z');
    const text = '/meet 30m bob 2026-12-10T09:00Z..2026-12-10T17:00Z room';
    const input = { wish: parseMeet(text, NOW) as ScheduleRequest, threadId: 'urn:uuid:00000000-0000-4000-8000-000000000002', now: NOW.toISOString(), oacopTimeoutMs: 5000 };
    const request = userMsg(text);
    const a = coordinator(file, 0);
    a.router.start('m-1', scheduleMachine, { request, from: presenter, self: 'Coordinator', domain: DOMAIN, timeouts: T, ...input }, request);
    const [calendars, rooms] = a.sent;
    expect([calendars?.content.capability, rooms?.content.capability]).to.deep.equal(['CALENDAR', 'ROOM']);
    a.router.deliver(replyTo(calendars as Envelope, { performative: 'INFORM', content: directory([cal('alice'), cal('bob')]) }), 'INFORM', registry);
    expect(a.sent).to.have.length(2); // still waiting for the rooms
    a.store.close();

    const b = coordinator(file, 500);
    expect(b.restore(scheduleMachine).every(Boolean)).to.equal(true);
    expect(b.router.deliver(replyTo(rooms as Envelope, { performative: 'INFORM', content: directory([room('atlas', 3)]) }), 'INFORM', registry)).to.deep.include({ outcome: 'routed' });
    expect(b.sent.filter((e) => e.performative === 'CFP').map((e) => e.receiver)).to.deep.equal(['calendar-alice', 'calendar-bob', 'room-atlas']);
    b.store.close();
  });

  it("pauses the child's timer with the exchange's while the server is away", () => {
    const a = coordinator(file, 0);
    a.router.deliver(userMsg('help'), 'USER_MSG', presenter);
    a.clock.increment(1000);
    expect(a.router.pauseTimers()).to.equal(1);
    a.clock.increment(10_000);
    expect(a.sent).to.have.length(1); // only the QUERY-REF: no timeout while paused
    expect(a.router.resumeTimers()).to.equal(1);
    a.clock.increment(T.registryTimeoutMs - 1000);
    expect(a.sent.map((e) => e.receiver)).to.deep.equal(['Registry', 'Presenter']);
    a.store.close();
  });
});
