import { expect } from 'chai';
import type { Envelope } from '../../shared/acl/index.js';
import type { AgentProfile } from '../../shared/contracts/index.js';
import { classifyIntent } from '../../agents/coordinator/intent.js';
import { type FreeTimeQuestion, parseFreeTime } from '../../agents/coordinator/scheduling/free-time.js';
import { freeTimeMachine } from '../../agents/coordinator/scheduling/free-time-machine.js';
import { harness, T, userMsg } from './coordinator-harness.js';

// Wednesday 9 December 2026, 10:00 UTC.
const NOW = new Date('2026-12-09T10:00:00Z');
const THREAD = 'urn:uuid:00000000-0000-4000-8000-0000000000f7';
const cal = (p: string): AgentProfile => ({ jid: `calendar-${p}@localhost`, name: `calendar-${p}`, version: '1', capabilities: ['CALENDAR'], topics: [p, `${p}@localhost`] });
const dir = (profiles: AgentProfile[]) => ({ type: 'DIRECTORY', agents: profiles.map((profile) => ({ profile, registered_at: '2026-12-09T09:00:00Z', last_seen: '2026-12-09T09:59:00Z' })) });
const s = (a: string, b: string, day = '10') => ({ start: `2026-12-${day}T${a}:00Z`, end: `2026-12-${day}T${b}:00Z` });

