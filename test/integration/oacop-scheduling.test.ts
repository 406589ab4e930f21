// OACoP end to end on a real ejabberd with real processes: people chat with the Presenter, the
// Coordinator negotiates with calendar agents (one process per person) and the Room component;
// results are checked on what people read and on the calendars' exported .ics.
import { expect } from 'chai';
import { calendarDbFile, defaultCalendarConfig, writeCalendarConfig } from '../../shared/calendar/config.js';
import { paths } from '../../shared/config/index.js';
import { type AgentProcess, spawnAgent } from '../support/agent-process.js';
import { bookedEvents, exportedIcs } from '../support/calendars.js';
import { ChatPerson } from '../support/chat-person.js';
import { startInstance, type TestInstance } from '../support/ejabberd.js';
import path from 'node:path';

export const PEOPLE = ['alice', 'bob', 'carol', 'dave', 'erin', ...Array.from({ length: 15 }, (_, i) => `u${String(i + 6).padStart(2, '0')}`)];

export interface OacopWorld {
  instance: TestInstance;
  procs: AgentProcess[];
  people: Map<string, ChatPerson>;
  roomFile(name: string): string;
  calFile(person: string): string;
  stop(): Promise<void>;
}

/** A private instance (its calendars are ours alone) with the whole cast running. */
export async function startWorld(): Promise<OacopWorld> {
  const instance = await startInstance('parley-oacop-');
  const { cfg } = instance;
  // Open every day, 09–17 UTC, so the test does not depend on the weekday it runs on.
  for (const p of PEOPLE) writeCalendarConfig(cfg, { ...defaultCalendarConfig(p, `${p}@${cfg.domain}`, 'UTC'), workingHours: { days: [1, 2, 3, 4, 5, 6, 7], start: '09:00', end: '17:00', timezone: 'UTC' } });
  // Accounts first, from this one process (20 agents provisioning themselves would race on accounts.json).
  await Promise.all(PEOPLE.flatMap((p) => [instance.account(`calendar-${p}`), instance.account(p)]));
  const env = { ...instance.env, PARLEY_OACOP_TIMEOUT_MS: '10000', PARLEY_REGISTRY_TIMEOUT_MS: '15000', PARLEY_PRESENTER_TIMEOUT_MS: '150000', PARLEY_LOG_LEVEL: 'info',
    // A loaded machine (the suite runs beside others) must not lose leases mid-test.
    PARLEY_LEASE_MS: '120000', PARLEY_HEARTBEAT_MS: '5000' };
  // Everything at once: rooms and calendars retry REGISTER until the Registry is up.
  const core = ['registry', 'coordinator', 'presenter'].map((r) => spawnAgent(`agents/${r}/main.js`, env));
  const rooms = spawnAgent('agents/rooms/main.js', env);
  const cals = PEOPLE.map((p) => spawnAgent('agents/calendar/main.js', { ...env, PARLEY_CALENDAR_PERSON: p }));
  const procs: AgentProcess[] = [...core, rooms, ...cals];
  await Promise.all([...core.map((p) => p.waitFor('online', 90000)), rooms.waitFor('rooms registered', 90000), ...cals.map((c) => c.waitFor('registered', 90000))]);
  const people = new Map<string, ChatPerson>();
  await Promise.all(PEOPLE.map(async (p) => people.set(p, await ChatPerson.connect(cfg, p))));
  return {
    instance, procs, people,
    roomFile: (name) => path.join(paths(cfg).data, `room-${name}.sqlite`),
    calFile: (person) => calendarDbFile(cfg, person),
    stop: async () => {
      await Promise.all([...people.values()].map((p) => p.close().catch(() => undefined)));
      await Promise.all(procs.map((p) => p.stop()));
    },
  };
}

