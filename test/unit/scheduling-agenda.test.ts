import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { identify } from '../../shared/runtime/index.js';
import { userMsgFactory } from '../../agents/coordinator/factory.js';
import { agendaMachine, within } from '../../agents/coordinator/scheduling/agenda.js';
import { cantMakeMachine } from '../../agents/coordinator/scheduling/cant-make.js';
import { createActor } from 'xstate';
import type { Envelope } from '../../shared/acl/index.js';
import { parseScheduling } from '../../agents/coordinator/scheduling/parse.js';
import { pickTask } from '../../agents/coordinator/scheduling/pick-task.js';
import { type MeetingRecord, SchedulingStore, type TaskRecord } from '../../agents/coordinator/scheduling/store.js';
import { DOMAIN, harness, T, userMsg } from './coordinator-harness.js';

const NOW = new Date('2026-12-09T10:00:00Z');
const meeting = (id: string, title: string, start: string, o: Partial<MeetingRecord> = {}): MeetingRecord => ({
  threadId: `urn:uuid:${id}`, organizer: 'alice@localhost', title, slot: { start, end: new Date(Date.parse(start) + 30 * 60_000).toISOString() },
  revision: 0, participants: ['calendar-alice', 'calendar-bob'], status: 'CONFIRMED', ...o,
});
const task = (id: string, title: string, o: Partial<TaskRecord> = {}): TaskRecord => ({
  threadId: `urn:uuid:${id}`, assigner: 'alice@localhost', assignee: 'bob@localhost', agent: 'calendar-bob', title, deadline: '2026-12-11T17:00:00Z', status: 'ASSIGNED', ...o,
});

