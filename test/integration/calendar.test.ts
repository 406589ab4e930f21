// Calendar agents as real processes on a real ejabberd (docs/oacop.md): an in-process
// Coordinator proposes, confirms and cancels; the .ics comes out of `npm run calendar -- export`;
// an unknown DID scrapes (≤ 3 jittered slots, then rate-limited) and pays with burns made by
// `npm run ledger`; tasks go NEEDS-ACTION → the person's decision → TaskUpdate.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { expect } from 'chai';
import { type Envelope, makeEnvelope } from '../../shared/acl/index.js';
import { runtimeAgent, type RuntimeAgent } from '../../shared/bench/index.js';
import { intersectAll, parseCalendar } from '../../shared/calendar/index.js';
import { defaultCalendarConfig, writeCalendarConfig } from '../../shared/calendar/config.js';
import type { DirectoryEntry, Performative } from '../../shared/contracts/index.js';
import { repoRoot } from '../../shared/runtime/repo-root.js';
import { type AgentProcess, killAgents, spawnAgent } from '../support/agent-process.js';
import { NY_WEEKLY } from '../support/calendar-fixtures.js';
import { sharedInstance, type TestInstance } from '../support/ejabberd.js';
import { outputOf } from '../support/wait.js';
import { oneShot } from '../support/one-shot.js';


const WINDOW = { start: '2025-11-04T00:00:00Z', end: '2025-11-06T00:00:00Z' }; // Tue–Wed
type Slot = { start: string; end: string };

