// A host of many virtual agents keeps a bounded number of REGISTERs outstanding, at the start and
// again when a restarted Registry answers every heartbeat with FAILURE NOT_REGISTERED (issue 14 §3).
import { expect } from 'chai';
import { SimulatedClock } from 'xstate';
import { type Envelope, makeEnvelope } from '../../shared/acl/index.js';
import { silentLogger } from '../../shared/log/index.js';
import { ComponentHost, LeaseGroup } from '../../shared/runtime/component-host.js';
import {
  type DfRegistration, GATED_RETRY, registerWithDf, RegistrationGate,
} from '../../shared/runtime/registration.js';
import { useRoleBook, MemoryTelemetry } from '../../shared/runtime/index.js';
import type { AgentProfile } from '../../shared/contracts/index.js';
import { FakeTransport, inbound } from '../support/fake-transport.js';

const AGENTS = 300;
const LIMIT = 16;
const HEARTBEAT_MS = 1000;

async function hostOf(gate: RegistrationGate | undefined, group?: LeaseGroup) {
  const clock = new SimulatedClock();
  const t = new FakeTransport('agents.localhost');
  const host = new ComponentHost({ transport: t, domain: 'localhost', logger: silentLogger() });
  const agents = Array.from({ length: AGENTS }, (_, i) => host.host(`h-${String(i + 1).padStart(4, '0')}@agents.localhost`, { telemetry: new MemoryTelemetry(), clock }));
  await host.start();
  const firsts: string[] = [];
  const registrations: DfRegistration[] = agents.map((a) => {
    const profile = { jid: a.self.jid, name: a.name, version: '1', capabilities: ['ASK_EXPERT'], topics: ['math'] } as unknown as AgentProfile;
    return registerWithDf(a, profile, { heartbeatMs: HEARTBEAT_MS, ...(gate ? { gate } : {}), ...(group ? { group } : {}), onRegistered: (e) => void (e.count === 1 && firsts.push(a.self.jid)) });
  });
  let seen = 0;
  /** Envelopes sent since the last call, with the JID they went from. */
  const fresh = () => {
    const out = t.sent.slice(seen).map((m) => ({ from: m.from ?? '', env: JSON.parse(m.body ?? 'null') as Envelope }));
    seen = t.sent.length;
    return out;
  };
  const type = (e: Envelope) => (e.content as { type?: string }).type;
  /** The Registry's answer to `env`, as ejabberd would deliver it to `to`. */
  const answer = (to: string, env: Envelope, performative: 'INFORM' | 'FAILURE', content: object) =>
    t.deliver(inbound('registry@localhost', makeEnvelope({ performative, sender: 'Registry', receiver: env.sender, conversation_id: env.conversation_id, in_reply_to: env.reply_with, content }), { to }));
  /**
   * A Registry answering each REGISTER in the order it came, one at a time, while counting how
   * many were outstanding (sent, not answered) at most; returns that peak and how many it answered.
   */
  const serveRegisters = () => {
    const queue = fresh().filter((x) => type(x.env) === 'REGISTER');
    let peak = queue.length;
    let answered = 0;
    while (queue.length > 0) {
      const { from, env } = queue.shift()!;
      answer(from, env, 'INFORM', { type: 'REGISTERED', jid: from, lease_ms: 10 * HEARTBEAT_MS });
      answered += 1;
      queue.push(...fresh().filter((x) => type(x.env) === 'REGISTER'));
      peak = Math.max(peak, queue.length);
    }
    return { peak, answered };
  };
  return { clock, t, fresh, type, answer, serveRegisters, registrations, firsts };
}

