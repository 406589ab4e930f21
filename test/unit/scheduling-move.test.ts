import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fromPromise } from 'xstate';
import type { Envelope } from '../../shared/acl/index.js';
import { classifyIntent } from '../../agents/coordinator/intent.js';
import { moveTarget, parseMove } from '../../agents/coordinator/scheduling/move.js';
import { MeetingLocks } from '../../agents/coordinator/scheduling/meeting-locks.js';
import { moveMachine } from '../../agents/coordinator/scheduling/move-machine.js';
import { type MeetingRecord, SchedulingStore } from '../../agents/coordinator/scheduling/store.js';
import { schedulingRoute } from '../../agents/coordinator/scheduling/route.js';
import { usageMachine } from '../../agents/coordinator/scheduling/usage.js';
import { DOMAIN, harness, T, userMsg } from './coordinator-harness.js';

const NOW = new Date('2026-12-09T10:00:00Z');
const meeting: MeetingRecord = {
  threadId: 'urn:uuid:1', organizer: 'alice@localhost', title: 'Meeting with bob, carol', revision: 2, status: 'CONFIRMED',
  slot: { start: '2026-12-10T09:00:00Z', end: '2026-12-10T10:00:00Z' }, participants: ['calendar-alice', 'calendar-bob', 'carol@calendars.localhost'], room: 'room-atlas',
};
const PARTIES = ['calendar-alice', 'calendar-bob', 'carol@calendars.localhost', 'room-atlas'];
// Not a sleep: the fake actors resolve in microtasks, which all run before a 0 ms timer fires.
const settle = () => new Promise((r) => setTimeout(r, 0));

