import { expect } from 'chai';
import { classifyIntent } from '../../agents/coordinator/intent.js';
import { parseDuration, parseMeet, parseNames, parseScheduling, parseTaskAnswer } from '../../agents/coordinator/scheduling/parse.js';
import { alternativesText, bookCommand } from '../../agents/coordinator/scheduling/texts.js';

// Wednesday 9 December 2026, 10:00 UTC.
const NOW = new Date('2026-12-09T10:00:00Z');

describe('Coordinator [scheduling parse] natural chat', () => {
  it('reads "schedule 30 min with bob and carol tomorrow afternoon in a room for 3"', () => {
    const r = parseScheduling('schedule 30 min with bob and carol tomorrow afternoon in a room for 3', NOW);
    expect(r).to.deep.include({ kind: 'schedule', durationMin: 30, participants: ['bob', 'carol'], optional: [], room: { capacity: 3 } });
    expect((r as { window: unknown }).window).to.deep.equal({ start: '2026-12-10T12:00:00.000Z', end: '2026-12-10T18:00:00.000Z' });
  });

  it('reads durations in their usual forms', () => {
    expect(parseDuration('1 hour')?.minutes).to.equal(60);
    expect(parseDuration('an hour')?.minutes).to.equal(60);
    expect(parseDuration('half an hour')?.minutes).to.equal(30);
    expect(parseDuration('45m')?.minutes).to.equal(45);
    expect(parseDuration('1h30')?.minutes).to.equal(90);
    expect(parseDuration('90 minutes')?.minutes).to.equal(90);
    expect(parseDuration('with bob')).to.equal(undefined);
  });

  it('reads names up to the first word that is not one, with optional people', () => {
    expect(parseNames('bob, carol and dave on friday')).to.deep.equal({ required: ['bob', 'carol', 'dave'], optional: [] });
    expect(parseNames('bob and optionally carol tomorrow')).to.deep.equal({ required: ['bob'], optional: ['carol'] });
  });

  it('a bare day means its working hours; a stated hour means exactly that slot; a past window starts now', () => {
    const day = parseScheduling('schedule 1 hour with bob on friday', NOW) as { window: unknown };
    expect(day.window).to.deep.equal({ start: '2026-12-11T08:00:00.000Z', end: '2026-12-11T18:00:00.000Z' });
    const exact = parseScheduling('book 30 min with bob friday 3pm', NOW) as { window: unknown };
    expect(exact.window).to.deep.equal({ start: '2026-12-11T15:00:00.000Z', end: '2026-12-11T15:30:00.000Z' });
    const today = parseScheduling('schedule 30 min with bob today', new Date('2026-12-09T10:02:00Z')) as { window: { start: string } };
    expect(today.window.start).to.equal('2026-12-09T10:05:00.000Z');
  });

  it('asks back when the duration or the people are missing', () => {
    expect(parseScheduling('schedule with bob tomorrow', NOW)).to.include({ kind: 'scheduling-error' });
    expect(parseScheduling('schedule 30 min with tomorrow', NOW)).to.include({ kind: 'scheduling-error' });
    // A meeting with nobody named was left to the experts ("I can't help with that one").
    // … and so with a lead-in ("help me schedule a meeting" got "I can't help with that one").
    for (const t of ['schedule a meeting', 'please book a call', 'set up a new meeting for friday', 'arrange an appointment', 'help me schedule a meeting',
      "I'd like to set up a call", 'can you please arrange a meeting?']) {
      expect(parseScheduling(t, NOW), t).to.deep.equal({
        kind: 'scheduling-error', detail: 'With whom, for how long and when? Say e.g. "schedule 30 min with bob tomorrow afternoon".', askBack: { text: 'schedule', missing: 'details' },
      });
    }
    expect(parseScheduling('I want to schedule 30 min with bob tomorrow at 10', NOW)).to.deep.include({ kind: 'schedule', durationMin: 30, participants: ['bob'] });
    expect(parseScheduling('could you book a room for 4 tomorrow at 10 for an hour', NOW)).to.deep.include({ kind: 'schedule', durationMin: 60, participants: [] });
    // Everything said at once: booked, not asked back "With whom, for how long and when?".
    for (const t of ['set up a call with bob next monday at 2pm for 45 minutes', 'plan a meeting with bob and carol tomorrow at 10 for 1 hour', 'organise an appointment with bob on friday for 30 min']) {
      expect(parseScheduling(t, NOW), t).to.deep.include({ kind: 'schedule' });
    }
    expect(parseScheduling('set up a call with bob next monday at 2pm for 45 minutes', NOW)).to.deep.include({ durationMin: 45, participants: ['bob'] });
    for (const t of ['help me with maths', 'can you tell me a joke', 'I want to know the time']) expect(parseScheduling(t, NOW), t).to.equal(undefined);
    expect(parseScheduling('schedule 25 hours with bob on friday', NOW)).to.deep.equal({ kind: 'scheduling-error', detail: 'A meeting can be at most 24 hours long, not 25 hours.' });
  });

  it('"meet bob on friday" in plain words is the natural form (it got the strict form\'s usage line: bad duration "bob")', () => {
    // Asked back, the answer completes it (follow-up.ts).
    expect(parseScheduling('meet bob on friday', NOW)).to.deep.equal({
      kind: 'scheduling-error', detail: 'How long should the meeting be? Say e.g. "schedule 30 min with bob tomorrow afternoon".', askBack: { text: 'schedule with bob on friday', missing: 'duration' },
    });
    expect(parseScheduling('meet with bob and carol for 30 min tomorrow at 10', NOW)).to.deep.include({ kind: 'schedule', durationMin: 30, participants: ['bob', 'carol'], window: { start: '2026-12-10T10:00:00.000Z', end: '2026-12-10T10:30:00.000Z' } });
    // The strict form stays strict: a length first, or names with commas and "?", or "-".
    expect(parseScheduling('meet 30m bob 2026-12-10T09:00Z..2026-12-10T12:00Z', NOW)).to.deep.include({ kind: 'schedule', participants: ['bob'] });
    expect(parseScheduling('meet bob,carol? 2026-12-10T09:00Z..2026-12-10T12:00Z', NOW)).to.deep.include({ kind: 'scheduling-error' }).and.satisfy((r: { detail: string }) => r.detail.startsWith('usage: meet'));
    expect(parseScheduling('/meet bob', NOW)).to.deep.include({ kind: 'scheduling-error' }).and.satisfy((r: { detail: string }) => r.detail.startsWith('usage: meet'));
  });

  it('a window that is over, or too short, is told in the person\'s own time zone', () => {
    expect(parseScheduling('schedule 30 min with bob yesterday', NOW, 'Europe/Warsaw')).to.deep.equal({
      kind: 'scheduling-error', detail: 'That time (Tue 8 Dec 2026, 08:00–18:00 Europe/Warsaw) is already over.',
    });
    expect(parseMeet('meet 30m bob 2026-12-09T09:00Z..2026-12-09T10:10Z', NOW, 'Europe/Warsaw')).to.deep.equal({
      kind: 'scheduling-error', detail: 'A 30-minute meeting does not fit in Wed 9 Dec 2026, 11:00–11:10 Europe/Warsaw.',
    });
  });

  it('a room named bare ("in atlas") is the room, never dropped; time, number and filler words after "in" are not rooms', () => {
    expect(parseScheduling('schedule 1 hour with bob tomorrow at 10 in atlas', NOW)).to.deep.include({ participants: ['bob'], room: { name: 'atlas' }, durationMin: 60 });
    expect(parseScheduling('schedule 1 hour with bob in Atlas tomorrow at 10', NOW)).to.deep.include({ room: { name: 'atlas' } });
    expect(parseScheduling('book 30 min with bob tomorrow in the borealis room', NOW)).to.deep.include({ room: { name: 'borealis' } });
    for (const line of ['schedule 30 min with bob in the afternoon', 'schedule 30 min with bob in two days', 'schedule 30 min with bob in an hour',
      'schedule 30 min with bob in 3 days', 'schedule 30 min with bob in january', 'schedule 30 min with bob in my time zone', 'schedule 30 min with bob in person']) {
      expect(parseScheduling(line, NOW), line).to.not.have.property('room');
    }
    for (const line of ['schedule 30 min with bob tomorrow in a big room', 'schedule 30 min with bob tomorrow in the meeting room', 'schedule 30 min with bob tomorrow in a room']) {
      expect(parseScheduling(line, NOW), line).to.deep.include({ room: {} });
    }
  });

  it('a room alone: "book a room for 5 people tomorrow at 10 for an hour" is the asker and a room; without a length it is asked back', () => {
    const r = parseScheduling('book a room for 5 people tomorrow at 10 for an hour', NOW);
    expect(r).to.deep.include({ kind: 'schedule', durationMin: 60, participants: [], optional: [], room: { capacity: 5 }, title: 'Room booking' });
    expect((r as { window: unknown }).window).to.deep.equal({ start: '2026-12-10T10:00:00.000Z', end: '2026-12-10T11:00:00.000Z' });
    expect(parseScheduling('reserve room atlas tomorrow 14:00 for 30 min', NOW)).to.deep.include({ participants: [], room: { name: 'atlas' }, title: 'Room booking (atlas)', durationMin: 30 });
    expect(parseScheduling('book the cosmos room on friday for 2 hours', NOW)).to.deep.include({ room: { name: 'cosmos' }, durationMin: 120 });
    expect(parseScheduling('book a room for 5 people tomorrow at 10', NOW)).to.deep.equal({
      kind: 'scheduling-error', detail: 'How long do you need the room? Say e.g. "book a room for 4 for 1 hour tomorrow at 10".', askBack: { text: 'book a room for 5 people tomorrow at 10', missing: 'duration' },
    });
    expect(classifyIntent('book a meeting room for 4 tomorrow for 1 hour', NOW)).to.deep.include({ kind: 'scheduling' });
    // Without a room and without anyone it is still "with whom?".
    expect(parseScheduling('schedule a meeting for 30 min tomorrow', NOW)).to.deep.include({ kind: 'scheduling-error' });
  });

  it('a suggested time\'s command books the room that was free then, by name, and "-" for nobody else; it reads back as asked', () => {
    const slot = { start: '2026-12-11T09:00:00Z', end: '2026-12-11T10:00:00Z' };
    const cmd = bookCommand(slot, { minutes: 60, names: [], roomWanted: true, room: 'room-atlas' });
    expect(cmd).to.equal('meet 60m - 2026-12-11T09:00Z..2026-12-11T10:00Z atlas');
    expect(parseScheduling(cmd, NOW)).to.deep.include({ kind: 'schedule', participants: [], room: { name: 'atlas' }, durationMin: 60, title: 'Room booking (atlas)' });
    expect(bookCommand(slot, { minutes: 60, names: ['bob', 'carol?'], roomWanted: true })).to.equal('meet 60m bob,carol? 2026-12-11T09:00Z..2026-12-11T10:00Z room');
    const text = alternativesText({ head: 'No.', slots: [{ slot, room: 'room-cosmos' }], minutes: 60, names: ['bob'], roomWanted: true, zone: 'UTC' });
    expect(text).to.contain('(room cosmos)').and.contain('To book one, reply 1. The first in full: meet 60m bob 2026-12-11T09:00Z..2026-12-11T10:00Z cosmos');
    expect(parseMeet('meet 60m - 2026-12-11T09:00Z..2026-12-11T10:00Z', NOW)).to.deep.include({ kind: 'scheduling-error' });
  });

  it('names a room: "in the cosmos room" / "in room dune"', () => {
    expect(parseScheduling('schedule 30 min with bob tomorrow in the cosmos room', NOW)).to.deep.include({ room: { name: 'cosmos' } });
    expect(parseScheduling('schedule 30 min with bob tomorrow in room dune', NOW)).to.deep.include({ room: { name: 'dune' } });
  });
});

