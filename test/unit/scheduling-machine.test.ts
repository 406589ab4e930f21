import { expect } from 'chai';
import { fromPromise } from 'xstate';
import type { Envelope } from '../../shared/acl/index.js';
import type { AgentProfile } from '../../shared/contracts/index.js';
import { type HoldsInput, scheduleMachine } from '../../agents/coordinator/scheduling/schedule.js';
import { Holds } from '../../agents/coordinator/scheduling/holds.js';
import { parseMeet, type ScheduleRequest } from '../../agents/coordinator/scheduling/parse.js';
import type { MeetingRecord } from '../../agents/coordinator/scheduling/store.js';
import { harness, userMsg } from './coordinator-harness.js';
import { until } from '../support/wait.js';

const NOW = new Date('2026-12-09T10:00:00Z');
const THREAD = 'urn:uuid:00000000-0000-4000-8000-000000000001';
const cal = (p: string): AgentProfile => ({ jid: `calendar-${p}@localhost`, name: `calendar-${p}`, version: '1', capabilities: ['CALENDAR'], topics: [p, `${p}@localhost`] });
const room = (n: string, capacity: number): AgentProfile => ({ jid: `${n}@rooms.localhost`, name: `room-${n}`, version: '1', capabilities: ['ROOM'], room: { capacity } });
const dir = (profiles: AgentProfile[]) => ({ type: 'DIRECTORY', agents: profiles.map((profile) => ({ profile, registered_at: '2026-12-09T09:00:00Z', last_seen: '2026-12-09T09:59:00Z' })) });
const s = (a: string, b: string) => ({ start: `2026-12-10T${a}:00Z`, end: `2026-12-10T${b}:00Z` });

function start(text: string, wishOverride?: Partial<ScheduleRequest>) {
  const saved: MeetingRecord[] = [];
  const wish = { ...(parseMeet(text, NOW) as ScheduleRequest), ...wishOverride };
  const machine = scheduleMachine.provide({ actors: { save: fromPromise(async ({ input }: { input: MeetingRecord }) => { saved.push(input); }) } });
  const h = harness(machine, userMsg(text), { wish, threadId: THREAD, now: NOW.toISOString(), oacopTimeoutMs: 5000 });
  const to = (name: string, performative?: string) => h.sent.filter((e) => e.receiver === name && (!performative || e.performative === performative));
  const lastTo = (name: string, performative: string) => to(name, performative).at(-1) as Envelope;
  const answerDirectory = (calendars: AgentProfile[], rooms: AgentProfile[] = []) => {
    for (const q of h.sent.filter((e) => e.receiver === 'Registry')) {
      h.reply(q, 'INFORM', dir(q.content.capability === 'ROOM' ? rooms : calendars));
    }
  };
  const offer = (name: string, slots: object[]) =>
    h.reply(lastTo(name, 'CFP'), 'PROPOSE', { type: 'ProposalResponse', threadId: THREAD, respondingToRevision: lastTo(name, 'CFP').content.revision, status: 'INTERESTED', availableSlots: slots });
  const ack = (name: string) => {
    const c = lastTo(name, 'ACCEPT-PROPOSAL');
    h.reply(c, 'INFORM', { type: 'OACoPAck', threadId: THREAD, status: 'CONFIRMED', revision: c.content.revision });
  };
  const conflict = (name: string) => h.reply(lastTo(name, 'ACCEPT-PROPOSAL'), 'FAILURE', { type: 'OACoPError', code: 'OACOP_CONFLICT', message: 'taken', threadId: THREAD });
  // Not a sleep: the fake actors resolve in microtasks, which all run before a 0 ms timer fires.
  const settle = () => new Promise((r) => setTimeout(r, 0));
  return { ...h, saved, to, lastTo, answerDirectory, offer, ack, conflict, settle };
}

