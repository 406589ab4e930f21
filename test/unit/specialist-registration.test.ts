import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../../shared/runtime/repo-root.js';
import type { SkillManifest } from '../../shared/skills/index.js';
import { expect } from 'chai';
import { createActor, SimulatedClock } from 'xstate';
import { type Envelope, makeEnvelope, errorContent } from '../../shared/acl/index.js';
import { validateEnvelope } from '../../shared/contracts/index.js';
import { buildProfile } from '../../agents/specialist/profile.js';
import { registrationMachine, type RegistrationEmitted } from '../../shared/runtime/registration.js';

const JID = 'specialist-math@localhost';
const profile = buildProfile({ jid: JID, name: 'specialist-math', version: '0.1.0', skills: [JSON.parse(fs.readFileSync(path.join(repoRoot(), 'skills', 'arithmetic', 'skill.json'), 'utf8')) as SkillManifest], maxConcurrent: 8, role: 'math' });

function start(heartbeatMs = 1000) {
  const clock = new SimulatedClock();
  const sent: Envelope[] = [];
  const registered: number[] = [];
  const actor = createActor(registrationMachine, {
    clock,
    input: {
      self: 'specialist-math', jid: JID, profile, conversationId: 'reg-specialist-math-1',
      heartbeatMs, retry: { initialMs: 500, maxMs: 4000 }, deregisterTimeoutMs: 1500,
    },
  });
  actor.on('send', (e) => {
    expect(validateEnvelope(e.envelope), JSON.stringify(e.envelope.content)).to.include({ ok: true });
    sent.push(e.envelope);
  });
  actor.on('registered', (e: RegistrationEmitted) => void (e.type === 'registered' && registered.push(e.lease_ms)));
  actor.start();
  // SimulatedClock fires due timers once per increment: advance in steps like real time does.
  const advance = (ms: number, step = 10) => {
    for (let t = 0; t < ms; t += step) clock.increment(Math.min(step, ms - t));
  };
  const kinds = () => sent.map((e) => (e.content as { type: string }).type);
  const last = () => sent[sent.length - 1]!;
  const reply = (to: Envelope, performative: 'INFORM' | 'FAILURE', content: object) =>
    actor.send({ type: 'inbound', envelope: makeEnvelope({ performative, sender: 'Registry', receiver: 'specialist-math', conversation_id: to.conversation_id, in_reply_to: to.reply_with, content }) });
  return { actor, clock, advance, sent, registered, kinds, last, reply };
}