describe('Coordinator [scheduling parse] strict /meet form', () => {
  it('reads duration, participants (? = optional), the UTC window and the room', () => {
    const r = parseMeet('/meet 30m bob,carol? 2026-12-10T09:00Z..2026-12-12T18:00Z room', NOW);
    expect(r).to.deep.equal({
      kind: 'schedule', durationMin: 30, participants: ['bob', 'carol'], optional: ['carol'], title: 'Meeting with bob, carol',
      window: { start: '2026-12-10T09:00:00.000Z', end: '2026-12-12T18:00:00.000Z' }, room: {},
    });
    expect(parseMeet('/meet 1h30 bob 2026-12-10T09:00Z..2026-12-10T18:00Z room:6', NOW)).to.deep.include({ durationMin: 90, room: { capacity: 6 } });
    expect(parseMeet('/meet 45 bob 2026-12-10T09:00Z..2026-12-10T18:00Z cosmos', NOW)).to.deep.include({ durationMin: 45, room: { name: 'cosmos' } });
    expect(parseMeet('/meet 30m bob 2026-12-10T09:00Z..2026-12-10T18:00Z', NOW)).to.not.have.property('room');
  });

  it('answers a usage line for every malformed part', () => {
    for (const bad of ['/meet', '/meet 30m bob', '/meet 0m bob 2026-12-10T09:00Z..2026-12-10T18:00Z', '/meet 30m b@d 2026-12-10T09:00Z..2026-12-10T18:00Z',
      '/meet 30m bob 2026-12-10T18:00Z..2026-12-10T09:00Z', '/meet 30m bob 2026-12-10..2026-12-11', '/meet 30m bob 2026-12-10T09:00Z..2026-12-10T18:00Z r@@m',
      '/meet 30m bob 2026-12-08T09:00Z..2026-12-08T18:00Z']) {
      const r = parseMeet(bad, NOW);
      expect(r.kind, bad).to.equal('scheduling-error');
    }
  });
});