describe('Coordinator [move a meeting] reading what the person asks', () => {
  it('reads "move that meeting to 3pm", "move meeting 2 to …", "push the meeting back by an hour"', () => {
    expect(parseMove('move that meeting to 3pm')).to.deep.equal({ kind: 'move-meeting', to: '3pm' });
    expect(parseMove('reschedule my meeting with bob')).to.deep.equal({ kind: 'move-meeting', to: '', with: ['bob'] });
    expect(parseMove('move the meeting with bob and carol to 4pm')).to.deep.equal({ kind: 'move-meeting', to: '4pm', with: ['bob', 'carol'] });
    expect(parseMove('Please postpone the meeting to tomorrow at 10.')).to.deep.equal({ kind: 'move-meeting', to: 'tomorrow at 10' });
    expect(parseMove('move meeting 2 to friday 9am')).to.deep.equal({ kind: 'move-meeting', to: 'friday 9am', index: 2 });
    expect(parseMove('push the meeting back by an hour')).to.deep.equal({ kind: 'move-meeting', to: 'back by an hour' });
    expect(parseMove('move it to 4pm')).to.deep.equal({ kind: 'move-meeting', to: '4pm' });
    expect(parseMove('push it back by an hour')).to.deep.equal({ kind: 'move-meeting', to: 'back by an hour' });
    expect(parseMove('delay the meeting by 30 minutes')).to.deep.equal({ kind: 'move-meeting', to: 'by 30 minutes' });
    expect(parseMove('bring my meeting with bob forward by an hour')).to.deep.equal({ kind: 'move-meeting', to: 'forward by an hour', with: ['bob'] });
    // The meeting described by a day or time, before the noun or before "to"/"by" (meeting-ref.ts).
    expect(parseMove('move the meeting at 3pm to 4pm')).to.deep.equal({ kind: 'move-meeting', to: '4pm', when: 'at 3pm' });
    expect(parseMove('move my 3pm meeting to 4pm')).to.deep.equal({ kind: 'move-meeting', to: '4pm', when: '3pm' });
    expect(parseMove("move tomorrow's meeting to friday")).to.deep.equal({ kind: 'move-meeting', to: 'friday', when: 'tomorrow' });
    expect(parseMove('delay the meeting on friday by an hour')).to.deep.equal({ kind: 'move-meeting', to: 'by an hour', when: 'on friday' });
    expect(parseMove('move the meeting tomorrow with bob to 4pm')).to.deep.equal({ kind: 'move-meeting', to: '4pm', with: ['bob'], when: 'tomorrow' });
    expect(parseMove('move my next meeting to 4pm')).to.deep.equal({ kind: 'move-meeting', to: '4pm', next: true });
    // After "to" it is all the new time.
    expect(parseMove('move my meeting to friday by noon')).to.deep.equal({ kind: 'move-meeting', to: 'friday by noon' });
    expect(moveTarget(meeting, 'by 30 minutes', NOW, 'UTC')).to.deep.include({ ok: true });
    expect(parseMove('delay the launch')).to.equal(undefined);
    expect(parseMove('bring it on')).to.equal(undefined);
    expect(parseMove('move the couch')).to.equal(undefined);
    expect(parseMove('move it')).to.equal(undefined);
    expect(parseMove('shift items around')).to.equal(undefined);
    expect(classifyIntent('move that meeting to 3pm', NOW)).to.deep.include({ kind: 'scheduling', command: { kind: 'move-meeting', to: '3pm' } });
  });

  it('a stated hour is that slot on the meeting\'s own day; a named day, a part of a day and a shift are read too', () => {
    expect(moveTarget(meeting, '3pm', NOW, 'UTC')).to.deep.equal({ ok: true, window: { start: '2026-12-10T15:00:00.000Z', end: '2026-12-10T16:00:00.000Z' } });
    // In the person's zone: 3pm Berlin is 14:00 UTC.
    expect(moveTarget(meeting, '3pm', NOW, 'Europe/Berlin')).to.deep.equal({ ok: true, window: { start: '2026-12-10T14:00:00.000Z', end: '2026-12-10T15:00:00.000Z' } });
    expect(moveTarget(meeting, 'friday at 11', NOW, 'UTC')).to.deep.equal({ ok: true, window: { start: '2026-12-11T11:00:00.000Z', end: '2026-12-11T12:00:00.000Z' } });
    expect(moveTarget(meeting, '11', NOW, 'UTC')).to.deep.equal({ ok: true, window: { start: '2026-12-10T11:00:00.000Z', end: '2026-12-10T12:00:00.000Z' } });
    expect(moveTarget(meeting, '14:30', NOW, 'UTC')).to.deep.equal({ ok: true, window: { start: '2026-12-10T14:30:00.000Z', end: '2026-12-10T15:30:00.000Z' } });
    expect(moveTarget(meeting, 'yesterday at 9', NOW, 'UTC')).to.deep.include({ ok: false }).and.satisfy((r: { detail: string }) => /already over/.test(r.detail));
    expect(moveTarget(meeting, 'back by an hour', NOW, 'UTC')).to.deep.equal({ ok: true, window: { start: '2026-12-10T10:00:00.000Z', end: '2026-12-10T11:00:00.000Z' } });
    expect(moveTarget(meeting, '30 minutes earlier', NOW, 'UTC')).to.deep.equal({ ok: true, window: { start: '2026-12-10T08:30:00.000Z', end: '2026-12-10T09:30:00.000Z' } });
    const afternoon = moveTarget(meeting, 'friday afternoon', NOW, 'UTC');
    expect(afternoon.ok && Date.parse(afternoon.window.end) - Date.parse(afternoon.window.start)).to.be.greaterThan(60 * 60_000);
  });

  it('no time, an unreadable one, one already over or the same slot: said, with how to ask', () => {
    expect(moveTarget(meeting, '', NOW, 'UTC')).to.deep.equal({ ok: false, detail: 'To when should "Meeting with bob, carol" move? Say e.g. "move that meeting to 3pm", "… to tomorrow at 10" or "… an hour later".' });
    expect(moveTarget(meeting, 'whenever', NOW, 'UTC')).to.deep.include({ ok: false, detail: 'I could not read "whenever" as a time. Say e.g. "move that meeting to 3pm", "… to tomorrow at 10" or "… an hour later".' });
    expect(moveTarget(meeting, '25 hours earlier', NOW, 'UTC')).to.deep.include({ ok: false }).and.satisfy((r: { detail: string }) => /already over/.test(r.detail));
    expect(moveTarget(meeting, '9am', NOW, 'UTC')).to.deep.equal({ ok: false, detail: '"Meeting with bob, carol" is already at Thu 10 Dec 2026, 09:00–10:00 UTC.' });
  });
});