describe('Calendar [integration] calendar agent processes answering OACoP', function () {
  this.timeout(90000);
  const bob = `bob${randomUUID().slice(0, 6)}`;
  const carol = `carol${randomUUID().slice(0, 6)}`;
  const STRANGER = `did:key:z6Mk${randomUUID().replace(/-/g, '')}`;
  let inst: TestInstance;
  let coord: RuntimeAgent;
  const procs: AgentProcess[] = [];

  const cli = (script: string, ...args: string[]) => {
    const r = spawnSync(process.execPath, [path.join(repoRoot(), 'dist', 'scripts', script), ...args], { env: { ...process.env, ...inst.env }, encoding: 'utf8' });
    expect(r.status, `${script} ${args.join(' ')}: ${r.stderr}`).to.equal(0);
    return r.stdout;
  };
  const ask = async (person: string, performative: Performative, content: object): Promise<Envelope> => {
    const envelope = makeEnvelope({ performative, sender: 'Coordinator', receiver: `calendar-${person}`, conversation_id: `sess-${randomUUID()}`, ontology: 'OACoP', content });
    const actor = coord.agent.router.start(`${envelope.conversation_id}/q`, oneShot, { envelope });
    return outputOf<Envelope>(actor);
  };
  const propose = (person: string, threadId: string, revision: number, extra: object = {}) =>
    ask(person, 'CFP', { type: 'ProposeCollaboration', threadId, revision, object: { type: 'Event', duration: 'PT30M', title: 'Planning' }, constraints: { timeWindow: WINDOW }, ...extra });
  const slotsOf = (e: Envelope) => ((e.content as { availableSlots?: Slot[] }).availableSlots ?? []);
  const exported = (person: string) => parseCalendar(cli('calendar-cli.js', 'export', person)).getAllSubcomponents('vevent');

  before(async () => {
    inst = await sharedInstance();
    for (const [person, zone] of [[bob, 'UTC'], [carol, 'America/New_York']] as const) {
      writeCalendarConfig(inst.cfg, { ...defaultCalendarConfig(person, `${person}@${inst.cfg.domain}`, zone), rateLimit: { max: 3, windowMs: 60_000 } });
    }
    const ics = path.join(inst.cfg.home, 'bob-busy.ics');
    (await import('node:fs')).writeFileSync(ics, ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//t//EN', 'BEGIN:VEVENT', 'UID:dentist@t',
      'DTSTAMP:20251001T000000Z', 'DTSTART:20251104T100000Z', 'DTEND:20251104T120000Z', 'SUMMARY:Dentist', 'END:VEVENT', 'END:VCALENDAR', ''].join('\r\n'));
    expect(cli('calendar-cli.js', 'import', bob, ics)).to.match(/1 event component/);
    const nyFile = path.join(inst.cfg.home, 'carol-ny.ics');
    (await import('node:fs')).writeFileSync(nyFile, NY_WEEKLY);
    cli('calendar-cli.js', 'import', carol, nyFile);
    coord = await runtimeAgent(inst.cfg, 'coordinator', { telemetry: 'memory' });
    await coord.agent.start();
    procs.push(spawnAgent('agents/registry/main.js', inst.env));
    await procs[0]!.waitFor('online');
    for (const person of [bob, carol]) procs.push(spawnAgent('agents/calendar/main.js', { ...inst.env, PARLEY_CALENDAR_PERSON: person }));
    const t0 = Date.now();
    await Promise.all(procs.slice(1).map((p) => p.waitFor('registered', 30000)));
    console.log(`      two calendar agents registered in ${Date.now() - t0} ms`);
  });
  after(async () => {
    for (const p of procs) await p.stop();
    await coord?.agent.stop();
    killAgents();
  });

  it('registers with the DF as CALENDAR, naming the person', async () => {
    const reply = await (async () => {
      const envelope = makeEnvelope({ performative: 'QUERY-REF', sender: 'Coordinator', receiver: 'Registry', conversation_id: `sess-${randomUUID()}`, content: { type: 'DESCRIBE', capability: 'CALENDAR' } });
      return outputOf<Envelope>(coord.agent.router.start(`${envelope.conversation_id}/q`, oneShot, { envelope }));
    })();
    const entry = ((reply.content as { agents: DirectoryEntry[] }).agents).find((a) => a.profile.name === `calendar-${bob}`);
    expect(entry?.profile).to.deep.include({ capabilities: ['CALENDAR'], jid: `calendar-${bob}@${inst.cfg.domain}` });
    expect(entry?.profile.topics).to.include(bob);
  });

  it('answers ProposeCollaboration with free slots only (PROPOSE), and two calendars intersect', async () => {
    const t0 = performance.now();
    const [b, c] = await Promise.all([propose(bob, 'urn:uuid:it-m1', 1), propose(carol, 'urn:uuid:it-m1', 1)]);
    console.log(`      two proposals answered in ${(performance.now() - t0).toFixed(0)} ms`);
    expect([b.performative, c.performative]).to.deep.equal(['PROPOSE', 'PROPOSE']);
    expect(b).to.deep.include({ ontology: 'OACoP', sender: `calendar-${bob}` });
    expect(slotsOf(b)).to.deep.equal([
      { start: '2025-11-04T09:00:00Z', end: '2025-11-04T10:00:00Z' }, { start: '2025-11-04T12:00:00Z', end: '2025-11-04T17:00:00Z' },
      { start: '2025-11-05T09:00:00Z', end: '2025-11-05T17:00:00Z' },
    ]);
    expect(JSON.stringify(b.content)).not.to.include('Dentist');
    // carol: New York hours 14:00–22:00Z, Tuesday standup 15:00–16:00Z
    expect(slotsOf(c)[0]).to.deep.equal({ start: '2025-11-04T14:00:00Z', end: '2025-11-04T15:00:00Z' });
    const ms = (s: Slot[]) => s.map((x) => ({ start: Date.parse(x.start), end: Date.parse(x.end) }));
    const common = intersectAll([ms(slotsOf(b)), ms(slotsOf(c))]).map((i) => new Date(i.start).toISOString());
    expect(common).to.deep.equal(['2025-11-04T14:00:00.000Z', '2025-11-04T16:00:00.000Z', '2025-11-05T14:00:00.000Z']);
  });

  it('confirms: the exported .ics holds the VEVENT with UID = threadId and SEQUENCE 2', async () => {
    const ack = await ask(bob, 'ACCEPT-PROPOSAL', { type: 'ConfirmCollaboration', threadId: 'urn:uuid:it-m1', revision: 2, finalSlot: { start: '2025-11-04T14:00:00Z', end: '2025-11-04T14:30:00Z' } });
    expect(ack.performative).to.equal('INFORM');
    expect(ack.content).to.deep.include({ type: 'OACoPAck', status: 'CONFIRMED', revision: 2, uid: 'urn:uuid:it-m1', person: bob });
    const text = cli('calendar-cli.js', 'export', bob);
    expect(text).to.include('UID:urn:uuid:it-m1\r\n').and.include('SEQUENCE:2\r\n').and.include('SUMMARY:Planning\r\n');
    const ev = exported(bob).find((e) => e.getFirstPropertyValue('uid') === 'urn:uuid:it-m1');
    expect(String(ev?.getFirstPropertyValue('dtstart'))).to.equal('2025-11-04T14:00:00Z');
  });

  it('ignores a stale revision: Confirm rev 2 again → OACOP_STALE_REVISION, and the event keeps SEQUENCE 2', async () => {
    const stale = await ask(bob, 'ACCEPT-PROPOSAL', { type: 'ConfirmCollaboration', threadId: 'urn:uuid:it-m1', revision: 2, finalSlot: { start: '2025-11-05T09:00:00Z', end: '2025-11-05T09:30:00Z' } });
    expect(stale.performative).to.equal('FAILURE');
    expect(stale.content).to.deep.include({ type: 'OACoPError', code: 'OACOP_STALE_REVISION', revision: 2 });
    const late = await propose(bob, 'urn:uuid:it-m1', 1);
    expect(late.content).to.deep.include({ code: 'OACOP_STALE_REVISION' });
    const ev = exported(bob).find((e) => e.getFirstPropertyValue('uid') === 'urn:uuid:it-m1');
    expect([ev?.getFirstPropertyValue('sequence'), String(ev?.getFirstPropertyValue('dtstart'))]).to.deep.equal([2, '2025-11-04T14:00:00Z']);
  });

  it('answers OACOP_CONFLICT for a slot that is no longer free', async () => {
    const out = await ask(bob, 'ACCEPT-PROPOSAL', { type: 'ConfirmCollaboration', threadId: 'urn:uuid:it-m2', revision: 2, finalSlot: { start: '2025-11-04T14:15:00Z', end: '2025-11-04T14:45:00Z' } });
    expect(out.content).to.deep.include({ code: 'OACOP_CONFLICT' });
  });

  it('cancels: STATUS:CANCELLED with SEQUENCE 3 in the export, and the time is free again', async () => {
    const ack = await ask(bob, 'CANCEL', { type: 'CancelCollaboration', threadId: 'urn:uuid:it-m1', revision: 3, reason: 'SICKNESS' });
    expect(ack.content).to.deep.include({ type: 'OACoPAck', status: 'CANCELLED', revision: 3 });
    const ev = exported(bob).find((e) => e.getFirstPropertyValue('uid') === 'urn:uuid:it-m1');
    expect([ev?.getFirstPropertyValue('status'), ev?.getFirstPropertyValue('sequence')]).to.deep.equal(['CANCELLED', 3]);
    expect(slotsOf(await propose(bob, 'urn:uuid:it-m3', 1))[1]).to.deep.equal({ start: '2025-11-04T12:00:00Z', end: '2025-11-04T17:00:00Z' });
  });

  it('refuses an unknown DID without proofOfBurn: OACOP_PAYMENT_REQUIRED', async () => {
    const out = await propose(bob, 'urn:uuid:it-s0', 1, { sender: `${STRANGER}x` });
    expect(out.performative).to.equal('FAILURE');
    expect(out.content).to.deep.include({ type: 'OACoPError', code: 'OACOP_PAYMENT_REQUIRED' });
  });

  it('lets an unknown DID that burns scrape at most 3 jittered slots per request, then rate-limits it', async () => {
    expect(cli('ledger-cli.js', 'credit', STRANGER, '10')).to.include('balance 10');
    const starts = new Set<string>();
    for (let i = 1; i <= 3; i += 1) {
      const txId = cli('ledger-cli.js', 'burn', STRANGER, '1').trim();
      const out = await propose(bob, `urn:uuid:it-s${i}`, 1, { sender: STRANGER, proofOfBurn: { txId, amount: '1' } });
      expect(out.performative).to.equal('PROPOSE');
      const slots = slotsOf(out);
      expect(slots.length).to.be.within(1, 3);
      for (const s of slots) {
        expect(Date.parse(s.end) - Date.parse(s.start)).to.equal(30 * 60_000);
        expect(new Date(s.start).getUTCHours()).to.be.within(9, 16);
        expect(s.start >= '2025-11-04T10:00:00Z' && s.start < '2025-11-04T12:00:00Z', 'not inside the dentist').to.equal(false);
        starts.add(s.start);
      }
    }
    const offGrid = [...starts].filter((s) => Date.parse(s) % (15 * 60_000) !== 0);
    console.log(`      stranger saw ${starts.size} distinct starts, ${offGrid.length} off the quarter-hour grid`);
    expect(offGrid.length).to.be.greaterThan(0);
    const txId = cli('ledger-cli.js', 'burn', STRANGER, '1').trim();
    const limited = await propose(bob, 'urn:uuid:it-s4', 1, { sender: STRANGER, proofOfBurn: { txId } });
    expect(limited.performative).to.equal('REFUSE');
    expect(limited.content).to.deep.include({ reason: 'RATE_LIMITED' });
    expect(cli('ledger-cli.js', 'list')).to.include(`${STRANGER}\tbalance 6`);
  });

  it('accepts a DID from the trust list without a burn (trust added with the CLI while the agent runs)', async () => {
    const friend = 'did:key:z6MkFriendOfBob';
    cli('calendar-cli.js', 'trust', bob, friend);
    const out = await propose(bob, 'urn:uuid:it-t1', 1, { sender: friend });
    expect(out.performative).to.equal('PROPOSE');
    expect(slotsOf(out).length).to.equal(3); // unfuzzed free intervals
  });

  it('records AssignTask as VTODO NEEDS-ACTION, then applies the person\'s decision and answers TaskUpdate', async () => {
    const rec = await ask(bob, 'REQUEST', { type: 'AssignTask', threadId: 'urn:uuid:it-task', object: { type: 'Task', title: 'Q1 report' }, deadline: '2025-12-20T12:00:00Z' });
    expect(rec.content).to.deep.include({ type: 'OACoPAck', status: 'TASK_RECORDED', person: bob });
    expect(cli('calendar-cli.js', 'export', bob)).to.match(/BEGIN:VTODO\r\n[\s\S]*STATUS:NEEDS-ACTION/);
    const upd = await ask(bob, 'REQUEST', { type: 'TaskDecision', threadId: 'urn:uuid:it-task', status: 'COMPLETED', comment: 'sent' });
    expect(upd.performative).to.equal('INFORM');
    expect(upd.content).to.deep.equal({ type: 'TaskUpdate', threadId: 'urn:uuid:it-task', status: 'COMPLETED', progress: 100, comment: 'sent', person: bob });
    expect(cli('calendar-cli.js', 'export', bob)).to.include('STATUS:COMPLETED\r\n');
  });

  it('answers a schema violation with NOT-UNDERSTOOD before any handler runs', async () => {
    const out = await ask(bob, 'CFP', { type: 'ProposeCollaboration', threadId: 'not a uri', revision: 0, object: { type: 'Event' } });
    expect(out.performative).to.equal('NOT-UNDERSTOOD');
    expect(out.content).to.deep.include({ reason: 'SCHEMA_VIOLATION' });
  });
});