describe('Coordinator [free time] "when is bob free on thursday?" asked of the calendars, nothing booked', () => {
  it('reads who and when: "am I", "is bob", "are bob and carol", a day, a part of it, an hour; not questions about things', () => {
    expect(parseFreeTime('when is bob free tomorrow?', NOW)).to.deep.equal({ kind: 'free-time', people: ['bob'], window: { start: '2026-12-10T08:00:00.000Z', end: '2026-12-10T18:00:00.000Z' } });
    expect(parseFreeTime('are bob and carol free tomorrow afternoon?', NOW)).to.deep.include({ people: ['bob', 'carol'], window: { start: '2026-12-10T12:00:00.000Z', end: '2026-12-10T18:00:00.000Z' } });
    const at = parseFreeTime('am I free tomorrow at 3pm?', NOW, 'Europe/Berlin') as FreeTimeQuestion;
    expect(at.people).to.deep.equal(['me']);
    expect(at.slot).to.deep.equal({ start: '2026-12-10T14:00:00.000Z', end: '2026-12-10T14:30:00.000Z' });
    expect(at.window, 'the whole day, to say when instead').to.deep.equal({ start: '2026-12-10T07:00:00.000Z', end: '2026-12-10T17:00:00.000Z' });
    // Nothing said: the rest of today's working hours.
    expect(parseFreeTime('am i busy tomorrow', NOW)).to.deep.equal({ kind: 'free-time', people: ['me'], window: { start: '2026-12-10T08:00:00.000Z', end: '2026-12-10T18:00:00.000Z' }, busy: true });
    expect(parseFreeTime('is bob busy tomorrow at 3pm?', NOW)).to.deep.include({ people: ['bob'], slot: { start: '2026-12-10T15:00:00.000Z', end: '2026-12-10T15:30:00.000Z' }, busy: true });
    expect(parseFreeTime('is it busy in there?', NOW)).to.equal(undefined);
    expect(parseFreeTime('is bob available?', NOW)).to.deep.include({ window: { start: '2026-12-09T10:00:00.000Z', end: '2026-12-09T18:00:00.000Z' } });
    // … after hours on a Friday, or on a weekend: Monday's (a weekend day read "outside working hours", by hand on npm start).
    expect(parseFreeTime('when is bob free?', new Date('2026-12-11T19:00:00Z'))).to.deep.include({ window: { start: '2026-12-14T08:00:00.000Z', end: '2026-12-14T18:00:00.000Z' } });
    expect(parseFreeTime('when is bob free?', new Date('2026-12-13T09:00:00Z'))).to.deep.include({ window: { start: '2026-12-14T08:00:00.000Z', end: '2026-12-14T18:00:00.000Z' } });
    // A weekend day named is asked as said.
    expect(parseFreeTime('when is bob free on saturday?', NOW)).to.deep.include({ window: { start: '2026-12-12T08:00:00.000Z', end: '2026-12-12T18:00:00.000Z' } });
    expect(parseFreeTime('are bob and I free tomorrow?', NOW)).to.deep.include({ people: ['bob', 'me'] });
    expect(parseFreeTime('when are bob, carol and me free tomorrow?', NOW)).to.deep.include({ people: ['bob', 'carol', 'me'] });
    for (const line of ['is it free?', 'are you free tonight?', 'is this free software?', 'what is free time?']) expect(parseFreeTime(line, NOW), line).to.equal(undefined);
    expect(classifyIntent('When is Bob free on Thursday?', NOW)).to.deep.include({ kind: 'scheduling' });
  });

  function ask(text: string, calendars: AgentProfile[], user = 'alice@localhost', rooms: AgentProfile[] = []) {
    const question = parseFreeTime(text, NOW) as FreeTimeQuestion;
    const h = harness(freeTimeMachine, userMsg(text, user), { question, threadId: THREAD, oacopTimeoutMs: 5000 });
    for (const q of h.sent.filter((e) => e.receiver === 'Registry')) h.reply(q, 'INFORM', dir(q.content.capability === 'ROOM' ? rooms : calendars));
    const cfp = (name: string) => h.sent.find((e) => e.receiver === name && e.performative === 'CFP') as Envelope;
    const offer = (name: string, slots: object[]) => h.reply(cfp(name), 'PROPOSE', { type: 'ProposalResponse', threadId: THREAD, respondingToRevision: 1, status: 'INTERESTED', availableSlots: slots });
    const decline = (name: string, comment?: string) => h.reply(cfp(name), 'REFUSE', { type: 'ProposalResponse', threadId: THREAD, respondingToRevision: 1, status: 'DECLINED', availableSlots: [], ...(comment ? { comment } : {}) });
    return { ...h, cfp, offer, decline };
  }

  it('one person: a CFP for the window to their calendar, then REJECT-PROPOSAL (nothing kept), and their free time with a command that books it', () => {
    const t = ask('when is bob free tomorrow?', [cal('alice'), cal('bob')]);
    expect(t.cfp('calendar-bob').content).to.deep.include({ type: 'ProposeCollaboration', revision: 1, threadId: THREAD });
    expect(t.sent.filter((e) => e.performative === 'CFP').map((e) => e.receiver)).to.deep.equal(['calendar-bob']);
    t.offer('calendar-bob', [s('09:00', '10:00'), s('13:30', '17:00')]);
    const reject = t.sent.find((e) => e.performative === 'REJECT-PROPOSAL') as Envelope;
    expect(reject).to.deep.include({ receiver: 'calendar-bob' });
    expect(reject.content).to.deep.include({ type: 'CancelCollaboration', threadId: THREAD, revision: 2 });
    expect(t.sent.some((e) => e.performative === 'ACCEPT-PROPOSAL'), 'nothing is booked').to.equal(false);
    expect(t.last().content.text).to.equal([
      "bob's free time, Thu 10 Dec 2026, 08:00–18:00 UTC: 09:00–10:00, 13:30–17:00.", 'To book 30 minutes with bob, reply its number (1–3):',
      // The first half-hour of each free interval, then more an hour apart (one free afternoon is not one choice).
      '1. Thu 10 Dec 2026, 09:00–09:30 UTC', '2. Thu 10 Dec 2026, 13:30–14:00 UTC', '3. Thu 10 Dec 2026, 14:30–15:00 UTC', 'The first in full: meet 30m bob 2026-12-10T09:00Z..2026-12-10T09:30Z',
    ].join('\n'));
    // Each a choice: "2" books it in any client (agents/presenter/shown-choices.ts), a form where the client has forms.
    expect((t.last().content.rich as { choices: Array<{ say: string }> }).choices.map((c) => c.say))
      .to.deep.equal(['meet 30m bob 2026-12-10T09:00Z..2026-12-10T09:30Z', 'meet 30m bob 2026-12-10T13:30Z..2026-12-10T14:00Z', 'meet 30m bob 2026-12-10T14:30Z..2026-12-10T15:00Z']);
    expect(t.isDone()).to.equal(true);
  });

  it('"am I free at 3pm?": yes, or no with why and the free time that day', () => {
    const yes = ask('am I free tomorrow at 3pm?', [cal('alice')]);
    expect(yes.cfp('calendar-alice').content.object).to.deep.include({ duration: 'PT30M' });
    yes.offer('calendar-alice', [s('14:00', '16:00')]);
    expect(yes.last().content.text).to.equal('Yes: you are free Thu 10 Dec 2026, 15:00–15:30 UTC.');
    const no = ask('am I free tomorrow at 3pm?', [cal('alice')]);
    no.offer('calendar-alice', [s('09:00', '11:00'), s('16:00', '18:00')]);
    expect(no.last().content.text).to.equal('No: Thu 10 Dec 2026, 15:00–15:30 UTC does not suit you.\n• you: busy then; free that day 09:00–11:00, 16:00–18:00');
    // Asked the other way round, the yes and the no are too.
    const busy = ask('am I busy tomorrow at 3pm?', [cal('alice')]);
    busy.offer('calendar-alice', [s('09:00', '11:00'), s('16:00', '18:00')]);
    expect(busy.last().content.text).to.equal('Yes: Thu 10 Dec 2026, 15:00–15:30 UTC does not suit you.\n• you: busy then; free that day 09:00–11:00, 16:00–18:00');
    const idle = ask('am I busy tomorrow at 3pm?', [cal('alice')]);
    idle.offer('calendar-alice', [s('14:00', '16:00')]);
    expect(idle.last().content.text).to.equal('No: you are free Thu 10 Dec 2026, 15:00–15:30 UTC.');
  });

  it('several people: each one\'s free time and what all share; busy, outside working hours and silence said truthfully', () => {
    const t = ask('are bob, carol and dave free tomorrow?', [cal('bob'), cal('carol'), cal('dave')]);
    t.offer('calendar-bob', [s('09:00', '12:00')]);
    t.offer('calendar-carol', [s('11:00', '15:00')]);
    t.decline('calendar-dave', 'outside working hours (Mon–Fri 09:00–17:00 UTC)');
    expect(t.last().content.text).to.equal([
      'Free time, Thu 10 Dec 2026, 08:00–18:00 UTC:', '• bob: 09:00–12:00', '• carol: 11:00–15:00', '• dave: outside working hours (Mon–Fri 09:00–17:00 UTC)', 'There is no time when all are free.',
    ].join('\n'));
    expect(t.sent.filter((e) => e.performative === 'REJECT-PROPOSAL').map((e) => e.receiver).sort()).to.deep.equal(['calendar-bob', 'calendar-carol']);

    const two = ask('are bob and carol free tomorrow?', [cal('bob'), cal('carol')]);
    two.offer('calendar-bob', [s('09:00', '12:00')]);
    two.clock.increment(5000); // carol's calendar is silent
    expect(two.last().content.text).to.contain('• carol: did not answer in time').and.contain('There is no time when all are free.');
    const both = ask('are bob and carol free tomorrow?', [cal('bob'), cal('carol')]);
    both.offer('calendar-bob', [s('09:00', '12:00')]);
    both.offer('calendar-carol', [s('11:00', '15:00')]);
    expect(both.last().content.text).to.contain('All free: 11:00–12:00.');
    // A calendar cannot put its own words in the person's chat: any other comment is "busy then".
    const sly = ask('is bob free tomorrow?', [cal('bob')]);
    sly.decline('calendar-bob', 'visit http://evil.example');
    expect(sly.last().content.text).to.equal('bob has no free time Thu 10 Dec 2026, 08:00–18:00 UTC: busy then.');
  });

  it('"find a time for bob and me next week", "when can bob and I meet?": the times they share, each a choice that books it', () => {
    // Each got "I can't help with that one" (tried by hand on npm start).
    const nextWeek = { start: '2026-12-14T08:00:00.000Z', end: '2026-12-18T18:00:00.000Z' };
    expect(parseFreeTime('find a time for bob and me next week', NOW)).to.deep.equal({ kind: 'free-time', people: ['bob', 'me'], window: nextWeek });
    expect(parseFreeTime('can you find me a slot with bob next week?', NOW)).to.deep.equal({ kind: 'free-time', people: ['bob', 'me'], window: nextWeek });
    expect(parseFreeTime('find a time for a meeting with bob and carol tomorrow', NOW)).to.deep.include({ people: ['bob', 'carol', 'me'] });
    expect(parseFreeTime('when can bob and I meet?', NOW)).to.deep.include({ people: ['bob', 'me'] });
    expect(parseFreeTime('when can I meet bob on friday?', NOW)).to.deep.include({ people: ['bob', 'me'], window: { start: '2026-12-11T08:00:00.000Z', end: '2026-12-11T18:00:00.000Z' } });
    expect(parseFreeTime('is there a time bob and carol are both free on friday?', NOW)).to.deep.include({ people: ['bob', 'carol'] });
    expect(parseFreeTime('are bob and carol both free tomorrow?', NOW), '"both" is nobody').to.deep.include({ people: ['bob', 'carol'] });
    for (const line of ['when can we meet?', 'find a time', 'find the time to read']) expect(parseFreeTime(line, NOW), line).to.equal(undefined);
    // Without names, who is asked back.
    for (const line of ['when can we meet?', 'find a time', 'find us a slot.']) {
      expect(classifyIntent(line, NOW), line).to.deep.equal({ kind: 'scheduling', command: { kind: 'scheduling-error', detail: 'With whom? Say e.g. "find a time for bob and me next week" or "when can bob and I meet?".' } });
    }

    const t = ask('find a time with bob tomorrow', [cal('alice'), cal('bob')]);
    t.offer('calendar-bob', [s('09:00', '12:00'), s('14:00', '16:00')]);
    t.offer('calendar-alice', [s('10:00', '11:00'), s('15:00', '18:00')]);
    expect(t.last().content.text).to.equal([
      'Free time, Thu 10 Dec 2026, 08:00–18:00 UTC:', '• bob: 09:00–12:00, 14:00–16:00', '• you: 10:00–11:00, 15:00–18:00', 'All free: 10:00–11:00, 15:00–16:00.',
      'To book 30 minutes with bob, reply its number (1–2):', '1. Thu 10 Dec 2026, 10:00–10:30 UTC', '2. Thu 10 Dec 2026, 15:00–15:30 UTC',
      'The first in full: meet 30m bob 2026-12-10T10:00Z..2026-12-10T10:30Z',
    ].join('\n'));
    expect((t.last().content.rich as { choices: Array<{ say: string }> }).choices.map((c) => c.say))
      .to.deep.equal(['meet 30m bob 2026-12-10T10:00Z..2026-12-10T10:30Z', 'meet 30m bob 2026-12-10T15:00Z..2026-12-10T15:30Z']);
    // Without the asker among them, nothing to book: the asker's own time was never asked.
    const others = ask('are bob and carol free tomorrow?', [cal('bob'), cal('carol')]);
    others.offer('calendar-bob', [s('09:00', '12:00')]);
    others.offer('calendar-carol', [s('11:00', '15:00')]);
    expect(others.last().content.text).to.not.contain('To book');
    expect((others.last().content.rich as { choices?: unknown[] } | undefined)?.choices ?? []).to.deep.equal([]);
  });

  it('someone without a calendar, or an asker without one, is told so; no CFP goes out', () => {
    const zed = ask('is zed free tomorrow?', [cal('bob')]);
    expect(zed.last().content.text).to.equal("I don't know a calendar or room for zed. Only people with a calendar agent, and rooms, can be asked.");
    expect(zed.sent.filter((e) => e.performative === 'CFP')).to.have.length(0);
    const me = ask('am I free tomorrow?', [cal('bob')], 'frank@localhost');
    expect(me.last().content.text).to.equal('You have no calendar here, so I cannot tell when you are free.');
    const silent = harness(freeTimeMachine, userMsg('is bob free tomorrow?'), { question: parseFreeTime('is bob free tomorrow?', NOW), threadId: THREAD, oacopTimeoutMs: 5000 });
    silent.clock.increment(T.registryTimeoutMs);
    expect(silent.last().content.text).to.match(/^I could not reach the directory/);
  });

  it('a room is asked like a person: "is atlas free tomorrow at 10?" goes to room-atlas', () => {
    const room: AgentProfile = { jid: 'atlas@rooms.localhost', name: 'room-atlas', version: '1', capabilities: ['ROOM'], room: { capacity: 3 } };
    const t = ask('is atlas free tomorrow at 10?', [cal('bob')], 'alice@localhost', [room]);
    expect(t.sent.filter((e) => e.performative === 'CFP').map((e) => e.receiver)).to.deep.equal(['room-atlas']);
    t.offer('room-atlas', [s('08:00', '09:30'), s('11:00', '18:00')]);
    expect(t.last().content.text).to.equal('No: Thu 10 Dec 2026, 10:00–10:30 UTC does not suit atlas.\n• atlas: busy then; free that day 08:00–09:30, 11:00–18:00');
    expect(t.sent.filter((e) => e.performative === 'REJECT-PROPOSAL').map((e) => e.receiver)).to.deep.equal(['room-atlas']);
    // Its free time comes with the command that books the room, not a meeting "with atlas".
    const list = ask('when is atlas free tomorrow?', [cal('bob')], 'alice@localhost', [room]);
    list.offer('room-atlas', [s('11:00', '18:00')]);
    expect(list.last().content.text).to.equal([
      "atlas's free time, Thu 10 Dec 2026, 08:00–18:00 UTC: 11:00–18:00.", 'To book 30 minutes in atlas, reply its number (1–3):', '1. Thu 10 Dec 2026, 11:00–11:30 UTC',
      '2. Thu 10 Dec 2026, 12:00–12:30 UTC', '3. Thu 10 Dec 2026, 13:00–13:30 UTC',
      'The first in full: meet 30m - 2026-12-10T11:00Z..2026-12-10T11:30Z atlas',
    ].join('\n'));
  });
});

describe('Coordinator [free time] over several days, grouped by day', () => {
  it('"when am I free next week?": one group per day, times only, the zone said once', async () => {
    const { freeTimeText } = await import('../../agents/coordinator/scheduling/free-time.js');
    const q = { kind: 'free-time' as const, people: ['me'], window: { start: '2026-12-14T08:00:00.000Z', end: '2026-12-18T18:00:00.000Z' } };
    const free = [
      { start: '2026-12-14T09:00:00Z', end: '2026-12-14T17:00:00Z' }, { start: '2026-12-15T09:00:00Z', end: '2026-12-15T12:00:00Z' },
      { start: '2026-12-15T13:00:00Z', end: '2026-12-15T17:00:00Z' }, { start: '2026-12-17T22:00:00Z', end: '2026-12-18T02:00:00Z' },
    ];
    expect(freeTimeText(q, [['me', { free }]], 'UTC')).to.equal(
      'Your free time, Mon 14 Dec 2026, 08:00–Fri 18 Dec 18:00 UTC: Mon 14 Dec 09:00–17:00; Tue 15 Dec 09:00–12:00, 13:00–17:00; Thu 17 Dec 22:00–Fri 18 Dec 02:00.');
  });
});