describe('Coordinator [move a meeting] routing', () => {
  const base = (text: string) => ({ request: userMsg(text), from: { jid: 'presenter@localhost', name: 'Presenter' }, self: 'Coordinator', domain: DOMAIN, timeouts: T, canScale: false }) as never;
  const deps = (m: MeetingRecord | undefined, ahead: MeetingRecord[] = []) => ({
    oacopTimeoutMs: 5000, openTasks: () => [], now: () => NOW, zones: () => ({}), lastMeeting: () => m, meetingsAhead: () => ahead,
  });
  const route = (text: string, d: ReturnType<typeof deps>) => schedulingRoute(parseMove(text) as never, base(text), d);
  const detail = (r: ReturnType<typeof route>) => (r?.input as { detail: string }).detail;

  it('the asker\'s last meeting (or "meeting 2" of "my meetings") goes to the move exchange with the new window', () => {
    const r = route('move that meeting to 3pm', deps(meeting));
    expect(r?.machine).to.equal(moveMachine);
    expect(r?.input).to.deep.include({ meeting, window: { start: '2026-12-10T15:00:00.000Z', end: '2026-12-10T16:00:00.000Z' } });
    const other = { ...meeting, threadId: 'urn:uuid:2' };
    expect(route('move meeting 2 to 3pm', deps(undefined, [meeting, other]))?.input).to.deep.include({ meeting: other });
  });

  it('nothing to move, a cancelled or past meeting, someone else\'s, a missing number: one clear answer, nothing sent', () => {
    expect(detail(route('move that meeting to 3pm', deps(undefined)))).to.equal('You have no booked meeting to move.');
    expect(detail(route('move that meeting to 3pm', deps({ ...meeting, status: 'CANCELLED' })))).to.match(/is cancelled\./);
    expect(detail(route('move that meeting to 3pm', deps({ ...meeting, slot: { start: '2026-12-08T09:00:00Z', end: '2026-12-08T10:00:00Z' } })))).to.match(/is already over: nothing was moved\.$/);
    expect(detail(route('move meeting 1 to 3pm', deps(undefined, [{ ...meeting, organizer: 'bob@localhost' }])))).to.equal('Only bob, who booked "Meeting with bob, carol", can move it.');
    expect(detail(route('move meeting 3 to 3pm', deps(undefined, [meeting])))).to.equal('There is no meeting 3: say "my meetings" to see them (1 to 1).');
    expect(route('move that meeting', deps(meeting))?.machine).to.equal(usageMachine);
  });
});