describe('Coordinator [schedule] the OACoP initiator flow (§3)', () => {
  it('proposes to everyone, confirms the earliest common slot with the smallest fitting room, and answers with the .ics', async () => {
    const t = start('/meet 30m bob,carol 2026-12-10T09:00Z..2026-12-10T17:00Z room');
    t.answerDirectory([cal('alice'), cal('bob'), cal('carol')], [room('atlas', 3), room('borealis', 8), room('dune', 2)]);
    const cfps = t.sent.filter((e) => e.performative === 'CFP');
    expect(cfps.map((e) => e.receiver)).to.deep.equal(['calendar-alice', 'calendar-bob', 'calendar-carol', 'room-atlas', 'room-borealis']);
    expect(cfps[0]?.ontology).to.equal('OACoP');
    expect(cfps[0]?.content).to.deep.include({ type: 'ProposeCollaboration', threadId: THREAD, revision: 1, sender: 'alice@localhost' });
    expect(cfps[0]?.content.constraints).to.deep.include({ requiredParticipants: ['calendar-alice', 'calendar-bob', 'calendar-carol'] });
    t.offer('calendar-alice', [s('09:00', '17:00')]);
    t.offer('calendar-bob', [s('11:00', '12:00')]);
    t.offer('calendar-carol', [s('09:00', '11:30')]);
    t.offer('room-atlas', [s('12:00', '17:00')]);
    t.offer('room-borealis', [s('09:00', '17:00')]);
    await t.settle();
    const confirms = t.sent.filter((e) => e.performative === 'ACCEPT-PROPOSAL');
    expect(confirms.map((e) => e.receiver)).to.deep.equal(['calendar-alice', 'calendar-bob', 'calendar-carol', 'room-borealis']);
    expect(confirms[0]?.content).to.deep.include({ revision: 2, finalSlot: s('11:00', '11:30') });
    expect(t.to('room-atlas', 'REJECT-PROPOSAL')).to.have.length(1);
    for (const n of ['calendar-alice', 'calendar-bob', 'calendar-carol', 'room-borealis']) t.ack(n);
    await t.settle();
    expect(t.saved).to.deep.equal([{ threadId: THREAD, organizer: 'alice@localhost', title: 'Meeting with bob, carol', slot: s('11:00', '11:30'), revision: 2, participants: ['calendar-alice', 'calendar-bob', 'calendar-carol'], room: 'room-borealis', status: 'CONFIRMED' }]);
    const reply = t.sent.find((e) => e.content.type === 'PRESENTER_REPLY') as Envelope;
    expect(reply.content.text).to.contain('Thu 10 Dec 2026, 11:00–11:30 UTC').and.contain('alice, bob and carol').and.contain('Room: borealis');
    const ics = (reply.content.rich as { ics: string }).ics;
    expect(ics).to.contain(`UID:${THREAD}`).and.contain('SEQUENCE:2').and.contain('DTSTART:20261210T110000Z').and.contain('LOCATION:borealis').and.contain('ATTENDEE;CN=carol');
    // Each invitee (not the organizer) is told through the Presenter, with the same invitation.
    const told = t.sent.filter((e) => e.content.type === 'NOTIFY_USER');
    expect(told.map((e) => e.content.user)).to.deep.equal(['bob@localhost', 'carol@localhost']);
    expect(told[0]?.content.text).to.equal('alice invited you to "Meeting with bob, carol", Thu 10 Dec 2026, 11:00–11:30 UTC in borealis. The invitation (.ics) follows.');
    expect((told[1]?.content.rich as { ics: string }).ics).to.equal(ics);
    expect(t.isDone()).to.equal(true);
  });

  it('an asker with no calendar here is told their own time was not checked', async () => {
    const t = start('/meet 30m bob 2026-12-10T09:00Z..2026-12-10T17:00Z');
    t.answerDirectory([cal('bob')]);
    t.offer('calendar-bob', [s('11:00', '12:00')]);
    await t.settle();
    t.ack('calendar-bob');
    await t.settle();
    const reply = t.sent.find((e) => e.content.type === 'PRESENTER_REPLY') as Envelope;
    expect(reply.content.text).to.contain('Participants: bob').and.contain('You have no calendar here, so your own time was not checked.');
    // With a calendar of their own (the test above), nothing of the kind is said.
    const own = start('/meet 30m bob 2026-12-10T09:00Z..2026-12-10T17:00Z');
    own.answerDirectory([cal('alice'), cal('bob')]);
    for (const n of ['calendar-alice', 'calendar-bob']) own.offer(n, [s('11:00', '12:00')]);
    await own.settle();
    for (const n of ['calendar-alice', 'calendar-bob']) own.ack(n);
    await own.settle();
    expect((own.sent.find((e) => e.content.type === 'PRESENTER_REPLY') as Envelope).content.text).to.not.contain('no calendar here');
  });

  it('a room alone ("book a room for 5 …", meet with "-"): the asker\'s calendar and the room are asked and booked', async () => {
    const t = start('meet 60m - 2026-12-10T09:00Z..2026-12-10T17:00Z room:5');
    expect(t.sent.filter((e) => e.receiver === 'Registry').map((e) => e.content.capability)).to.deep.equal(['CALENDAR', 'ROOM']);
    t.answerDirectory([cal('alice'), cal('bob')], [room('atlas', 3), room('borealis', 8)]);
    const cfps = t.sent.filter((e) => e.performative === 'CFP');
    expect(cfps.map((e) => e.receiver)).to.deep.equal(['calendar-alice', 'room-borealis']);
    t.offer('calendar-alice', [s('10:00', '17:00')]);
    t.offer('room-borealis', [s('09:00', '12:00')]);
    await t.settle();
    for (const n of ['calendar-alice', 'room-borealis']) t.ack(n);
    await t.settle();
    expect(t.saved[0]).to.deep.include({ title: 'Room booking', slot: s('10:00', '11:00'), participants: ['calendar-alice'], room: 'room-borealis', status: 'CONFIRMED' });
    const reply = t.sent.find((e) => e.content.type === 'PRESENTER_REPLY') as Envelope;
    expect(reply.content.text).to.contain('Thu 10 Dec 2026, 10:00–11:00 UTC').and.contain('Room: borealis');
    expect(t.sent.filter((e) => e.content.type === 'NOTIFY_USER'), 'nobody else to tell').to.have.length(0);
  });

  it('re-negotiates once when a confirm meets OACOP_CONFLICT (CFP rev 3, Confirm rev 4)', async () => {
    const t = start('/meet 30m bob 2026-12-10T09:00Z..2026-12-10T17:00Z');
    t.answerDirectory([cal('bob')]);
    t.offer('calendar-bob', [s('09:00', '10:00'), s('14:00', '15:00')]);
    await t.settle();
    t.conflict('calendar-bob');
    const second = t.lastTo('calendar-bob', 'CFP');
    expect(second.content.revision).to.equal(3);
    t.offer('calendar-bob', [s('14:00', '15:00')]);
    await t.settle();
    expect(t.lastTo('calendar-bob', 'ACCEPT-PROPOSAL').content).to.deep.include({ revision: 4, finalSlot: s('14:00', '14:30') });
    t.ack('calendar-bob');
    await t.settle();
    expect(t.notes.map((n) => n.decision)).to.include('re-negotiate: OACOP_CONFLICT');
    expect(t.last().content.text).to.contain('14:00–14:30').and.contain('negotiated a new time');
    expect(t.saved[0]?.revision).to.equal(4);
  });

  it('gives up after the second conflict and releases whoever confirmed (CANCEL rev + 1)', async () => {
    const t = start('/meet 30m bob,carol 2026-12-10T09:00Z..2026-12-10T17:00Z');
    t.answerDirectory([cal('bob'), cal('carol')]);
    for (let round = 0; round < 2; round += 1) {
      t.offer('calendar-bob', [s('09:00', '17:00')]);
      t.offer('calendar-carol', [s('09:00', '17:00')]);
      await t.settle();
      t.ack('calendar-bob');
      t.conflict('calendar-carol');
    }
    expect(t.to('calendar-bob', 'CFP')).to.have.length(2);
    const release = t.lastTo('calendar-bob', 'CANCEL');
    expect(release.content).to.deep.include({ type: 'CancelCollaboration', revision: 5 });
    // carol never confirmed, but a late confirm of hers must not stay either.
    expect(t.lastTo('calendar-carol', 'CANCEL').content).to.deep.include({ revision: 5 });
    expect(t.last().content.text).to.contain('could not book');
    expect(t.saved).to.have.length(0);
  });

  it('after a re-negotiation onto another room, the first room is released; a silent confirm is cancelled on failure', async () => {
    const t = start('/meet 30m bob 2026-12-10T09:00Z..2026-12-10T17:00Z room');
    t.answerDirectory([cal('bob')], [room('atlas', 3), room('borealis', 8)]);
    t.offer('calendar-bob', [s('09:00', '17:00')]);
    t.offer('room-atlas', [s('09:00', '17:00')]);
    t.offer('room-borealis', [s('09:00', '17:00')]);
    await t.settle();
    t.ack('room-atlas');
    t.conflict('calendar-bob');
    t.offer('calendar-bob', [s('10:00', '17:00')]);
    t.offer('room-atlas', [s('12:00', '17:00')]);
    t.offer('room-borealis', [s('09:00', '17:00')]);
    await t.settle();
    expect(t.lastTo('room-borealis', 'ACCEPT-PROPOSAL').content).to.deep.include({ revision: 4, finalSlot: s('10:00', '10:30') });
    t.ack('calendar-bob');
    t.ack('room-borealis');
    await t.settle();
    expect(t.lastTo('room-atlas', 'CANCEL').content).to.deep.include({ type: 'CancelCollaboration', revision: 5 });
    expect(t.to('room-borealis', 'CANCEL')).to.have.length(0);
    expect(t.saved[0]).to.deep.include({ room: 'room-borealis', revision: 4 });

    const u = start('/meet 30m bob 2026-12-10T09:00Z..2026-12-10T17:00Z');
    u.answerDirectory([cal('bob')]);
    u.offer('calendar-bob', [s('09:00', '17:00')]);
    await u.settle();
    u.clock.increment(5000);
    await u.settle();
    expect(u.lastTo('calendar-bob', 'CANCEL').content).to.deep.include({ revision: 3 });
    expect(u.last().content.text).to.contain('bob did not confirm in time');
  });

  it('goes on without a silent optional participant after OACOP_TIMEOUT, and names a silent required one', async () => {
    const t = start('/meet 30m bob,carol? 2026-12-10T09:00Z..2026-12-10T17:00Z');
    t.answerDirectory([cal('bob'), cal('carol')]);
    t.offer('calendar-bob', [s('10:00', '11:00')]);
    t.clock.increment(4999);
    expect(t.to('calendar-bob', 'ACCEPT-PROPOSAL')).to.have.length(0);
    t.clock.increment(1);
    await t.settle();
    expect(t.lastTo('calendar-bob', 'ACCEPT-PROPOSAL').content.finalSlot).to.deep.equal(s('10:00', '10:30'));
    expect(t.to('calendar-carol', 'ACCEPT-PROPOSAL')).to.have.length(0);

    const u = start('/meet 30m bob,carol 2026-12-10T09:00Z..2026-12-10T17:00Z');
    u.answerDirectory([cal('bob'), cal('carol')]);
    u.offer('calendar-bob', [s('10:00', '11:00')]);
    u.clock.increment(5000);
    await u.settle();
    expect(u.last().content.text).to.contain('carol did not answer in time');
    expect(u.isDone()).to.equal(true);
  });

  it('holds a slot another meeting in flight is confirming: the next earliest is chosen', async () => {
    const holds = new Holds(60000, () => 0);
    holds.reserve('urn:uuid:other', ['calendar-bob'], s('09:00', '09:30'));
    const saved: MeetingRecord[] = [];
    const machine = scheduleMachine.provide({
      actors: {
        save: fromPromise(async ({ input }: { input: MeetingRecord }) => { saved.push(input); }),
        holds: fromPromise(async ({ input }: { input: HoldsInput }) => holds.held(input.parties, input.threadId)),
        reserve: fromPromise(async ({ input }: { input: HoldsInput & { slot: { start: string; end: string } } }) => holds.reserve(input.threadId, input.parties, input.slot)),
      },
    });
    const wish = parseMeet('/meet 30m bob 2026-12-10T09:00Z..2026-12-10T17:00Z', NOW) as ScheduleRequest;
    const h = harness(machine, userMsg('x'), { wish, threadId: THREAD, now: NOW.toISOString(), oacopTimeoutMs: 5000 });
    for (const q of h.sent.filter((e) => e.receiver === 'Registry')) h.reply(q, 'INFORM', dir([cal('bob')]));
    const cfp = h.sent.find((e) => e.performative === 'CFP') as Envelope;
    h.reply(cfp, 'PROPOSE', { type: 'ProposalResponse', threadId: THREAD, respondingToRevision: 1, status: 'INTERESTED', availableSlots: [s('09:00', '12:00')] });
    await until(() => h.last().performative === 'ACCEPT-PROPOSAL', 'the confirmation', 2000, 1);
    expect(h.last().content).to.deep.include({ type: 'ConfirmCollaboration', finalSlot: s('09:30', '10:00') });
    expect(holds.reserve('urn:uuid:third', ['calendar-bob'], s('09:45', '10:15'))).to.equal(false);
  });

  it('says so when a name has no calendar, or no room has the seats, or the directory is silent', () => {
    const t = start('/meet 30m bob,zed 2026-12-10T09:00Z..2026-12-10T17:00Z');
    t.answerDirectory([cal('bob')]);
    expect(t.last().content.text).to.equal("I don't know a calendar for zed. Only people with a calendar agent can be invited.");
    expect(t.sent.filter((e) => e.performative === 'CFP')).to.have.length(0);

    const r = start('/meet 30m bob 2026-12-10T09:00Z..2026-12-10T17:00Z room:30');
    r.answerDirectory([cal('bob')], [room('atlas', 3)]);
    expect(r.last().content.text).to.equal('No room can seat 30 people; the largest is atlas (3 seats).');

    // A name no room has (often a word after "in"), and a named room too small: the rooms there are.
    const n = start('/meet 30m bob 2026-12-10T09:00Z..2026-12-10T17:00Z berlin');
    n.answerDirectory([cal('bob')], [room('cosmos', 12), room('atlas', 3)]);
    expect(n.last().content.text).to.equal('There is no room called "berlin". The rooms: atlas (3 seats), cosmos (12 seats).');
    const small = start('/meet 30m bob,carol,dave 2026-12-10T09:00Z..2026-12-10T17:00Z atlas');
    small.answerDirectory([cal('bob'), cal('carol'), cal('dave')], [room('cosmos', 12), room('atlas', 3)]);
    // Seats: the three invited and the asker, who has no calendar here.
    expect(small.last().content.text).to.equal('atlas has 3 seats, not 4. Rooms for 4: cosmos (12 seats).');

    const d = start('/meet 30m bob 2026-12-10T09:00Z..2026-12-10T17:00Z');
    d.clock.increment(3000);
    expect(d.last().content.rich).to.deep.include({ status: 'directory-unavailable' });
  });

  it('a required participant with no free time (DECLINED) ends it with the truthful reason: busy then, not declined', async () => {
    const t = start('/meet 30m bob 2026-12-10T09:00Z..2026-12-10T17:00Z');
    t.answerDirectory([cal('bob')]);
    t.reply(t.lastTo('calendar-bob', 'CFP'), 'REFUSE', { type: 'ProposalResponse', threadId: THREAD, respondingToRevision: 1, status: 'DECLINED', availableSlots: [] });
    await t.settle();
    // Busy is curable by time: a second round asks for the 3 days after the window, to suggest the nearest times.
    const again = t.lastTo('calendar-bob', 'CFP');
    expect(again.content).to.deep.include({ revision: 2 });
    expect((again.content.constraints as { timeWindow: unknown }).timeWindow).to.deep.equal({ start: '2026-12-10T17:00:00.000Z', end: '2026-12-13T17:00:00.000Z' });
    t.offer('calendar-bob', [{ start: '2026-12-11T09:00:00Z', end: '2026-12-11T10:00:00Z' }, { start: '2026-12-12T14:00:00Z', end: '2026-12-12T14:30:00Z' }]);
    await t.settle();
    expect(t.to('calendar-bob', 'ACCEPT-PROPOSAL'), 'nothing is booked outside the asked window').to.have.length(0);
    expect(t.last().content.text).to.equal([
      'I could not find 30 minutes that everyone required can make between Thu 10 Dec 2026, 09:00–17:00 UTC.',
      '• bob is busy then',
      'The nearest times that work for everyone:',
      '1. Fri 11 Dec 2026, 09:00–09:30 UTC',
      '2. Fri 11 Dec 2026, 09:30–10:00 UTC',
      '3. Sat 12 Dec 2026, 14:00–14:30 UTC',
      'To book one, reply its number (1–3). The first in full: meet 30m bob 2026-12-11T09:00Z..2026-12-11T09:30Z',
    ].join('\n'));
    expect(t.last().content.text).to.not.contain('declined');
  });

  it('a calendar with no working time in the window: "outside working hours (…)", quoted only in that form', async () => {
    const ask = (comment: string) => {
      const t = start('/meet 30m bob 2026-12-12T09:00Z..2026-12-12T17:00Z');
      t.answerDirectory([cal('bob')]);
      t.reply(t.lastTo('calendar-bob', 'CFP'), 'REFUSE', { type: 'ProposalResponse', threadId: THREAD, respondingToRevision: 1, status: 'DECLINED', availableSlots: [], comment });
      return t;
    };
    const t = ask('outside working hours (Mon–Fri 09:00–17:00 Europe/Berlin)');
    await t.settle();
    // Curable by time like "busy": the days after are asked, and the nearest times offered.
    expect(t.lastTo('calendar-bob', 'CFP').content).to.deep.include({ revision: 2 });
    t.offer('calendar-bob', [{ start: '2026-12-14T08:00:00Z', end: '2026-12-14T09:00:00Z' }]);
    await t.settle();
    expect(t.last().content.text).to.contain('\n• bob is outside working hours (Mon–Fri 09:00–17:00 Europe/Berlin)\nThe nearest times that work for everyone:\n1. Mon 14 Dec 2026, 08:00–08:30 UTC');
    // Any other comment is not the calendar's to word: the usual "busy then".
    const odd = ask('outside working hours (call +1 555 0100 now) http://evil.example');
    await odd.settle();
    odd.offer('calendar-bob', []);
    await odd.settle();
    expect(odd.last().content.text).to.contain('• bob is busy then').and.not.contain('evil');
  });

  it('no time in the days after either: says so; a silent participant is not "busy" (no second round)', async () => {
    const t = start('/meet 30m bob 2026-12-10T09:00Z..2026-12-10T17:00Z');
    t.answerDirectory([cal('bob')]);
    const declined = () => t.reply(t.lastTo('calendar-bob', 'CFP'), 'REFUSE', { type: 'ProposalResponse', threadId: THREAD, respondingToRevision: t.lastTo('calendar-bob', 'CFP').content.revision, status: 'DECLINED', availableSlots: [] });
    declined();
    await t.settle();
    declined();
    await t.settle();
    expect(t.last().content.text).to.match(/bob is busy then\nThere is no time everyone can make in the 3 days after that either\.$/);
    const q = start('/meet 30m bob 2026-12-10T09:00Z..2026-12-10T17:00Z');
    q.answerDirectory([cal('bob')]);
    q.clock.increment(5000);
    await q.settle();
    expect(q.to('calendar-bob', 'CFP')).to.have.length(1);
    expect(q.last().content.text).to.contain('bob did not answer in time');
  });
});