describe('OACoP [scheduling] from chat, through calendars and rooms (real ejabberd and processes)', function () {
  this.timeout(180000);
  let w: OacopWorld;
  const who = (p: string) => w.people.get(p) as ChatPerson;

  before(async function () {
    this.timeout(180000);
    const t0 = Date.now();
    w = await startWorld();
    console.log(`      (${PEOPLE.length} calendars, 5 rooms, core agents up in ${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  });
  after(async () => w?.stop());

  it('schedules two people from chat: the earliest common slot, and the invitation as .ics; bob is invited', async () => {
    const bobSeen = who('bob').lines.length;
    const { answer, ics } = await who('alice').ask('meet 30m bob 2026-12-14T09:00Z..2026-12-14T12:00Z', { ics: true });
    expect(answer).to.contain('Booked: Meeting with bob').and.contain('Mon 14 Dec 2026, 09:00–09:30 UTC').and.contain('Participants: alice and bob');
    // The .ics is an attachment (XEP-0066, body = its URL) stored with ejabberd's HTTP upload (XEP-0363,
    // an unguessable path), fetched over HTTP on loopback (nothing is exposed here); no iCalendar text in the chat.
    expect(ics?.oob).to.match(/^http:\/\/127\.0\.0\.1:\d+\/upload\/[0-9a-f]{40}\/[^/]{16,}\/invitation\.ics$/);
    expect(ics?.oob?.split(':')[2]?.split('/')[0]).to.equal(String(w.instance.cfg.httpPort));
    expect(ics?.body).to.equal(ics?.oob);
    expect(ics?.file).to.contain('BEGIN:VEVENT').and.contain('SEQUENCE:2').and.contain('DTSTART:20261214T090000Z');
    expect(who('alice').lines.some((l) => l.body.includes('BEGIN:VCALENDAR'))).to.equal(false);
    const uid = /UID:(\S+)/.exec(ics?.file ?? '')?.[1];
    for (const p of ['alice', 'bob']) {
      expect(bookedEvents(w.calFile(p)).filter((e) => e.uid === uid && e.status === 'CONFIRMED'), p).to.have.length(1);
    }
    const invited = await who('bob').waitFor((l) => l.body.startsWith('alice invited you'), 'telling bob of the booking', 10000, bobSeen);
    expect(invited.body).to.equal('alice invited you to "Meeting with bob", Mon 14 Dec 2026, 09:00–09:30 UTC. The invitation (.ics) follows.');
    const invitation = await who('bob').waitFor((l) => !!l.file?.includes('BEGIN:VCALENDAR'), 'the invitation .ics for bob', 10000, bobSeen);
    expect(invitation.file).to.contain(`UID:${uid}`);
  });

  it('a person\'s time zone: u07 sets Europe/Berlin, reads the meeting in it; u08, in UTC, reads the same slot in UTC', async () => {
    expect((await who('u07').ask('my time zone is europe/berlin')).answer).to.match(/^From now on I read and show your times in Europe\/Berlin \(it is .+ there\)\.$/);
    expect((await who('u07').ask('tz')).answer).to.contain('Your times are shown in Europe/Berlin');
    expect((await who('u07').ask('/tz')).answer).to.contain('Your times are shown in Europe/Berlin');
    expect((await who('u07').ask('my time zone is Atlantis/Capital')).answer).to.contain('I don\'t know the time zone "Atlantis/Capital"');
    const u08Seen = who('u08').lines.length;
    const { answer } = await who('u07').ask('/meet 30m u08 2026-12-18T09:00Z..2026-12-18T12:00Z');
    expect(answer).to.contain('When: Fri 18 Dec 2026, 10:00–10:30 Europe/Berlin');
    const invited = await who('u08').waitFor((l) => l.body.startsWith('u07 invited you'), 'telling u08 of the booking', 10000, u08Seen);
    expect(invited.body).to.contain('Fri 18 Dec 2026, 09:00–09:30 UTC');
  });

  it('schedules three people in a room for 3 from natural language, then "cancel that meeting" cancels it everywhere', async () => {
    const { answer, ics } = await who('alice').ask('schedule 30 min with bob and carol tomorrow afternoon in a room for 3', { ics: true });
    expect(answer).to.contain('Booked').and.contain('Participants: alice, bob and carol').and.contain('Room: atlas');
    expect(ics?.file).to.contain('LOCATION:atlas');
    const uid = /UID:(\S+)/.exec(ics?.file ?? '')?.[1] as string;
    expect(bookedEvents(w.roomFile('atlas')).find((e) => e.uid === uid)?.status).to.equal('CONFIRMED');

    const bobSeen = who('bob').lines.length;
    const cancelled = await who('alice').ask('cancel that meeting', { ics: true });
    expect(cancelled.answer).to.contain('Cancelled: Meeting with bob, carol').and.contain('room atlas released');
    expect(cancelled.ics?.file).to.contain('METHOD:CANCEL').and.contain('SEQUENCE:3');
    expect(cancelled.ics?.oob).to.match(/\/cancellation\.ics$/);
    for (const file of [w.calFile('alice'), w.calFile('bob'), w.calFile('carol'), w.roomFile('atlas')]) {
      expect(bookedEvents(file).find((e) => e.uid === uid)?.status, file).to.equal('CANCELLED');
    }
    const told = await who('bob').waitFor((l) => l.body.includes('alice cancelled'), 'telling bob of the cancellation', 10000, bobSeen);
    expect(told.body).to.contain('Meeting with bob, carol');
    // Said again: never the earlier meeting in its place (it used to cancel that one too).
    expect((await who('alice').ask('cancel that meeting')).answer).to.match(/^Your last meeting \(Meeting with bob, carol, .+\) is already cancelled\./);
    const mine = (await who('alice').ask('my meetings')).answer;
    expect(mine).to.match(/^Meetings ahead that I booked:\n1\. Meeting with bob: Mon 14 Dec 2026, 09:00–09:30 UTC \(alice, bob\)\n/);
    expect((await who('alice').ask('cancel meeting 1')).answer).to.contain('Cancelled: Meeting with bob, Mon 14 Dec 2026');
    expect((await who('alice').ask('my meetings')).answer).to.equal('You have no meetings ahead that I booked.');
  });

  it('a room refuses what breaks its constraints: minDuration (OACOP_UNSUPPORTED_CONSTRAINT) and the cleaning gap', async () => {
    const short = await who('dave').ask('/meet 15m erin 2026-12-14T13:00Z..2026-12-14T15:00Z dune');
    expect(short.answer).to.contain('dune could not take part (OACOP_UNSUPPORTED_CONSTRAINT)');
    expect(bookedEvents(w.roomFile('dune'))).to.have.length(0);

    expect((await who('dave').ask('/meet 60m erin 2026-12-14T14:00Z..2026-12-14T15:00Z cosmos')).answer).to.contain('14:00–15:00 UTC').and.contain('Room: cosmos');
    const inGap = await who('carol').ask('/meet 30m u06 2026-12-14T15:00Z..2026-12-14T15:40Z cosmos');
    expect(inGap.answer).to.contain('I could not find 30 minutes with a free room');
    expect((await who('carol').ask('/meet 30m u06 2026-12-14T15:00Z..2026-12-14T15:45Z cosmos')).answer).to.contain('15:15–15:45 UTC').and.contain('Room: cosmos');
  });

  it('rooms from chat: "which rooms are there?", a room booked alone ("book a room for 6 …"), a room named bare ("in eclipse"), a name no room has', async () => {
    expect((await who('u12').ask('which rooms are there?')).answer).to.match(/^The rooms: atlas \(\d+ seats?\), .*eclipse \(\d+ seats?\)\./);
    const alone = await who('u12').ask('book a room for 6 people on 10 March 2027 at 10:00 for an hour');
    expect(alone.answer).to.match(/^Booked: Room booking\nWhen: Wed 10 Mar 2027, 10:00–11:00 UTC\nParticipants: u12\nRoom: (\w+)/);
    const room = /Room: (\w+)/.exec(alone.answer)?.[1] as string;
    const mar10 = Date.parse('2027-03-10T10:00:00Z');
    expect(bookedEvents(w.roomFile(room)).filter((e) => e.start === mar10 && e.status === 'CONFIRMED'), room).to.have.length(1);
    expect(bookedEvents(w.calFile('u12')).filter((e) => e.start === mar10 && e.status === 'CONFIRMED')).to.have.length(1);
    const named = await who('u12').ask('schedule 30 min with u13 on 10 March 2027 at 14:00 in eclipse');
    expect(named.answer).to.contain('Wed 10 Mar 2027, 14:00–14:30 UTC').and.contain('Room: eclipse');
    expect((await who('u12').ask('schedule 30 min with u13 on 10 March 2027 at 15:00 in narnia')).answer).to.match(/^There is no room called "narnia"\. The rooms: atlas/);
  });

  it('free time from chat: "when is u14 free on …?" and "am I free … at 10:00?" ask the calendars and book nothing; "2" books the second time shown', async () => {
    expect((await who('u14').ask('meet 60m u15 2027-03-11T10:00Z..2027-03-11T11:00Z')).answer).to.match(/^Booked/);
    const before = bookedEvents(w.calFile('u14')).length;
    expect((await who('u16').ask('when is u14 free on 11 March 2027?')).answer)
      .to.equal(["u14's free time, Thu 11 Mar 2027, 08:00–18:00 UTC: 09:00–10:00, 11:00–17:00.", 'To book 30 minutes with u14, reply its number (1–3):',
        '1. Thu 11 Mar 2027, 09:00–09:30 UTC', '2. Thu 11 Mar 2027, 11:00–11:30 UTC', '3. Thu 11 Mar 2027, 12:00–12:30 UTC', 'The first in full: meet 30m u14 2027-03-11T09:00Z..2027-03-11T09:30Z'].join('\n'));
    expect(bookedEvents(w.calFile('u14')), 'asking books nothing').to.have.length(before);
    // "2" books the second of the times shown (agents/presenter/shown-choices.ts).
    expect((await who('u16').ask('2')).answer).to.match(/^Booked: Meeting with u14\nWhen: Thu 11 Mar 2027, 11:00–11:30 UTC/);
    expect(bookedEvents(w.calFile('u14'))).to.have.length(before + 1);
    expect((await who('u15').ask('am I free on 11 March 2027 at 10:00?')).answer).to.equal('No: Thu 11 Mar 2027, 10:00–10:30 UTC does not suit you.\n• you: busy then; free that day 09:00–10:00, 11:00–17:00');
    expect((await who('u16').ask('are u14 and u15 free on 11 March 2027 afternoon?')).answer).to.contain('All free: 12:00–17:00.');
    // "find a time for u15 and me …": the times both share, each a choice; "1" books it with u15.
    const found = (await who('u16').ask('find a time for u15 and me on 11 March 2027 afternoon')).answer;
    expect(found).to.contain('All free: 12:00–17:00.').and.contain('To book 30 minutes with u15, reply its number (1–3):\n1. Thu 11 Mar 2027, 12:00–12:30 UTC');
    expect((await who('u16').ask('1')).answer).to.match(/^Booked: Meeting with u15\nWhen: Thu 11 Mar 2027, 12:00–12:30 UTC/);
    // u15 can't make it: u16, who booked it, is told with the line that cancels exactly that one.
    const u16Seen = who('u16').lines.length;
    expect((await who('u15').ask("sorry, I can't make the meeting at 12:00 on 11 March 2027 because of a dentist appointment")).answer)
      .to.equal('I told u16 you can\'t make "Meeting with u15" (Thu 11 Mar 2027, 12:00–12:30 UTC). It stays in your calendar until u16 moves or cancels it.');
    const cant = await who('u16').waitFor((l) => l.body.startsWith("u15 can't make"), 'telling u16', 10000, u16Seen);
    expect(cant.body).to.equal('u15 can\'t make "Meeting with u15" (Thu 11 Mar 2027, 12:00–12:30 UTC): "a dentist appointment"\nTo move it, say e.g. "move my meeting with u15 on 11 Mar to …"; to cancel it, "cancel my meeting with u15 on 11 Mar".');
    expect(bookedEvents(w.calFile('u14')), 'asking books nothing').to.have.length(before + 1);
    // A room is asked like a person: eclipse was booked at 14:00 on 10 March in the rooms test.
    expect((await who('u16').ask('is eclipse free on 10 March 2027 at 14:00?')).answer).to.match(/^No: Wed 10 Mar 2027, 14:00–14:30 UTC does not suit eclipse\.\n• eclipse: busy then; free that day /);
    // The calendars let the proposals go: the free time just shown can be booked at once.
    expect((await who('u16').ask('meet 30m u14,u15 2027-03-11T09:00Z..2027-03-11T09:30Z')).answer).to.match(/^Booked/);
  });

  it('moves a meeting in one step: every calendar and the room take the new slot (even one overlapping the old), a busy time keeps it where it was and offers the nearest times ("1" takes the first), cancel still works', async () => {
    const booked = await who('u17').ask('meet 60m u18 2027-04-07T09:00Z..2027-04-07T10:00Z cosmos', { ics: true });
    expect(booked.answer).to.contain('Booked').and.contain('Room: cosmos');
    const uid = /UID:(\S+)/.exec(booked.ics?.file ?? '')?.[1] as string;
    const files = [w.calFile('u17'), w.calFile('u18'), w.roomFile('cosmos')];
    const slotOf = (file: string) => bookedEvents(file).filter((e) => e.uid === uid).map((e) => [new Date(e.start).toISOString(), e.status]);
    expect((await who('u19').ask('meet 60m u18 2027-04-07T14:00Z..2027-04-07T15:00Z')).answer).to.contain('Booked');

    const u18Seen = who('u18').lines.length;
    const moved = await who('u17').ask('move that meeting to 11:00', { ics: true });
    expect(moved.answer).to.equal([
      'Moved: Meeting with u18', 'Now: Wed 7 Apr 2027, 11:00–12:00 UTC', 'Was: Wed 7 Apr 2027, 09:00–10:00 UTC', 'Told: u18.', 'Room: cosmos (kept)', 'The updated invitation (.ics) follows.',
    ].join('\n'));
    expect(moved.ics?.file).to.contain(`UID:${uid}`).and.contain('SEQUENCE:4').and.contain('DTSTART:20270407T110000Z');
    for (const f of files) expect(slotOf(f), f).to.deep.equal([['2027-04-07T11:00:00.000Z', 'CONFIRMED']]);
    const told = await who('u18').waitFor((l) => l.body.startsWith('u17 moved'), 'telling u18 of the move', 10000, u18Seen);
    expect(told.body).to.contain('to Wed 7 Apr 2027, 11:00–12:00 UTC (was Wed 7 Apr 2027, 09:00–10:00 UTC)');

    // Half an hour later overlaps its own slot: the meeting's own event does not block it.
    expect((await who('u17').ask('push the meeting back by 30 minutes')).answer).to.contain('Now: Wed 7 Apr 2027, 11:30–12:30 UTC');
    // u18 is busy at 14:00 (u19's meeting): nothing moves, anywhere; the nearest times after are offered, numbered.
    const refused = await who('u17').ask('move that meeting to 2pm');
    expect(refused.answer).to.match(new RegExp('^I could not move "Meeting with u18" to Wed 7 Apr 2027, 14:00–15:00 UTC:\n• u18 is busy then\nIt stays at Wed 7 Apr 2027, 11:30–12:30 UTC.\n'
      + 'The nearest times that work for everyone:\n1. Wed 7 Apr 2027, 15:00–16:00 UTC\n2. .+\n3. .+\nTo move it to one, reply its number \\(1–3\\)\\.$'));
    for (const f of files) expect(slotOf(f), f).to.deep.equal([['2027-04-07T11:30:00.000Z', 'CONFIRMED']]);
    // "1" in a client without forms moves it there (agents/presenter/shown-choices.ts), everywhere.
    expect((await who('u17').ask('1')).answer).to.contain('Moved: Meeting with u18\nNow: Wed 7 Apr 2027, 15:00–16:00 UTC\nWas: Wed 7 Apr 2027, 11:30–12:30 UTC');
    for (const f of files) expect(slotOf(f), f).to.deep.equal([['2027-04-07T15:00:00.000Z', 'CONFIRMED']]);
    expect((await who('u17').ask('my meetings')).answer).to.contain('Meeting with u18: Wed 7 Apr 2027, 15:00–16:00 UTC');
    // The revisions stay ahead of what the calendars saw: a cancel after all this reaches everyone.
    expect((await who('u17').ask('cancel that meeting')).answer).to.contain('Cancelled: Meeting with u18, Wed 7 Apr 2027, 15:00–16:00 UTC').and.not.contain('Not confirmed');
    for (const f of files) expect(slotOf(f), f).to.deep.equal([['2027-04-07T15:00:00.000Z', 'CANCELLED']]);
  });

  it('a meeting that cannot be booked says why truthfully ("busy then") and offers the nearest times that work, bookable as said', async () => {
    expect((await who('u09').ask('meet 3h u10 2027-01-20T09:00Z..2027-01-20T12:00Z')).answer).to.contain('Booked');
    const { answer, line, thread } = await who('u11').ask('meet 30m u10 2027-01-20T09:00Z..2027-01-20T12:00Z');
    expect(answer).to.contain('• u10 is busy then').and.not.contain('declined');
    expect(answer).to.contain('The nearest times that work for everyone:\n1. Wed 20 Jan 2027, 12:00–12:30 UTC\n');
    const book = /The first in full: (meet .+)$/m.exec(answer)?.[1] as string;
    expect(book).to.equal('meet 30m u10 2027-01-20T12:00Z..2027-01-20T12:30Z');
    // The same times as a form (XEP-0004) in the message; picking one (a form submit, no text) books it.
    expect(line.choices?.[0]).to.equal(book);
    expect(line.choices).to.have.length(3);
    expect(await who('u11').chooseAndWait(thread, line.choices?.[1] as string)).to.contain('Booked').and.contain('Wed 20 Jan 2027, 12:30–13:00 UTC');
    expect((await who('u11').ask(book)).answer).to.contain('Booked').and.contain('Wed 20 Jan 2027, 12:00–12:30 UTC');
    // In a client without forms the numbered list is answered by its number (agents/presenter/shown-choices.ts).
    const again = await who('u12').ask('meet 30m u10 2027-01-20T09:00Z..2027-01-20T12:00Z');
    expect(again.answer).to.contain('\n1. Wed 20 Jan 2027, 13:00–13:30 UTC\n').and.contain('To book one, reply its number (1–3).');
    expect((await who('u12').ask('7')).answer).to.equal('There is no such choice: reply a number from 1 to 3.');
    expect((await who('u12').ask('book the first')).answer).to.contain('Booked').and.contain('Wed 20 Jan 2027, 13:00–13:30 UTC');
    // After another answer a number picks nothing any more: it is read as typed.
    expect((await who('u12').ask('2')).answer).to.not.contain('Booked');
  });

  it('assigns a task from chat; bob is told, answers "50% draft started" and "done", and alice hears each update', async () => {
    const aliceSeen = who('alice').lines.length;
    const bobSeen = who('bob').lines.length;
    const assigned = await who('alice').ask("assign 'Q1 report' to bob by Friday");
    expect(assigned.answer).to.match(/^Assigned "Q1 report" to bob, due Fri \d+ \w+ 2026, 17:00 UTC/);
    const told = await who('bob').waitFor((l) => l.body.startsWith('alice assigned you a task'), 'the assignment', 10000, bobSeen);
    expect(told.body).to.contain('"Q1 report"');
    // The approval is asked as a form too; bob answers by submitting it (no text typed).
    expect(told.choices).to.deep.equal(['accept', 'decline', 'done']);
    expect(await who('bob').chooseAndWait(told.thread, 'accept')).to.equal('Noted: you accepted "Q1 report". I told alice.');

    expect((await who('bob').ask('50% draft started')).answer).to.equal('Noted: you are working on "Q1 report" (50%): draft started. I told alice.');
    const progress = await who('alice').waitFor((l) => l.body.startsWith('bob is working on'), 'the progress update', 10000, aliceSeen);
    expect(progress.body).to.equal('bob is working on "Q1 report" (50%): draft started.');

    expect((await who('bob').ask('done')).answer).to.equal('Noted: you completed "Q1 report". I told alice.');
    await who('alice').waitFor((l) => l.body === 'bob completed "Q1 report".', 'the completion', 10000, aliceSeen);
    const todo = exportedIcs(w.calFile('bob'));
    expect(todo).to.contain('BEGIN:VTODO').and.contain('SUMMARY:Q1 report').and.contain('STATUS:COMPLETED').and.contain('PERCENT-COMPLETE:100');
    // No open task left: "done" is a question again (no specialist runs here).
    expect((await who('bob').ask('done', { timeoutMs: 30000 })).answer).to.not.contain('Noted');
  });

  it('100 meetings asked at once among 20 people and 5 rooms never double-book a person or a room (checked on the exported .ics)', async function () {
    this.timeout(170000);
    let seed = 42;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const WINDOW = '2026-12-15T09:00Z..2026-12-16T17:00Z';
    const t0 = Date.now();
    const asks = Array.from({ length: 100 }, (_, i) => {
      const asker = PEOPLE[i % PEOPLE.length] as string;
      const others = PEOPLE.filter((p) => p !== asker);
      const n = 1 + Math.floor(rnd() * 2);
      const pick = new Set<string>();
      while (pick.size < n) pick.add(others[Math.floor(rnd() * others.length)] as string);
      return who(asker).ask(`/meet 30m ${[...pick].join(',')} ${WINDOW} room`, { timeoutMs: 160000 }).then((r) => ({ ...r, asker }));
    });
    const answers = await Promise.all(asks);
    const seconds = (Date.now() - t0) / 1000;
    const booked = answers.filter((a) => a.answer.startsWith('Booked'));
    console.log(`      (${booked.length}/100 booked in ${seconds.toFixed(1)} s, ${booked.filter((a) => a.answer.includes('negotiated a new time')).length} after a re-negotiation)`);
    for (const a of answers.filter((x) => !x.answer.startsWith('Booked'))) expect(a.answer, a.answer).to.match(/^I could not (find|book)/);

    // Each booked meeting: its .ics, and the same UID and start in every attendee's calendar and its room.
    const meetings = await Promise.all(booked.map(async (a) => {
      const ics = (await who(a.asker).waitFor((l) => l.thread === a.thread && l.file !== undefined, 'the .ics', 10000)).file as string;
      const uid = /UID:(\S+)/.exec(ics)?.[1] as string;
      const room = /LOCATION:(\S+)/.exec(ics)?.[1] as string;
      const attendees = [...ics.matchAll(/ATTENDEE;[^:]*:xmpp:([^@\r\n]+)@/g)].map((m) => m[1] as string);
      return { uid, room, attendees, start: /DTSTART:(\S+)/.exec(ics)?.[1] as string };
    }));
    const uids = new Set(meetings.map((m) => m.uid));
    const day0 = Date.parse('2026-12-15T00:00:00Z');
    const day2 = Date.parse('2026-12-17T00:00:00Z');
    const files = [...PEOPLE.map((p) => [p, w.calFile(p)]), ...['atlas', 'borealis', 'cosmos', 'dune', 'eclipse'].map((r) => [`room ${r}`, w.roomFile(r)])];
    let checked = 0;
    for (const [name, file] of files as Array<[string, string]>) {
      const events = bookedEvents(file).filter((e) => e.status !== 'CANCELLED' && e.start >= day0 && e.end <= day2).sort((a, b) => a.start - b.start);
      const gap = name === 'room cosmos' ? 15 * 60000 : 0;
      for (let i = 1; i < events.length; i += 1) {
        const [prev, cur] = [events[i - 1], events[i]] as [(typeof events)[number], (typeof events)[number]];
        expect(cur.start, `${name}: ${prev.uid} and ${cur.uid} overlap`).to.be.at.least(prev.end + gap);
      }
      // Nothing is held for a meeting the asker was told failed.
      for (const e of events) expect(uids.has(e.uid), `${name} holds ${e.uid}, which was not booked`).to.equal(true);
      checked += events.length;
    }
    for (const m of meetings) {
      for (const a of m.attendees) {
        const ev = bookedEvents(w.calFile(a)).find((e) => e.uid === m.uid);
        expect(ev?.status, `${a} lacks ${m.uid}`).to.equal('CONFIRMED');
      }
      expect(bookedEvents(w.roomFile(m.room)).find((e) => e.uid === m.uid)?.status, `room ${m.room} lacks ${m.uid}`).to.equal('CONFIRMED');
    }
    console.log(`      (${checked} events across ${files.length} calendars checked for overlaps)`);
    expect(booked.length).to.be.at.least(50);
  });
});