describe('Coordinator [move a meeting] the exchange (OACoP §3.4: new revisions of the same thread)', () => {
  const NEW = { start: '2026-12-10T15:00:00.000Z', end: '2026-12-10T16:00:00.000Z' };
  const start = () => {
    const saved: MeetingRecord[] = [];
    const m = moveMachine.provide({ actors: { save: fromPromise(async ({ input }: { input: MeetingRecord }) => { saved.push(input); }) } });
    const h = harness(m, userMsg('move that meeting to 3pm'), { meeting, window: NEW, now: NOW.toISOString(), oacopTimeoutMs: 5000 });
    return { h, saved };
  };
  const answerAll = (h: ReturnType<typeof start>['h'], performative: string, answer: (e: Envelope) => [string, object]) => {
    for (const e of h.sent.filter((x) => x.performative === performative && PARTIES.includes(x.receiver))) {
      const [p, content] = answer(e);
      h.reply(e, p as never, content);
    }
  };
  const proposeFree = (_e: Envelope): [string, object] => ['PROPOSE', { type: 'ProposalResponse', threadId: 'urn:uuid:1', respondingToRevision: 3, status: 'INTERESTED', availableSlots: [NEW] }];
  const revisionOf = (e: Envelope) => (e.content as { revision: number }).revision;
  const declined = (e: Envelope): [string, object] => ['REFUSE', { type: 'ProposalResponse', threadId: 'urn:uuid:1', respondingToRevision: revisionOf(e), status: 'DECLINED', availableSlots: [] }];
  const offering = (slots: object[]) => (e: Envelope): [string, object] =>
    ['PROPOSE', { type: 'ProposalResponse', threadId: 'urn:uuid:1', respondingToRevision: revisionOf(e), status: 'INTERESTED', availableSlots: slots }];
  /** bob busy at the asked time, everyone else free. */
  const bobBusy = (e: Envelope): [string, object] => (e.receiver === 'calendar-bob' ? declined(e) : proposeFree(e));
  const ack = (e: Envelope): [string, object] => ['INFORM', { type: 'OACoPAck', threadId: 'urn:uuid:1', status: 'CONFIRMED', revision: (e.content as { revision: number }).revision, uid: 'urn:uuid:1', person: e.receiver }];

  it('CFP rev 3 to everyone, then ACCEPT-PROPOSAL rev 4 with the new slot: saved, the others told with SEQUENCE 4, the organizer answered', async () => {
    const { h, saved } = start();
    const cfps = h.sent.filter((e) => e.performative === 'CFP');
    expect(cfps.map((e) => e.receiver)).to.deep.equal(PARTIES);
    expect(cfps[0]?.content).to.deep.include({ type: 'ProposeCollaboration', threadId: 'urn:uuid:1', revision: 3 });
    expect((cfps[0]?.content as { constraints: object }).constraints).to.deep.include({ timeWindow: NEW });
    answerAll(h, 'CFP', proposeFree);
    await settle();
    const accepts = h.sent.filter((e) => e.performative === 'ACCEPT-PROPOSAL');
    expect(accepts.map((e) => e.receiver)).to.deep.equal(PARTIES);
    const CHOSEN = { start: '2026-12-10T15:00:00Z', end: '2026-12-10T16:00:00Z' };
    expect(accepts[0]?.content).to.deep.include({ type: 'ConfirmCollaboration', revision: 4, finalSlot: CHOSEN });
    expect(h.sent.some((e) => e.performative === 'REJECT-PROPOSAL' || e.performative === 'CANCEL')).to.equal(false);
    answerAll(h, 'ACCEPT-PROPOSAL', ack);
    await settle();
    expect(saved).to.deep.equal([{ ...meeting, slot: CHOSEN, revision: 4 }]);
    const notices = h.sent.filter((e) => e.content.type === 'NOTIFY_USER');
    expect(notices.map((e) => e.content.user)).to.deep.equal(['bob@localhost', 'carol@localhost']);
    expect(notices[0]?.content.text).to.equal('alice moved "Meeting with bob, carol" to Thu 10 Dec 2026, 15:00–16:00 UTC (was Thu 10 Dec 2026, 09:00–10:00 UTC). The updated invitation (.ics) follows.');
    const reply = h.last();
    expect(reply.content.text).to.equal([
      'Moved: Meeting with bob, carol', 'Now: Thu 10 Dec 2026, 15:00–16:00 UTC', 'Was: Thu 10 Dec 2026, 09:00–10:00 UTC',
      'Told: bob, carol.', 'Room: atlas (kept)', 'The updated invitation (.ics) follows.',
    ].join('\n'));
    const ics = (reply.content.rich as { ics: string }).ics;
    expect(ics).to.contain('SEQUENCE:4').and.contain('DTSTART:20261210T150000Z').and.contain('UID:urn:uuid:1');
    expect(h.isDone()).to.equal(true);
  });

  it('someone busy then: nothing is confirmed or cancelled anywhere; the days after are asked (CFP rev 4) and the nearest times offered as numbered choices', async () => {
    const { h, saved } = start();
    answerAll(h, 'CFP', bobBusy);
    await settle();
    // The widened round: rev 4, the 3 days after the asked window, to every party; it only suggests.
    const wide = h.sent.filter((e) => e.performative === 'CFP' && (e.content as { revision: number }).revision === 4);
    expect(wide.map((e) => e.receiver)).to.deep.equal(PARTIES);
    expect((wide[0]?.content as { constraints: { timeWindow: unknown } }).constraints.timeWindow).to.deep.equal({ start: NEW.end, end: '2026-12-13T16:00:00.000Z' });
    const free = [{ start: '2026-12-11T09:00:00.000Z', end: '2026-12-11T11:00:00.000Z' }];
    for (const e of wide.filter((x) => x.receiver !== 'room-atlas')) h.reply(e, 'PROPOSE', offering(free)(e)[1]);
    // The room stays silent: its timeout ends the round, and a room that did not answer offers nothing.
    h.clock.increment(5000);
    await settle();
    expect(h.sent.filter((e) => e.performative !== 'CFP'), 'nothing confirmed, rejected or cancelled: only the answer').to.have.length(1);
    expect(saved).to.deep.equal([{ ...meeting, revision: 4 }]);
    expect(h.last().content.text).to.equal([
      'I could not move "Meeting with bob, carol" to Thu 10 Dec 2026, 15:00–16:00 UTC:', '• bob is busy then', 'It stays at Thu 10 Dec 2026, 09:00–10:00 UTC.',
      'There is no time everyone can make in the 3 days after that either.',
    ].join('\n'));
    expect(h.isDone()).to.equal(true);
  });

  it('the meeting\'s own slot (free to it: each calendar leaves it out) is never offered as a time to move to', async () => {
    const m = moveMachine.provide({ actors: { save: fromPromise(async (): Promise<void> => undefined) } });
    const early = { start: '2026-12-10T07:00:00.000Z', end: '2026-12-10T08:00:00.000Z' };
    const h = harness(m, userMsg('move that meeting to 7am'), { meeting, window: early, now: NOW.toISOString(), oacopTimeoutMs: 5000 });
    answerAll(h, 'CFP', declined);
    await settle();
    const free = [{ start: '2026-12-10T08:00:00.000Z', end: '2026-12-10T11:00:00.000Z' }];
    answerAll(h, 'CFP', offering(free));
    await settle();
    expect(h.last().content.text).to.contain('\n1. Thu 10 Dec 2026, 08:00–09:00 UTC\n2. Thu 10 Dec 2026, 10:00–11:00 UTC\nTo move it to one, reply its number (1–2).');
  });

  it('the nearest times, numbered, each a choice whose line moves this meeting there (the strict form, only by its organizer)', async () => {
    const { h, saved } = start();
    answerAll(h, 'CFP', bobBusy);
    await settle();
    const free = [{ start: '2026-12-11T09:00:00.000Z', end: '2026-12-11T11:00:00.000Z' }, { start: '2026-12-12T14:00:00.000Z', end: '2026-12-12T15:00:00.000Z' }];
    answerAll(h, 'CFP', offering(free));
    await settle();
    expect(saved).to.deep.equal([{ ...meeting, revision: 4 }]);
    expect(h.last().content.text).to.equal([
      'I could not move "Meeting with bob, carol" to Thu 10 Dec 2026, 15:00–16:00 UTC:', '• bob is busy then', 'It stays at Thu 10 Dec 2026, 09:00–10:00 UTC.',
      'The nearest times that work for everyone:', '1. Fri 11 Dec 2026, 09:00–10:00 UTC', '2. Fri 11 Dec 2026, 10:00–11:00 UTC', '3. Sat 12 Dec 2026, 14:00–15:00 UTC',
      'To move it to one, reply its number (1–3).',
    ].join('\n'));
    const choices = (h.last().content.rich as { choices: Array<{ label: string; say: string }> }).choices;
    expect(choices.map((c) => c.say)).to.deep.equal(['move urn:uuid:1 to 2026-12-11T09:00Z', 'move urn:uuid:1 to 2026-12-11T10:00Z', 'move urn:uuid:1 to 2026-12-12T14:00Z']);
    expect(h.sent.some((e) => e.performative === 'ACCEPT-PROPOSAL' || e.performative === 'REJECT-PROPOSAL' || e.content.type === 'NOTIFY_USER')).to.equal(false);
    // The chosen line moves exactly this meeting to that start, for its length.
    const uuid = 'urn:uuid:0193a3c4-5b6d-7e8f-9a0b-1c2d3e4f5a6b';
    expect(parseMove(`move ${uuid} to 2026-12-11T10:00Z`)).to.deep.equal({ kind: 'move-meeting', to: '2026-12-11T10:00Z', thread: uuid });
    expect(moveTarget(meeting, '2026-12-11T10:00Z', NOW, 'Europe/Berlin')).to.deep.equal({ ok: true, window: { start: '2026-12-11T10:00:00.000Z', end: '2026-12-11T11:00:00.000Z' } });
    const mine = { ...meeting, threadId: uuid };
    const deps = { oacopTimeoutMs: 5000, openTasks: () => [], now: () => NOW, zones: () => ({}), lastMeeting: () => undefined, meeting: (id: string) => (id === uuid ? mine : undefined) };
    const base = (text: string, user: string) => ({ request: userMsg(text, user), from: { jid: 'presenter@localhost', name: 'Presenter' }, self: 'Coordinator', domain: DOMAIN, timeouts: T, canScale: false }) as never;
    const route = (text: string, user = 'alice@localhost') => schedulingRoute((classifyIntent(text, NOW) as unknown as { command: never }).command, base(text, user), deps);
    expect(route(`move ${uuid} to 2026-12-11T10:00Z`)?.input).to.deep.include({ meeting: mine, window: { start: '2026-12-11T10:00:00.000Z', end: '2026-12-11T11:00:00.000Z' } });
    // Attack: another account that learnt the thread id (or guesses one) moves nothing and learns nothing.
    const none = 'You booked no such meeting. "my meetings" lists the ones you can move.';
    expect((route(`move ${uuid} to 2026-12-11T10:00Z`, 'mallory@localhost')?.input as { detail: string }).detail).to.equal(none);
    expect((route('move urn:uuid:00000000-0000-7000-8000-000000000000 to 2026-12-11T10:00Z')?.input as { detail: string }).detail).to.equal(none);
  });

  it('attack on the old slot: a conflict at confirm gives every party the OLD slot back at rev 5; a calendar that then fails is named', async () => {
    const { h, saved } = start();
    answerAll(h, 'CFP', proposeFree);
    await settle();
    answerAll(h, 'ACCEPT-PROPOSAL', (e) => (e.receiver === 'room-atlas'
      ? ['FAILURE', { type: 'OACoPError', code: 'OACOP_CONFLICT', message: 'the slot is no longer free', threadId: 'urn:uuid:1' }]
      : ack(e)));
    await settle();
    const restores = h.sent.filter((e) => e.performative === 'ACCEPT-PROPOSAL' && (e.content as { revision: number }).revision === 5);
    expect(restores.map((e) => e.receiver)).to.deep.equal(PARTIES);
    expect(restores[0]?.content).to.deep.include({ finalSlot: meeting.slot });
    // bob's calendar does not answer the restore: said, after OACOP_TIMEOUT.
    for (const e of restores.filter((x) => x.receiver !== 'calendar-bob')) h.reply(e, 'INFORM', ack(e)[1]);
    h.clock.increment(5000);
    await settle();
    expect(saved).to.deep.equal([{ ...meeting, revision: 5 }]);
    expect(h.last().content.text).to.equal([
      'I could not move "Meeting with bob, carol" to Thu 10 Dec 2026, 15:00–16:00 UTC:', '• atlas could not take the new time (OACOP_CONFLICT)',
      'It stays at Thu 10 Dec 2026, 09:00–10:00 UTC.', 'These calendars did not confirm the old time again: bob (no answer).',
    ].join('\n'));
    expect(h.sent.some((e) => e.content.type === 'NOTIFY_USER')).to.equal(false);
  });

  it('a calendar silent at confirm: the old slot is given back to everyone, silent one included', async () => {
    const { h, saved } = start();
    answerAll(h, 'CFP', proposeFree);
    await settle();
    for (const e of h.sent.filter((x) => x.performative === 'ACCEPT-PROPOSAL' && x.receiver !== 'calendar-bob')) h.reply(e, 'INFORM', ack(e)[1]);
    h.clock.increment(5000);
    await settle();
    const restores = h.sent.filter((e) => e.performative === 'ACCEPT-PROPOSAL' && (e.content as { revision: number }).revision === 5);
    expect(restores.map((e) => e.receiver)).to.deep.equal(PARTIES);
    answerAll(h, 'ACCEPT-PROPOSAL', (e) => ack(e));
    await settle();
    expect(saved).to.deep.equal([{ ...meeting, revision: 5 }]);
    expect(h.last().content.text).to.contain('• bob did not confirm in time').and.not.contain('did not confirm the old time again');
  });
});