describe('Coordinator [scheduling parse] cancel, assign and task answers', () => {
  it('recognises "cancel that meeting"', () => {
    for (const t of ['cancel that meeting', 'Please cancel the meeting', 'cancel my last meeting', '/cancel']) expect(parseScheduling(t, NOW), t).to.deep.equal({ kind: 'cancel-meeting' });
  });

  it('reads "assign \'Q1 report\' to bob by Friday" as Friday 17:00 UTC', () => {
    expect(parseScheduling("assign 'Q1 report' to bob by Friday", NOW)).to.deep.equal({ kind: 'assign', title: 'Q1 report', assignee: 'bob', deadline: '2026-12-11T17:00:00Z' });
    expect(parseScheduling('assign the slides to Carol by friday 3pm', NOW)).to.deep.equal({ kind: 'assign', title: 'the slides', assignee: 'carol', deadline: '2026-12-11T15:00:00Z' });
    expect(parseScheduling('/assign bob 2026-12-20T12:00Z Q1 report', NOW)).to.deep.equal({ kind: 'assign', title: 'Q1 report', assignee: 'bob', deadline: '2026-12-20T12:00:00Z' });
  });

  it('assigns no task without a title or with a due date already past (they were assigned: "\'\'", due last year)', () => {
    expect(parseScheduling("assign '' to bob", NOW)).to.deep.include({ kind: 'scheduling-error', detail: 'What is the task? Say e.g. "assign \'Q1 report\' to bob by Friday".' });
    expect(parseScheduling('assign ?! to bob by friday', NOW)).to.deep.include({ kind: 'scheduling-error' });
    expect(parseScheduling("assign 'x' to bob by last year", NOW, 'Europe/Warsaw')).to.deep.equal({
      kind: 'scheduling-error', detail: 'That due date (Tue 9 Dec 2025, 17:00 Europe/Warsaw) is already past. Say e.g. "assign \'Q1 report\' to bob by Friday".',
    });
    expect(parseScheduling('/assign bob 2026-12-01T12:00Z Q1 report', NOW)).to.deep.include({ kind: 'scheduling-error' });
    expect(parseScheduling("assign 'Q1 report' to bob by today 9am", NOW)).to.deep.include({ kind: 'scheduling-error' });
  });

  it('reads the assignee\'s answers as §4.2 TaskUpdate statuses', () => {
    expect(parseTaskAnswer('accept')).to.deep.equal({ kind: 'task-answer', status: 'ACCEPTED' });
    expect(parseTaskAnswer('decline, no time')).to.deep.equal({ kind: 'task-answer', status: 'DECLINED', comment: 'no time' });
    expect(parseTaskAnswer('50% draft started')).to.deep.equal({ kind: 'task-answer', status: 'IN_PROGRESS', progress: 50, comment: 'draft started' });
    expect(parseTaskAnswer('done')).to.deep.equal({ kind: 'task-answer', status: 'COMPLETED', progress: 100 });
    expect(parseTaskAnswer('blocked: waiting for numbers')).to.deep.equal({ kind: 'task-answer', status: 'BLOCKED', comment: 'waiting for numbers' });
    expect(parseTaskAnswer('150% sure')).to.equal(undefined);
    expect(parseTaskAnswer('how far is the moon?')).to.equal(undefined);
  });

  it('reads an answer written as a sentence, and leaves questions and other sentences alone', () => {
    // A sentence's object names the task (`names`: pick-task.ts says when no open task is called so).
    const done = (comment?: string) => ({ kind: 'task-answer', status: 'COMPLETED', progress: 100, ...(comment ? { comment, names: true } : {}) });
    expect(parseTaskAnswer('I finished the report')).to.deep.equal(done('the report'));
    expect(parseTaskAnswer("I've just completed Q1 report.")).to.deep.equal(done('Q1 report'));
    expect(parseTaskAnswer("I'm done with the slides")).to.deep.equal(done('the slides'));
    expect(parseTaskAnswer("I'm done")).to.deep.equal(done());
    expect(parseTaskAnswer('mark write report as done')).to.deep.equal(done('write report'));
    expect(parseTaskAnswer('the Q1 report is finished!')).to.deep.equal(done('the Q1 report'));
    expect(parseTaskAnswer("ok, I'll do it by Thursday")).to.deep.equal({ kind: 'task-answer', status: 'ACCEPTED', comment: 'by Thursday' });
    expect(parseTaskAnswer("sorry, I can't do it this week")).to.deep.equal({ kind: 'task-answer', status: 'DECLINED', comment: 'this week' });
    expect(parseTaskAnswer("I'm stuck on the numbers")).to.deep.equal({ kind: 'task-answer', status: 'BLOCKED', comment: 'the numbers' });
    // "I will do the budget" got "I can't help" (by hand on npm start); the task named is the comment pick-task reads.
    expect(parseTaskAnswer('I will do the budget')).to.deep.equal({ kind: 'task-answer', status: 'ACCEPTED', comment: 'the budget', names: true });
    expect(parseTaskAnswer("I'll take on the report")).to.deep.equal({ kind: 'task-answer', status: 'ACCEPTED', comment: 'the report', names: true });
    expect(parseTaskAnswer("I can't do the budget this week")).to.deep.equal({ kind: 'task-answer', status: 'DECLINED', comment: 'the budget this week', names: true });
    // A line about a meeting is no task answer: "decline the meeting with alice" declined bob's task "budget" (by hand).
    for (const t of ['decline the meeting with alice', 'accept the invitation', 'decline my call tomorrow', 'reject the meeting.']) expect(parseTaskAnswer(t), t).to.equal(undefined);
    expect(parseTaskAnswer('done the meeting notes'), 'a title with "meeting" in it').to.deep.equal({ kind: 'task-answer', status: 'COMPLETED', progress: 100, comment: 'the meeting notes' });
    for (const t of ['what is done?', 'is the report done?', 'how is it done', "I can't make it to lunch", "I'll take a look", 'I think so', 'dinner is ready?']) {
      expect(parseTaskAnswer(t), t).to.equal(undefined);
    }
  });

  it('leaves questions to the expert flow', () => {
    for (const t of ['How far is the moon?', 'what is 2+2?', 'what time is it in Tokyo?', 'schedule of the trains?']) expect(classifyIntent(t, NOW).kind, t).to.equal('ask');
    expect(classifyIntent('/meet 30m bob 2026-12-10T09:00Z..2026-12-10T18:00Z', NOW).kind).to.equal('scheduling');
  });
});