describe('Runtime [registration gate] a host\'s REGISTERs outstanding are bounded, also after a Registry restart', () => {
  // The operator's enrolment makes a JID on agents.<domain> a specialist (names.ts identify).
  let previous: ReturnType<typeof useRoleBook>;
  before(() => {
    previous = useRoleBook({ roleOf: (jid) => (jid.endsWith('@agents.localhost') ? 'specialist' : undefined) });
  });
  after(() => useRoleBook(previous));

  it('hands out at most `limit` turns; a released turn goes to the next in line, a cancelled wait never runs', () => {
    const gate = new RegistrationGate(2);
    const ran: string[] = [];
    for (const k of ['a', 'b', 'c', 'd']) gate.acquire(k, () => ran.push(k));
    gate.acquire('a', () => ran.push('a again'));
    expect(ran).to.deep.equal(['a', 'b']);
    expect([gate.outstanding, gate.queued]).to.deep.equal([2, 2]);
    gate.release('c'); // gave up waiting (its agent stopped)
    gate.release('a');
    expect(ran).to.deep.equal(['a', 'b', 'd']);
    gate.release('x'); // never asked: nothing changes
    expect([gate.outstanding, gate.queued, gate.peak]).to.deep.equal([2, 0, 2]);
    expect(() => new RegistrationGate(0)).to.throw(/positive integer/);
  });

  it(`${AGENTS} agents: at most ${LIMIT} first REGISTERs outstanding, and again at most ${LIMIT} when the restarted Registry lost every lease`, async () => {
    const gate = new RegistrationGate(LIMIT);
    const h = await hostOf(gate);
    const first = h.serveRegisters();
    expect(first).to.deep.equal({ peak: LIMIT, answered: AGENTS });
    expect(h.firsts).to.have.length(AGENTS);
    expect([gate.outstanding, gate.queued]).to.deep.equal([0, 0]);

    // The Registry restarts: it knows nobody, so each heartbeat gets FAILURE NOT_REGISTERED.
    h.clock.increment(HEARTBEAT_MS);
    const beats = h.fresh().filter((x) => h.type(x.env) === 'HEARTBEAT');
    expect(beats).to.have.length(AGENTS);
    for (const b of beats) h.answer(b.from, b.env, 'FAILURE', { reason: 'NOT_REGISTERED', detail: 'unknown after restart' });
    expect(gate.outstanding).to.equal(LIMIT);
    expect(gate.queued).to.equal(AGENTS - LIMIT);
    const again = h.serveRegisters();
    expect(again).to.deep.equal({ peak: LIMIT, answered: AGENTS });
    expect(gate.peak).to.equal(LIMIT);
    // Everyone heartbeats again on its new lease; the first-registration callback did not fire twice.
    h.clock.increment(HEARTBEAT_MS);
    expect(h.fresh().filter((x) => h.type(x.env) === 'HEARTBEAT')).to.have.length(AGENTS);
    expect(h.firsts).to.have.length(AGENTS);
  });

  it('without a gate the same restart sends every REGISTER at once (what the gate prevents)', async () => {
    const h = await hostOf(undefined);
    expect(h.serveRegisters().peak).to.equal(AGENTS);
    h.clock.increment(HEARTBEAT_MS);
    for (const b of h.fresh().filter((x) => h.type(x.env) === 'HEARTBEAT')) h.answer(b.from, b.env, 'FAILURE', { reason: 'NOT_REGISTERED' });
    expect(h.serveRegisters().peak).to.equal(AGENTS);
  });

  it('an agent that stops while waiting for its turn gives it up without a DEREGISTER; one holding a turn passes it on', async () => {
    const gate = new RegistrationGate(LIMIT);
    const h = await hostOf(gate);
    const sent = h.fresh();
    expect(sent).to.have.length(LIMIT);
    // The last agent waits in line: it stops at once, nothing sent for it.
    const last = h.registrations[AGENTS - 1]!;
    expect(await last.deregister(100)).to.equal(true);
    expect(h.fresh()).to.have.length(0);
    expect(gate.queued).to.equal(AGENTS - LIMIT - 1);
    // The first holds a turn: it sends DEREGISTER, and its turn goes to the next in line at once.
    const stopping = h.registrations[0]!.deregister(100);
    const out = h.fresh();
    expect(out.map((x) => h.type(x.env))).to.deep.equal(['DEREGISTER']);
    h.answer(out[0]!.from, out[0]!.env, 'INFORM', { type: 'DEREGISTERED', jid: out[0]!.from });
    expect(await stopping).to.equal(true);
    expect(h.fresh().map((x) => h.type(x.env))).to.deep.equal(['REGISTER']);
    expect(gate.outstanding).to.equal(LIMIT);
  });
});

describe('Runtime [lease group] a gated host with one lease: one HEARTBEAT, and a lost lease sends everyone back through the gate', () => {
  let previous: ReturnType<typeof useRoleBook>;
  before(() => {
    previous = useRoleBook({ roleOf: (jid) => (jid.endsWith('@agents.localhost') ? 'specialist' : undefined) });
  });
  after(() => useRoleBook(previous));

  it(`${AGENTS} agents name the group, send no HEARTBEAT of their own, one beats for all; NOT_REGISTERED to it re-registers all ${LIMIT} at a time`, async () => {
    let pending: (() => void) | undefined;
    const group = new LeaseGroup(HEARTBEAT_MS, {
      set: ((fn: () => void) => ((pending = fn), { unref() {} })) as unknown as typeof setTimeout,
      clear: (() => (pending = undefined)) as unknown as typeof clearTimeout,
    });
    const fire = () => { const f = pending; pending = undefined; f?.(); };
    const gate = new RegistrationGate(LIMIT);
    const h = await hostOf(gate, group);
    const registers = h.fresh().filter((x) => h.type(x.env) === 'REGISTER');
    expect(registers.every((x) => (x.env.content as { profile: { lease_group?: string } }).profile.lease_group === group.id)).to.equal(true);
    for (const r of registers) h.answer(r.from, r.env, 'INFORM', { type: 'REGISTERED', jid: r.from, lease_ms: 10 * HEARTBEAT_MS });
    expect(h.serveRegisters().answered).to.equal(AGENTS - LIMIT);
    expect(h.firsts).to.have.length(AGENTS);
    expect((h.registrations[0]?.actor.getSnapshot() as { context: { retry: unknown } }).context.retry).to.deep.equal(GATED_RETRY);

    h.clock.increment(5 * HEARTBEAT_MS);
    expect(h.fresh().filter((x) => h.type(x.env) === 'HEARTBEAT')).to.have.length(0);
    fire();
    const beats = h.fresh().filter((x) => h.type(x.env) === 'HEARTBEAT');
    expect(beats).to.have.length(1);

    // The Registry lost its database: the one HEARTBEAT is answered NOT_REGISTERED.
    h.answer(beats[0]!.from, beats[0]!.env, 'FAILURE', { reason: 'NOT_REGISTERED', detail: 'unknown after restart' });
    expect(gate.outstanding).to.equal(LIMIT);
    expect(gate.queued).to.equal(AGENTS - LIMIT);
    expect(h.serveRegisters()).to.deep.equal({ peak: LIMIT, answered: AGENTS });
    expect(group.losses).to.equal(1);
    fire();
    expect(h.fresh().filter((x) => h.type(x.env) === 'HEARTBEAT')).to.have.length(1);
    group.close();
  });
});