describe('Specialist [registration] REGISTER, HEARTBEAT, re-register (docs/runtime.md §5)', () => {
  it('sends REQUEST REGISTER with its profile to the Registry at once', () => {
    const t = start();
    expect(t.sent).to.have.length(1);
    expect(t.last()).to.include({ performative: 'REQUEST', sender: 'specialist-math', receiver: 'Registry', conversation_id: 'reg-specialist-math-1' });
    expect(t.last().content).to.deep.equal({ type: 'REGISTER', profile });
    expect(profile).to.include({ jid: JID, name: 'specialist-math', version: '0.1.0', max_concurrent: 8 });
    expect(profile.capabilities).to.deep.equal(['ASK_EXPERT']);
    expect(profile.topics).to.include('arithmetic');
    expect(profile.examples).to.include('what is 17 * 23?');
  });

  it('retries REGISTER with exponential back-off while the Registry is silent', () => {
    const t = start();
    const at: number[] = [];
    for (let ms = 0; ms < 20000; ms += 100) {
      t.clock.increment(100);
      if (t.sent.length > at.length + 1) at.push(ms + 100);
    }
    // 500, +1000, +2000, +4000 (capped), +4000, …
    expect(at.slice(0, 6)).to.deep.equal([500, 1500, 3500, 7500, 11500, 15500]);
    expect(new Set(t.kinds())).to.deep.equal(new Set(['REGISTER']));
    expect(t.actor.getSnapshot().status).to.equal('active');
  });

  it('on REGISTERED announces once and heartbeats every PARLEY_HEARTBEAT_MS, forever', () => {
    const t = start(1000);
    t.clock.increment(200);
    t.reply(t.sent[0]!, 'INFORM', { type: 'REGISTERED', jid: JID, lease_ms: 15000 });
    expect(t.registered).to.deep.equal([15000]);
    t.clock.increment(999);
    expect(t.kinds()).to.deep.equal(['REGISTER']);
    t.clock.increment(1);
    expect(t.kinds()).to.deep.equal(['REGISTER', 'HEARTBEAT']);
    expect(t.last()).to.include({ performative: 'INFORM', receiver: 'Registry' });
    expect(t.last().content).to.deep.equal({ type: 'HEARTBEAT', jid: JID });
    t.advance(60000);
    expect(t.kinds().filter((k) => k === 'HEARTBEAT')).to.have.length(61);
    expect(t.actor.getSnapshot().status).to.equal('active');
    expect(t.registered).to.have.length(1);
  });

  it('heartbeats at least twice per lease when the DF grants a short one', () => {
    const t = start(5000);
    t.reply(t.sent[0]!, 'INFORM', { type: 'REGISTERED', jid: JID, lease_ms: 600 });
    t.advance(900);
    expect(t.kinds()).to.deep.equal(['REGISTER', 'HEARTBEAT', 'HEARTBEAT', 'HEARTBEAT']);
  });

  it('ignores a REGISTERED for another JID and keeps retrying', () => {
    const t = start();
    t.reply(t.sent[0]!, 'INFORM', { type: 'REGISTERED', jid: 'specialist-other@localhost', lease_ms: 15000 });
    expect(t.registered).to.deep.equal([]);
    t.clock.increment(500);
    expect(t.kinds()).to.deep.equal(['REGISTER', 'REGISTER']);
  });

  it('re-registers in a new conversation on FAILURE NOT_REGISTERED, then heartbeats again', () => {
    const t = start(1000);
    t.reply(t.sent[0]!, 'INFORM', { type: 'REGISTERED', jid: JID, lease_ms: 15000 });
    t.clock.increment(1000);
    t.reply(t.last(), 'FAILURE', errorContent('NOT_REGISTERED'));
    expect(t.kinds()).to.deep.equal(['REGISTER', 'HEARTBEAT', 'REGISTER']);
    expect(t.last().conversation_id).to.match(/^reg-specialist-math-[0-9a-f-]{36}$/);
    t.advance(5000);
    expect(t.kinds().filter((k) => k === 'HEARTBEAT')).to.have.length(1); // no heartbeats while unregistered
    t.reply(t.last(), 'INFORM', { type: 'REGISTERED', jid: JID, lease_ms: 15000 });
    t.clock.increment(1000);
    expect(t.kinds().slice(-1)).to.deep.equal(['HEARTBEAT']);
    expect(t.registered).to.deep.equal([15000, 15000]);
  });

  it('on DEREGISTER sends REQUEST DEREGISTER and stops on DEREGISTERED', () => {
    const t = start();
    t.reply(t.sent[0]!, 'INFORM', { type: 'REGISTERED', jid: JID, lease_ms: 15000 });
    t.actor.send({ type: 'DEREGISTER' });
    expect(t.last()).to.include({ performative: 'REQUEST' });
    expect(t.last().content).to.deep.equal({ type: 'DEREGISTER', jid: JID });
    expect(t.actor.getSnapshot().status).to.equal('active');
    t.reply(t.last(), 'INFORM', { type: 'DEREGISTERED', jid: JID });
    expect(t.actor.getSnapshot().status).to.equal('done');
  });

  it('stops after the DEREGISTER_TIMEOUT when the Registry is gone', () => {
    const t = start();
    t.actor.send({ type: 'DEREGISTER' });
    t.clock.increment(1499);
    expect(t.actor.getSnapshot().status).to.equal('active');
    t.clock.increment(1);
    expect(t.actor.getSnapshot().status).to.equal('done');
    expect(t.kinds()).to.deep.equal(['REGISTER', 'DEREGISTER']);
  });
});