describe('Coordinator [agenda] "my meetings", "my tasks"', () => {
  it('reads the ways a person asks, and leaves a bare "schedule" or "calendar" alone', () => {
    for (const [q, part] of [['my tasks', 'tasks'], ['what are my tasks?', 'tasks'], ['show my meetings', 'meetings'], ['list my meetings.', 'meetings'],
      ["what's on my agenda?", 'both'], ['agenda', 'both'], ['/agenda', 'both'], ['what is my schedule?', 'both'], ['my calendar', 'both']] as const) {
      expect(parseScheduling(q, NOW), q).to.deep.equal({ kind: 'agenda', part });
    }
    // A day or week, in the person's zone: NOW is Wed 9 Dec 2026 10:00 UTC, 19:00 in Tokyo.
    expect(parseScheduling("what's on my calendar tomorrow?", NOW, 'Asia/Tokyo')).to.deep.equal({
      kind: 'agenda', part: 'both', within: { label: 'tomorrow', window: { start: '2026-12-09T15:00:00.000Z', end: '2026-12-10T15:00:00.000Z' } },
    });
    expect(parseScheduling('my meetings next week', NOW)).to.deep.equal({
      kind: 'agenda', part: 'meetings', within: { label: 'next week', window: { start: '2026-12-14T00:00:00.000Z', end: '2026-12-21T00:00:00.000Z' } },
    });
    expect(parseScheduling('my tasks for this week', NOW)).to.deep.include({ part: 'tasks' });
    for (const q of ['schedule', 'calendar', 'what are tasks?', 'my tasks are done']) expect(parseScheduling(q, NOW)?.kind, q).to.not.equal('agenda');
  });

  it('reads the agenda as people ask it in a chat ("when is my next meeting?", "do I have any meetings this week?", "what\'s on friday?")', () => {
    // Each of these got "I can't help with that one" (tried by hand on npm start).
    for (const [q, part] of [['do I have any meetings?', 'meetings'], ['have I got any tasks?', 'tasks'], ['what tasks do I have?', 'tasks'],
      ['which meetings have I got', 'meetings'], ['any meetings?', 'meetings'], ['do i have meetings', 'meetings']] as const) {
      expect(parseScheduling(q, NOW), q).to.deep.equal({ kind: 'agenda', part });
    }
    // "who is in my meeting on monday?" got the meetings hint (by hand on npm start): the agenda lists who is in each.
    expect(parseScheduling('who is in my meeting on monday?', NOW)).to.deep.equal({ kind: 'agenda', part: 'meetings', within: { label: 'Monday', window: { start: '2026-12-14T00:00:00.000Z', end: '2026-12-15T00:00:00.000Z' } } });
    expect(parseScheduling("who's coming to my next meeting?", NOW)).to.deep.equal({ kind: 'agenda', part: 'meetings', next: true });
    expect(parseScheduling('who is attending the meeting', NOW)).to.deep.equal({ kind: 'agenda', part: 'meetings' });
    for (const q of ['when is my next meeting?', "what's my next meeting", 'next meeting?', 'When is my next meeting']) {
      expect(parseScheduling(q, NOW), q).to.deep.equal({ kind: 'agenda', part: 'meetings', next: true });
    }
    const tomorrow = { label: 'tomorrow', window: { start: '2026-12-10T00:00:00.000Z', end: '2026-12-11T00:00:00.000Z' } };
    expect(parseScheduling('what meetings do I have tomorrow?', NOW)).to.deep.equal({ kind: 'agenda', part: 'meetings', within: tomorrow });
    expect(parseScheduling('do I have any meetings this week?', NOW)).to.deep.include({ part: 'meetings', within: { label: 'this week', window: { start: '2026-12-09T00:00:00.000Z', end: '2026-12-14T00:00:00.000Z' } } });
    expect(parseScheduling("what's on tomorrow?", NOW)).to.deep.equal({ kind: 'agenda', part: 'both', within: tomorrow });
    expect(parseScheduling('what do I have tomorrow', NOW)).to.deep.equal({ kind: 'agenda', part: 'both', within: tomorrow });
    // A weekday is the next such day, today included (NOW is Wednesday 9 Dec), in the person's zone.
    const friday = { label: 'Friday', window: { start: '2026-12-11T00:00:00.000Z', end: '2026-12-12T00:00:00.000Z' } };
    expect(parseScheduling('what do I have on friday?', NOW)).to.deep.equal({ kind: 'agenda', part: 'both', within: friday });
    expect(parseScheduling('my meetings on Friday', NOW)).to.deep.equal({ kind: 'agenda', part: 'meetings', within: friday });
    expect(parseScheduling('any meetings wednesday?', NOW)).to.deep.include({ within: { label: 'Wednesday', window: { start: '2026-12-09T00:00:00.000Z', end: '2026-12-10T00:00:00.000Z' } } });
    expect(parseScheduling('do I have any tasks on monday', NOW, 'Asia/Tokyo')).to.deep.include({ within: { label: 'Monday', window: { start: '2026-12-13T15:00:00.000Z', end: '2026-12-14T15:00:00.000Z' } } });
    // Not agenda questions: the date, a meeting to book, a statement.
    for (const q of ['what is today?', "what's today", 'meetings are boring', 'what is the next meeting room', 'schedule a meeting']) {
      expect(parseScheduling(q, NOW)?.kind, q).to.not.equal('agenda');
    }
  });

  it('"when is my next meeting?": the first meeting ahead only, with how to move it; the weekday and nothing-ahead wordings', () => {
    const list = [meeting('m1', 'Mine', '2026-12-10T09:00:00Z'), meeting('m2', 'Later', '2026-12-11T09:00:00Z')];
    let listing: string[] | undefined;
    const f = userMsgFactory({
      self: 'Coordinator', domain: DOMAIN, timeouts: T,
      scheduling: { oacopTimeoutMs: 5000, lastMeeting: () => undefined, openTasks: () => [], now: () => NOW, meetingsAhead: () => list, saveListing: (_p, ids) => { listing = ids; } },
    });
    const built = f(userMsg('when is my next meeting?'), identify('presenter@localhost', DOMAIN));
    expect((built.input as { meetings: MeetingRecord[] }).meetings).to.deep.equal([list[0]]);
    expect(listing, '"meeting 1" then means the one shown').to.deep.equal(['urn:uuid:m1']);
    const h = harness(agendaMachine, userMsg('when is my next meeting?'), built.input as Record<string, unknown>);
    expect(h.last().content.text).to.equal('Your next meeting that I booked: Mine: Thu 10 Dec 2026, 09:00–09:30 UTC (alice, bob). To move or cancel it, say e.g. "move meeting 1 to 3pm" or "cancel meeting 1".');
    const none = harness(agendaMachine, userMsg('next meeting?'), { part: 'meetings', next: true, person: 'alice@localhost', zone: 'UTC', now: '2026-12-09T10:00:00Z', meetings: [], tasks: [] });
    expect(none.last().content.text).to.equal('You have no meetings ahead that I booked.');
    const fri = harness(agendaMachine, userMsg('what do I have on friday?'), { part: 'both', person: 'alice@localhost', zone: 'UTC', now: '2026-12-09T10:00:00Z', label: 'Friday', meetings: [], tasks: [] });
    expect(fri.last().content.text).to.equal('You have no meetings on Friday that I booked.\n\nYou have no open tasks due by the end of Friday.');
  });

  it('lists the meetings ahead and the open tasks both ways, in the person\'s zone', () => {
    const h = harness(agendaMachine, userMsg('agenda', 'bob@localhost'), {
      part: 'both', person: 'bob@localhost', zone: 'Europe/Berlin', now: '2026-12-09T10:00:00Z',
      meetings: [meeting('m1', 'Sync', '2026-12-10T09:00:00Z', { room: 'room-atlas' })],
      tasks: [task('t1', 'Q1 report', { status: 'IN_PROGRESS', progress: 40 }), task('t2', 'Slides', { assigner: 'bob@localhost', assignee: 'carol@localhost', deadline: '2026-12-08T17:00:00Z' })],
    });
    expect(h.sent).to.have.length(1);
    expect(h.last().content.text).to.equal([
      'Meetings ahead that I booked:',
      '1. Sync: Thu 10 Dec 2026, 10:00–10:30 Europe/Berlin (alice, bob; room atlas)',
      '',
      'Your tasks:',
      '• "Q1 report" from alice, due Fri 11 Dec 2026, 18:00 Europe/Berlin: in progress (40%)',
      'Tasks you gave:',
      '• "Slides" to carol, due Tue 8 Dec 2026, 18:00 Europe/Berlin (overdue): not answered yet',
    ].join('\n'));
  });

  it('"… tomorrow": that day\'s meetings, the tasks due by its end (overdue too)', () => {
    const all = {
      meetings: [meeting('a', 'Today', '2026-12-09T15:00:00Z'), meeting('b', 'Tomorrow', '2026-12-10T09:00:00Z'), meeting('c', 'Later', '2026-12-12T09:00:00Z')],
      tasks: [task('x', 'Overdue', { deadline: '2026-12-01T17:00:00Z' }), task('y', 'Due tomorrow', { deadline: '2026-12-10T17:00:00Z' }), task('z', 'Next month', { deadline: '2027-01-10T17:00:00Z' })],
    };
    const picked = within(all, { start: '2026-12-10T00:00:00.000Z', end: '2026-12-11T00:00:00.000Z' });
    expect(picked.meetings.map((m) => m.title)).to.deep.equal(['Tomorrow']);
    expect(picked.tasks.map((t) => t.title)).to.deep.equal(['Overdue', 'Due tomorrow']);
    const h = harness(agendaMachine, userMsg('agenda tomorrow', 'carol@localhost'), { part: 'both', person: 'carol@localhost', zone: 'UTC', now: '2026-12-09T10:00:00Z', label: 'tomorrow', meetings: [], tasks: [] });
    expect(h.last().content.text).to.equal('You have no meetings tomorrow that I booked.\n\nYou have no open tasks due by the end of tomorrow.');
  });

  it('says when there is nothing, for the part asked only', () => {
    const h = harness(agendaMachine, userMsg('my tasks'), { part: 'tasks', person: 'alice@localhost', zone: 'UTC', now: '2026-12-09T10:00:00Z', meetings: [], tasks: [] });
    expect(h.last().content.text).to.equal('You have no open tasks.');
  });

  it('"cancel meeting <n>": the n-th of "my meetings", only if the asker booked it', () => {
    const list = [meeting('m1', 'Mine', '2026-12-10T09:00:00Z'), meeting('m2', 'Theirs', '2026-12-11T09:00:00Z', { organizer: 'bob@localhost' })];
    const f = userMsgFactory({
      self: 'Coordinator', domain: DOMAIN, timeouts: T,
      scheduling: { oacopTimeoutMs: 5000, lastMeeting: () => undefined, openTasks: () => [], now: () => NOW, meetingsAhead: () => list },
    });
    const from = identify('presenter@localhost', DOMAIN);
    expect(parseScheduling('cancel meeting 2', NOW)).to.deep.equal({ kind: 'cancel-meeting', index: 2 });
    expect(f(userMsg('cancel meeting 1'), from).input).to.deep.include({ meeting: list[0] });
    expect(f(userMsg('cancel meeting 2'), from).input).to.deep.include({ detail: 'Only bob, who booked "Theirs", can cancel it.' });
    expect(f(userMsg('cancel meeting 3'), from).input).to.deep.include({ detail: 'There is no meeting 3: say "my meetings" to see them (1 to 2).' });
    const h = harness(agendaMachine, userMsg('my meetings'), { part: 'meetings', person: 'alice@localhost', zone: 'UTC', now: '2026-12-09T10:00:00Z', meetings: list, tasks: [] });
    expect(h.last().content.text).to.equal([
      'Meetings ahead that I booked:', '1. Mine: Thu 10 Dec 2026, 09:00–09:30 UTC (alice, bob)', '2. Theirs: Fri 11 Dec 2026, 09:00–09:30 UTC (alice, bob)',
      'To cancel or move one you booked, say e.g. "cancel meeting 1" or "move meeting 1 to 3pm".',
    ].join('\n'));
  });

  it('"cancel meeting 2" means the list last shown: a meeting that ended or was booked since does not shift the numbers (real store)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-listing-'));
    const store = new SchedulingStore(path.join(dir, 'scheduling.sqlite'));
    try {
      let now = NOW;
      const [a, b, c] = [meeting('a', 'First', '2026-12-09T10:30:00Z'), meeting('b', 'Second', '2026-12-10T09:00:00Z'), meeting('c', 'Third', '2026-12-11T09:00:00Z')];
      for (const m of [a, b, c]) store.saveMeeting(m);
      const f = userMsgFactory({
        self: 'Coordinator', domain: DOMAIN, timeouts: T,
        scheduling: {
          oacopTimeoutMs: 5000, lastMeeting: () => undefined, openTasks: () => [], now: () => now,
          meetingsAhead: (p, t) => store.meetingsAhead(p, t, DOMAIN), listing: (p) => store.listing(p), saveListing: (p, ids) => store.saveListing(p, ids), meeting: (id) => store.meeting(id),
        },
      });
      const from = identify('presenter@localhost', DOMAIN);
      expect((f(userMsg('my meetings'), from).input as { meetings: MeetingRecord[] }).meetings.map((m) => m.title)).to.deep.equal(['First', 'Second', 'Third']);
      // An hour later "First" is over and a new meeting was booked before "Second": the numbers shown still hold.
      now = new Date('2026-12-09T11:05:00Z');
      store.saveMeeting(meeting('d', 'Squeezed in', '2026-12-09T15:00:00Z'));
      expect(f(userMsg('cancel meeting 2'), from).input).to.deep.include({ meeting: b });
      expect(f(userMsg('move meeting 3 to 2pm'), from).input).to.deep.include({ meeting: c });
      expect(f(userMsg('cancel meeting 1'), from).input).to.deep.include({ detail: 'Meeting 1 ("First") is already over. Say "my meetings" for the list as it is now.' });
      store.saveMeeting({ ...b, status: 'CANCELLED', revision: 1 });
      expect(f(userMsg('cancel meeting 2'), from).input).to.deep.include({ detail: 'Meeting 2 ("Second") is already cancelled. Say "my meetings" for the list as it is now.' });
      // Asked again, the list is the one of now; without a list shown, the list of now too.
      expect((f(userMsg('my meetings'), from).input as { meetings: MeetingRecord[] }).meetings.map((m) => m.title)).to.deep.equal(['Squeezed in', 'Third']);
      expect(f(userMsg('cancel meeting 2'), from).input).to.deep.include({ meeting: c });
      expect(store.listing('alice@localhost', Date.now() + 13 * 3600_000), 'a list shown long ago no longer counts').to.equal(undefined);
      expect(store.listing('bob@localhost')).to.equal(undefined);
    } finally {
      store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('"cancel my meeting with bob": the one with bob (never simply the last booked); several are listed to pick from, and "cancel meeting 2" then means that list', () => {
    const withCarol = meeting('c1', 'Carol sync', '2026-12-10T09:00:00Z', { participants: ['calendar-alice', 'calendar-carol'] });
    const withBob = [meeting('b1', 'Bob 1', '2026-12-11T09:00:00Z'), meeting('b2', 'Bob 2', '2026-12-12T09:00:00Z', { room: 'room-atlas' })];
    let listing: string[] | undefined;
    const all = [withCarol, ...withBob];
    const f = userMsgFactory({
      self: 'Coordinator', domain: DOMAIN, timeouts: T,
      scheduling: {
        oacopTimeoutMs: 5000, lastMeeting: () => withBob[1], openTasks: () => [], now: () => NOW, meetingsAhead: () => all,
        listing: () => listing, saveListing: (_p, ids) => { listing = ids; }, meeting: (id) => all.find((m) => m.threadId === id),
      },
    });
    const from = identify('presenter@localhost', DOMAIN);
    expect(parseScheduling('cancel my meeting with bob', NOW)).to.deep.equal({ kind: 'cancel-meeting', with: ['bob'] });
    expect(parseScheduling('cancel the meeting with Bob and carol tomorrow', NOW)).to.deep.equal({ kind: 'cancel-meeting', with: ['bob', 'carol'], when: 'tomorrow' });
    expect(parseScheduling('cancel that meeting', NOW)).to.deep.equal({ kind: 'cancel-meeting' });
    expect(f(userMsg('cancel my meeting with carol'), from).input).to.deep.include({ meeting: withCarol });
    expect(f(userMsg('move my meeting with carol to 3pm'), from).input).to.deep.include({ meeting: withCarol });
    expect(f(userMsg('cancel my meeting with atlas'), from).input).to.deep.include({ meeting: withBob[1] });
    expect(f(userMsg('cancel my meeting with dave'), from).input).to.deep.include({ detail: 'You have no meeting ahead with dave that you booked. "my meetings" lists the ones you have.' });
    expect(listing).to.equal(undefined);
    expect(f(userMsg('move my meeting with bob to 4pm'), from).input).to.deep.include({
      detail: 'You have 2 meetings ahead with bob:\n1. Bob 1: Fri 11 Dec 2026, 09:00–09:30 UTC\n2. Bob 2: Sat 12 Dec 2026, 09:00–09:30 UTC\nWhich one? Reply its number, or say e.g. "move meeting 1 to 4pm".',
    });
    // Each a choice ("2" in any client: agents/presenter/shown-choices.ts), which means the list just saved.
    expect((f(userMsg('move my meeting with bob to 4pm'), from).input as { choices: Array<{ say: string }> }).choices.map((c) => c.say)).to.deep.equal(['move meeting 1 to 4pm', 'move meeting 2 to 4pm']);
    // Without the new time there is still something to ask: no choices, the example only.
    const open = f(userMsg('move my meeting with bob'), from).input as { detail: string; choices?: unknown };
    expect(open.detail).to.match(/Which one\? Say e\.g\. "move meeting 1 to <new time>"\.$/);
    expect(open.choices).to.equal(undefined);
    expect(listing).to.deep.equal(['urn:uuid:b1', 'urn:uuid:b2']);
    expect(f(userMsg('cancel meeting 2'), from).input).to.deep.include({ meeting: withBob[1] });
  });

  it('"cancel my 3pm meeting", "the meeting at 15:30", "tomorrow\'s meeting", "the budget meeting": the one described, never the last booked instead', () => {
    // Found by hand on npm start: "cancel the meeting at 15:30" cancelled the last booked meeting, at 14:00.
    const budget = meeting('a1', 'Budget review', '2026-12-09T15:30:00Z');
    const monday = meeting('b1', 'Meeting with bob', '2026-12-14T14:00:00Z');
    const roomOnly = meeting('c1', 'Room booking', '2026-12-10T09:00:00Z', { participants: ['calendar-alice'], room: 'room-atlas' });
    const carols = meeting('d1', 'Carol sync', '2026-12-10T15:00:00Z', { organizer: 'carol@localhost', participants: ['calendar-carol', 'calendar-alice'] });
    const all = [budget, roomOnly, carols, monday];
    let listing: string[] | undefined;
    let zone = 'UTC';
    const f = userMsgFactory({
      self: 'Coordinator', domain: DOMAIN, timeouts: T,
      scheduling: {
        oacopTimeoutMs: 5000, lastMeeting: () => monday, openTasks: () => [], now: () => NOW, meetingsAhead: () => all, zones: () => ({ 'alice@localhost': zone }),
        listing: () => listing, saveListing: (_p, ids) => { listing = ids; }, meeting: (id) => all.find((m) => m.threadId === id),
      },
    });
    const from = identify('presenter@localhost', DOMAIN);
    const picks = (line: string) => (f(userMsg(line), from).input as { meeting?: MeetingRecord }).meeting?.title;
    const says = (line: string) => (f(userMsg(line), from).input as { detail?: string }).detail;
    expect(picks('cancel the meeting at 15:30')).to.equal('Budget review');
    expect(picks('please cancel my 3:30pm meeting.')).to.equal('Budget review');
    expect(picks("cancel tomorrow's meeting"), 'carol booked the other one tomorrow').to.equal('Room booking');
    expect(picks('cancel my meeting on monday')).to.equal('Meeting with bob');
    expect(picks("cancel my 2 o'clock meeting"), 'without am/pm, 14:00 as well as 02:00').to.equal('Meeting with bob');
    expect(picks('cancel the budget meeting')).to.equal('Budget review');
    expect(picks('cancel the room booking')).to.equal('Room booking');
    expect(picks('cancel the atlas meeting')).to.equal('Room booking');
    expect(picks('cancel my next meeting')).to.equal('Budget review');
    expect(picks('cancel that meeting'), 'nothing described: the last booked, as before').to.equal('Meeting with bob');
    expect(says('cancel the meeting at 11pm')).to.equal('You have no meeting ahead at 11pm that you booked. "my meetings" lists the ones you have.');
    expect(says('cancel the meeting with bob tomorrow')).to.equal('You have no meeting ahead with bob tomorrow that you booked. "my meetings" lists the ones you have.');
    expect(says('cancel the standup meeting')).to.equal('You have no meeting ahead called "standup" that you booked. "my meetings" lists the ones you have.');
    expect(says('cancel the meeting tomorrow at 3pm')).to.equal('Only carol, who booked "Carol sync" (Thu 10 Dec 2026, 15:00–15:30 UTC), can cancel it.');
    // Several fit: listed, each a choice.
    expect(says('cancel my meeting with bob')).to.match(/^You have 2 meetings ahead with bob:\n1\. Budget review: .*\n2\. Meeting with bob: /);
    expect(listing).to.deep.equal(['urn:uuid:a1', 'urn:uuid:b1']);
    // A move reads the meeting before "to" and the new time after it.
    expect(f(userMsg('move the meeting at 3:30pm to 4pm'), from).input).to.deep.include({ meeting: budget });
    expect(f(userMsg('move my 3:30pm meeting to 5pm'), from).input).to.deep.include({ meeting: budget });
    expect(says('move the meeting at 11pm to 4pm')).to.match(/^You have no meeting ahead at 11pm that you booked/);
    // The person's zone: 15:30 UTC is 00:30 on Thursday in Tokyo.
    zone = 'Asia/Tokyo';
    expect(picks('cancel the meeting at 00:30 tomorrow')).to.equal('Budget review');
    expect(says('cancel the meeting at 15:30')).to.match(/^You have no meeting ahead at 15:30/);
  });

  it('"I can\'t make the meeting on monday": the organizer is told (NOTIFY_USER) with how to move or cancel it; the person hears so', () => {
    const monday = meeting('m1', 'Meeting with bob', '2026-12-14T11:00:00Z');
    const friday = meeting('f1', 'Planning', '2026-12-11T10:00:00Z', { participants: ['calendar-alice', 'calendar-bob', 'calendar-carol'] });
    const own = meeting('o1', 'Bob\'s own', '2026-12-10T09:00:00Z', { organizer: 'bob@localhost', participants: ['calendar-bob', 'calendar-dave'] });
    const f = userMsgFactory({
      self: 'Coordinator', domain: DOMAIN, timeouts: T,
      scheduling: { oacopTimeoutMs: 5000, lastMeeting: () => undefined, openTasks: () => [], now: () => NOW, meetingsAhead: () => [own, friday, monday], zones: () => ({ 'alice@localhost': 'Europe/Berlin' }) },
    });
    const from = identify('presenter@localhost', DOMAIN);
    const r = f(userMsg("sorry, I can't make the meeting on monday because I'm ill", 'bob@localhost'), from);
    expect(r.machine).to.equal(cantMakeMachine);
    const sent: Envelope[] = [];
    const actor = createActor(r.machine, { input: r.input });
    actor.on('send', (e: { envelope: Envelope }) => sent.push(e.envelope));
    actor.start();
    expect(sent.map((e) => e.content.type)).to.deep.equal(['NOTIFY_USER', 'PRESENTER_REPLY']);
    expect(sent[0]?.content).to.deep.include({ user: 'alice@localhost', text: 'bob can\'t make "Meeting with bob" (Mon 14 Dec 2026, 12:00–12:30 Europe/Berlin): "I\'m ill"\nTo move it, say e.g. "move my meeting with bob on 14 Dec to …"; to cancel it, "cancel my meeting with bob on 14 Dec".' });
    expect(sent[1]?.content.text).to.equal('I told alice you can\'t make "Meeting with bob" (Mon 14 Dec 2026, 11:00–11:30 UTC). It stays in your calendar until alice moves or cancels it.');
    const says = (line: string) => (f(userMsg(line, 'bob@localhost'), from).input as { detail?: string }).detail;
    // The organizer's line names exactly that meeting.
    expect(f(userMsg('cancel my meeting with bob on 14 Dec', 'alice@localhost'), from).input).to.deep.include({ meeting: monday });
    expect(says("I can't make the meeting")).to.match(/^You are in 2 meetings ahead that others booked:\n1\. Planning: .*\n2\. Meeting with bob: .*\nWhich one\?/);
    expect(f(userMsg("I can't attend the meeting with carol", 'bob@localhost'), from).input).to.deep.include({ meeting: friday });
    expect(says("I can't make the meeting on thursday")).to.match(/^You booked that meeting yourself/);
    expect(says("I can't make the meeting at 11pm")).to.equal('You are in no meeting ahead at 11pm that someone else booked. "my meetings" lists the ones you have.');
  });

  it('the route reads the store for the person who asked', () => {
    const asked: string[] = [];
    const f = userMsgFactory({
      self: 'Coordinator', domain: DOMAIN, timeouts: T,
      scheduling: { oacopTimeoutMs: 5000, lastMeeting: () => undefined, openTasks: () => [], now: () => NOW,
        meetingsAhead: (person) => { asked.push(`meetings ${person}`); return []; }, tasksOf: (person) => { asked.push(`tasks ${person}`); return []; } },
    });
    const r = f(userMsg('my meetings', 'carol@localhost'), identify('presenter@localhost', DOMAIN));
    expect(r.machine).to.equal(agendaMachine);
    expect(asked).to.deep.equal(['meetings carol@localhost', 'tasks carol@localhost']);
  });

  it('the store: meetings not yet over that the person organized or attends, soonest first; open tasks given or taken', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-agenda-'));
    const store = new SchedulingStore(path.join(dir, 'scheduling.sqlite'));
    try {
      store.saveMeeting(meeting('late', 'Later', '2026-12-12T09:00:00Z'));
      store.saveMeeting(meeting('soon', 'Sooner', '2026-12-10T09:00:00Z'));
      store.saveMeeting(meeting('over', 'Over', '2026-12-08T09:00:00Z'));
      store.saveMeeting(meeting('off', 'Off', '2026-12-11T09:00:00Z', { status: 'CANCELLED' }));
      store.saveMeeting(meeting('virt', 'Virtual', '2026-12-11T09:00:00Z', { organizer: 'dave@localhost', participants: ['dave@calendars.localhost', 'bob@calendars.localhost'] }));
      store.saveMeeting(meeting('bobby', 'Not bob', '2026-12-11T10:00:00Z', { organizer: 'dave@localhost', participants: ['calendar-dave', 'calendar-bobby'] }));
      const at = NOW.toISOString();
      expect(store.meetingsAhead('bob@localhost', at, DOMAIN).map((m) => m.title)).to.deep.equal(['Sooner', 'Virtual', 'Later']);
      expect(store.meetingsAhead('alice@localhost', at, DOMAIN).map((m) => m.title)).to.deep.equal(['Sooner', 'Later']);
      expect(store.meetingsAhead('carol@localhost', at, DOMAIN)).to.deep.equal([]);
      store.saveTask(task('a', 'Given', { deadline: '2026-12-20T17:00:00Z' }));
      store.saveTask(task('b', 'Taken', { assigner: 'carol@localhost', assignee: 'alice@localhost', deadline: '2026-12-15T17:00:00Z' }));
      store.saveTask(task('c', 'Finished', { status: 'COMPLETED' }));
      expect(store.openTasksOf('alice@localhost').map((t) => t.title)).to.deep.equal(['Taken', 'Given']);
      expect(store.openTasksOf('bob@localhost').map((t) => t.title)).to.deep.equal(['Given']);
    } finally {
      store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('Coordinator [tasks] an answer may name which open task it is about', () => {
  const open = [task('3', 'report'), task('2', 'Q1 report'), task('1', 'Slides')];
  it('alone: the task assigned last; naming one (quoted or not) picks it and leaves the rest as the comment', () => {
    expect(pickTask(open, undefined)).to.deep.equal({ task: open[0] });
    expect(pickTask(open, 'draft started')).to.deep.equal({ task: open[0], comment: 'draft started' });
    expect(pickTask(open, '"slides"')).to.deep.equal({ task: open[2] });
    expect(pickTask(open, "'Q1 report': draft started")).to.deep.equal({ task: open[1], comment: 'draft started' });
    expect(pickTask(open, 'q1 report, waiting for numbers')).to.deep.equal({ task: open[1], comment: 'waiting for numbers' });
    expect(pickTask([], 'Slides')).to.equal(undefined);
    // Whole words only: a task called "x" is not named by a comment with an x inside a word.
    const withX = [task('9', 'x'), ...open];
    expect(pickTask(withX, 'fixed the tax table')).to.deep.equal({ task: withX[0], comment: 'fixed the tax table' });
    expect(pickTask([...open, task('9', 'x')], 'fixed the tax table')).to.deep.equal({ task: open[0], comment: 'fixed the tax table' });
    expect(pickTask([...open, task('9', 'x')], '"x" at last')).to.deep.equal({ task: task('9', 'x'), comment: 'at last' });
    expect(pickTask([...open, task('9', 'C++ (v2)')], 'c++ (v2): built')).to.deep.include({ comment: 'built' });
    // A part of exactly one title, quoted or before a colon.
    expect(pickTask(open, 'Q1 rep: numbers in')).to.deep.equal({ task: open[1], comment: 'numbers in' });
    expect(pickTask(open, '"slid" almost')).to.deep.equal({ task: open[2], comment: 'almost' });
    expect(pickTask(open, 'repo: which one?')).to.deep.equal({ task: open[0], comment: 'repo: which one?' });
    // "I finished the report" for "write report": words pointing at the task are no comment.
    const written = [task('5', 'write report')];
    expect(pickTask(written, 'the report')).to.deep.equal({ task: written[0] });
    expect(pickTask(written, 'it')).to.deep.equal({ task: written[0] });
    expect(pickTask(written, 'the report, numbers inside')).to.deep.equal({ task: written[0], comment: 'the report, numbers inside' });
  });

  it('the route answers the named task: `done "Slides"` with three open', () => {
    const f = userMsgFactory({
      self: 'Coordinator', domain: DOMAIN, timeouts: T,
      scheduling: { oacopTimeoutMs: 5000, lastMeeting: () => undefined, openTasks: () => open, now: () => NOW },
    });
    const r = f(userMsg('done "Slides"', 'bob@localhost'), identify('presenter@localhost', DOMAIN));
    expect(r.input).to.deep.include({ task: open[2], status: 'COMPLETED' });
  });

  it('a sentence that names a task ("I will do the budget") answers that task, or says none is open by that name; never the latest instead', () => {
    // By hand on npm start: "I will do the budget", with "budget" no longer open, accepted "write report" with "the budget" as its comment.
    const two = [task('7', 'write report'), task('6', 'Slides')];
    expect(pickTask(two, 'the budget', true)).to.deep.equal({ detail: 'You have no open task called "budget". Your open tasks: "write report", "Slides". Name it as it is, e.g. done "write report".' });
    expect(pickTask(two, 'the slides', true), 'a paraphrase of an older one').to.deep.equal({ task: two[1] });
    expect(pickTask(two, 'the report', true)).to.deep.equal({ task: two[0] });
    expect(pickTask([task('8', 'write report'), task('9', 'read report')], 'the report', true)).to.deep.equal({ detail: '"report" could be "write report" or "read report": name it as it is, e.g. done "write report".' });
    const twice = [task('11', 'write report'), task('10', 'write report')];
    expect(pickTask(twice, 'the report', true), 'the same title twice: the last assigned').to.deep.equal({ task: twice[0] });
    expect(pickTask(two, 'the budget'), 'a comment, not a name ("50% the budget"): the latest, as before').to.deep.equal({ task: two[0], comment: 'the budget' });
    const f = userMsgFactory({
      self: 'Coordinator', domain: DOMAIN, timeouts: T,
      scheduling: { oacopTimeoutMs: 5000, lastMeeting: () => undefined, openTasks: () => two, now: () => NOW },
    });
    const said = f(userMsg('I will do the budget', 'bob@localhost'), identify('presenter@localhost', DOMAIN));
    expect((said.input as { detail: string }).detail).to.match(/^You have no open task called "budget"\./);
    expect(f(userMsg('I finished the slides', 'bob@localhost'), identify('presenter@localhost', DOMAIN)).input).to.deep.include({ task: two[1], status: 'COMPLETED' });
  });
});