describe('Coordinator [move a meeting] one change at a time per meeting', () => {
  const base = (text: string) => ({ request: userMsg(text), from: { jid: 'presenter@localhost', name: 'Presenter' }, self: 'Coordinator', domain: DOMAIN, timeouts: T, canScale: false }) as never;

  it('attack on consistency: a second move (or a cancel) of a meeting whose move is under way is refused until the first ends; a lapsed claim frees it', async () => {
    let t = 0;
    const locks = new MeetingLocks(20_000, () => t);
    const deps = { oacopTimeoutMs: 5000, openTasks: () => [], now: () => NOW, zones: () => ({}), lastMeeting: () => meeting, claim: (id: string) => locks.claim(id) };
    const route = (text: string) => schedulingRoute((classifyIntent(text, NOW) as unknown as { command: never }).command, base(text), deps);
    const first = route('move that meeting to 3pm');
    expect(first?.machine).to.equal(moveMachine);
    const busy = '"Meeting with bob, carol" is being changed right now (a move or cancel of it is under way). Try again in a moment.';
    expect((route('move that meeting to 4pm')?.input as { detail: string }).detail).to.equal(busy);
    expect((route('cancel that meeting')?.input as { detail: string }).detail).to.equal(busy);
    // The first exchange ends (every party busy): its unclaim lets the meeting go.
    const unclaimed: string[] = [];
    const m = moveMachine.provide({
      actors: { save: fromPromise(async (): Promise<void> => undefined) },
      actions: { unclaim: ({ context }) => { unclaimed.push(context.input.meeting.threadId); locks.release(context.input.meeting.threadId); } },
    });
    const h = harness(m, userMsg('move that meeting to 3pm'), first?.input as object);
    for (const e of h.sent) h.reply(e, 'REFUSE', { type: 'ProposalResponse', threadId: 'urn:uuid:1', respondingToRevision: 3, status: 'DECLINED', availableSlots: [] });
    await settle();
    // Busy everywhere: the days after are asked (rev 4), busy too.
    for (const e of h.sent.filter((x) => (x.content as { revision?: number }).revision === 4)) {
      h.reply(e, 'REFUSE', { type: 'ProposalResponse', threadId: 'urn:uuid:1', respondingToRevision: 4, status: 'DECLINED', availableSlots: [] });
    }
    await settle();
    expect(h.isDone()).to.equal(true);
    expect(unclaimed).to.deep.equal(['urn:uuid:1']);
    expect(route('move that meeting to 4pm')?.machine).to.equal(moveMachine);
    // A claim never let go (a crash) lapses.
    t += 20_001;
    expect(locks.claim('urn:uuid:1')).to.equal(true);
  });

  it('attack on consistency across a crash: the claim is on disk, so a move restored after a kill -9 still holds its meeting until it ends', () => {
    // In memory, a Coordinator restarted mid-move had forgotten the claim: a second move could run beside the restored one.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-claims-'));
    const file = path.join(dir, 'scheduling.sqlite');
    let t = 1_000_000;
    try {
      const before = new SchedulingStore(file);
      const locks = new MeetingLocks(20_000, () => t, before);
      expect(locks.claim('urn:uuid:1')).to.equal(true);
      expect(locks.claim('urn:uuid:1'), 'a second change at once').to.equal(false);
      expect(locks.claim('urn:uuid:2'), 'another meeting').to.equal(true);
      // The process dies without letting go (the store is not even closed); a new one opens the same file.
      const after = new SchedulingStore(file);
      const restarted = new MeetingLocks(20_000, () => t, after);
      expect(restarted.claim('urn:uuid:1'), 'the restored move still holds it').to.equal(false);
      // The restored exchange ends: its unclaim lets it go.
      restarted.release('urn:uuid:1');
      expect(restarted.claim('urn:uuid:1')).to.equal(true);
      // One never let go lapses.
      t += 20_001;
      expect(restarted.claim('urn:uuid:2')).to.equal(true);
      after.close();
      before.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
