import { expect } from 'chai';
import { fromPromise } from 'xstate';
import { classifyIntent } from '../../agents/coordinator/intent.js';
import { parseScheduling } from '../../agents/coordinator/scheduling/parse.js';
import { schedulingRoute } from '../../agents/coordinator/scheduling/route.js';
import { scheduleMachine } from '../../agents/coordinator/scheduling/schedule.js';
import { usageMachine } from '../../agents/coordinator/scheduling/usage.js';
import { bookedText, deadlineText, when } from '../../agents/coordinator/scheduling/texts.js';
import { zoneMachine } from '../../agents/coordinator/scheduling/zone-machine.js';
import { canonicalZone } from '../../agents/coordinator/scheduling/zones.js';
import { DOMAIN, harness, T, USER, userMsg } from './coordinator-harness.js';
import { until } from '../support/wait.js';

// Wednesday 9 December 2026, 10:00 UTC = 11:00 in Berlin (CET, UTC+1) = 05:00 in New York.
const NOW = new Date('2026-12-09T10:00:00Z');

describe('Coordinator [time zones] a person\'s own zone for what they write and read', () => {
  it('recognises "my time zone is …", "/tz …" and "what is my time zone?"; canonical IANA names only', () => {
    expect(parseScheduling('my time zone is europe/berlin', NOW)).to.deep.equal({ kind: 'set-zone', zone: 'Europe/Berlin' });
    expect(parseScheduling('/tz America/New_York', NOW)).to.deep.equal({ kind: 'set-zone', zone: 'America/New_York' });
    expect(parseScheduling('set my timezone to UTC', NOW)).to.deep.equal({ kind: 'set-zone', zone: 'UTC' });
    expect(parseScheduling('/tz', NOW)).to.deep.equal({ kind: 'show-zone' });
    expect(parseScheduling('what is my time zone?', NOW)).to.deep.equal({ kind: 'show-zone' });
    const bad = parseScheduling('my time zone is Mars/Olympus', NOW);
    expect(bad).to.deep.equal({ kind: 'scheduling-error', detail: 'I don\'t know the time zone "Mars/Olympus". Use an IANA name such as Europe/Berlin or America/New_York, or UTC.' });
    expect(canonicalZone('')).to.equal(undefined);
    // A current name ICU knows under its legacy alias stays as written (not Asia/Calcutta).
    expect(canonicalZone('Asia/Kolkata')).to.equal('Asia/Kolkata');
    expect(canonicalZone('Europe/Kyiv')).to.equal('Europe/Kyiv');
    // Questions about other places stay with the time expert.
    expect(classifyIntent('what time is it in Tokyo?', NOW).kind).to.equal('ask');
    expect(classifyIntent('what time zone is Tokyo in?', NOW).kind).to.equal('ask');
  });

  it('reads natural times in the person\'s zone and writes them in UTC', () => {
    const berlin = parseScheduling('schedule 30 min with bob tomorrow afternoon', NOW, 'Europe/Berlin') as { window: object };
    expect(berlin.window).to.deep.equal({ start: '2026-12-10T11:00:00.000Z', end: '2026-12-10T17:00:00.000Z' }); // 12–18 CET
    const ny = parseScheduling('schedule 1h with bob tomorrow at 3pm', NOW, 'America/New_York') as { window: object };
    expect(ny.window).to.deep.equal({ start: '2026-12-10T20:00:00.000Z', end: '2026-12-10T21:00:00.000Z' }); // 15:00 EST
    // A bare day is that day's working hours (08–18) where the person is.
    const tokyo = parseScheduling('schedule 30 min with bob on friday', NOW, 'Asia/Tokyo') as { window: object };
    expect(tokyo.window).to.deep.equal({ start: '2026-12-10T23:00:00.000Z', end: '2026-12-11T09:00:00.000Z' });
    expect(parseScheduling('assign the slides to carol by friday', NOW, 'Europe/Berlin')).to.deep.include({ deadline: '2026-12-11T16:00:00Z' });
    // The strict form says UTC itself (…Z): the zone does not change it.
    expect(parseScheduling('/meet 30m bob 2026-12-10T09:00Z..2026-12-10T10:00Z', NOW, 'Asia/Tokyo')).to.deep.include({ window: { start: '2026-12-10T09:00:00.000Z', end: '2026-12-10T10:00:00.000Z' } });
  });

  it('shows times in the reader\'s zone, named; UTC stays as it was', () => {
    const slot = { start: '2026-12-10T11:00:00Z', end: '2026-12-10T11:30:00Z' };
    expect(when(slot)).to.equal('Thu 10 Dec 2026, 11:00–11:30 UTC');
    expect(when(slot, 'Europe/Berlin')).to.equal('Thu 10 Dec 2026, 12:00–12:30 Europe/Berlin');
    expect(when(slot, 'Pacific/Auckland')).to.equal('Fri 11 Dec 2026, 00:00–00:30 Pacific/Auckland');
    expect(deadlineText('2026-12-11T16:00:00Z', 'Europe/Berlin')).to.equal('Fri 11 Dec 2026, 17:00 Europe/Berlin');
    expect(bookedText({ title: 'M', slot, attendees: ['calendar-alice'], absent: [], renegotiated: false, zone: 'America/New_York' })).to.contain('When: Thu 10 Dec 2026, 06:00–06:30 America/New_York');
  });

  it('"my time zone is Europe/Berlin" is saved, then confirmed with the local time there; a failed save says so', async () => {
    const saved: object[] = [];
    const ok = zoneMachine.provide({ actors: { saveZone: fromPromise<void, { person: string; zone: string }>(async ({ input }) => { saved.push(input); }) } });
    const h = harness(ok, userMsg('my time zone is Europe/Berlin'), { zone: 'Europe/Berlin', current: 'UTC', now: NOW.toISOString() });
    await until(() => h.isDone(), 'the zone answer', 2000, 1);
    expect(saved).to.deep.equal([{ person: USER, zone: 'Europe/Berlin' }]);
    expect(h.last().content).to.deep.include({ type: 'PRESENTER_REPLY', text: 'From now on I read and show your times in Europe/Berlin (it is Wed 9 Dec, 11:00 there).' });
    expect(h.isDone()).to.equal(true);

    const failing = zoneMachine.provide({ actors: { saveZone: fromPromise<void, { person: string; zone: string }>(async () => { throw new Error('disk full'); }) } });
    const f = harness(failing, userMsg('/tz Asia/Tokyo'), { zone: 'Asia/Tokyo', current: 'UTC', now: NOW.toISOString() });
    await until(() => f.isDone(), 'the zone answer', 2000, 1);
    expect(f.last().content.text).to.equal('I could not save your time zone; times stay as they were. Please try again.');
    expect(f.last().content.rich).to.deep.include({ kind: 'timezone', status: 'not-saved' });
  });

  it('the route passes each person\'s zone on, and "/tz" names the current one', () => {
    const base = { request: userMsg('/tz'), from: { jid: 'presenter@localhost', name: 'Presenter' }, self: 'Coordinator', domain: DOMAIN, timeouts: T, canScale: false } as never;
    const deps = { oacopTimeoutMs: 5000, lastMeeting: () => undefined, openTasks: () => [], zones: () => ({ [USER]: 'Asia/Tokyo' }), now: () => NOW };
    const show = schedulingRoute({ kind: 'show-zone' }, base, deps);
    expect(show?.machine).to.equal(zoneMachine);
    expect(show?.input).to.deep.include({ current: 'Asia/Tokyo' });
    const h = harness(zoneMachine, userMsg('/tz'), { current: 'Asia/Tokyo', now: NOW.toISOString() });
    expect(h.last().content.text).to.equal('Your times are shown in Asia/Tokyo (it is Wed 9 Dec, 19:00 there). Change it with "my time zone is Europe/Berlin".');
    const sched = schedulingRoute(parseScheduling('schedule 30 min with bob tomorrow', NOW) as never, base, deps);
    expect(sched?.input).to.deep.include({ zones: { [USER]: 'Asia/Tokyo' } });
  });

  it('a meeting with nobody but the asker is asked back, not booked as "Meeting with alice"; with a room it is a room booking', () => {
    const base = { request: userMsg('schedule 30 min with alice tomorrow'), from: { jid: 'presenter@localhost', name: 'Presenter' }, self: 'Coordinator', domain: DOMAIN, timeouts: T, canScale: false } as never;
    const deps = { oacopTimeoutMs: 5000, lastMeeting: () => undefined, openTasks: () => [], now: () => NOW };
    const alone = schedulingRoute(parseScheduling('schedule 30 min with alice tomorrow', NOW) as never, base, deps);
    expect(alone?.machine).to.equal(usageMachine);
    expect(alone?.input).to.deep.include({ detail: 'You are in every meeting you book: who else should come? Say e.g. "schedule 30 min with bob tomorrow afternoon".' });
    expect(schedulingRoute(parseScheduling('schedule 30 min with alice and bob tomorrow', NOW) as never, base, deps)?.machine).to.equal(scheduleMachine);
    // With a room it is a room booking for the asker, not a meeting without anyone.
    for (const line of ['book a room for 5 people tomorrow at 10 for an hour', 'schedule 30 min with alice tomorrow in a room']) {
      expect(schedulingRoute(parseScheduling(line, NOW) as never, base, deps)?.machine, line).to.equal(scheduleMachine);
    }
  });
});
