import { expect } from 'chai';
import { classifyIntent } from '../../agents/coordinator/intent.js';
import { moveText, parseMove } from '../../agents/coordinator/scheduling/move.js';
import { parseScheduling } from '../../agents/coordinator/scheduling/parse.js';
import type { MeetingRecord } from '../../agents/coordinator/scheduling/store.js';
import { schedulingRoute } from '../../agents/coordinator/scheduling/route.js';
import { usageMachine } from '../../agents/coordinator/scheduling/usage.js';
import { DOMAIN, T, userMsg } from './coordinator-harness.js';

const NOW = new Date('2026-12-09T10:00:00Z');
const meeting: MeetingRecord = {
  threadId: 'urn:uuid:1', organizer: 'alice@localhost', title: 'Meeting with bob, carol', revision: 2, status: 'CONFIRMED',
  slot: { start: '2026-12-10T09:00:00Z', end: '2026-12-10T10:00:00Z' }, participants: ['calendar-alice', 'calendar-bob', 'carol@calendars.localhost'], room: 'room-atlas',
};

describe('Coordinator [move a meeting] not "I can\'t help": the two steps, with the booking command written out', () => {
  it('reads "move that meeting to 3pm", "reschedule my meeting with bob", "postpone the meeting to tomorrow at 10"', () => {
    expect(parseMove('move that meeting to 3pm')).to.deep.equal({ kind: 'move-meeting', to: '3pm' });
    expect(parseMove('reschedule my meeting with bob')).to.deep.equal({ kind: 'move-meeting', to: '' });
    expect(parseMove('Please postpone the meeting to tomorrow at 10.')).to.deep.equal({ kind: 'move-meeting', to: 'tomorrow at 10' });
    expect(parseMove('move the couch')).to.equal(undefined);
    expect(classifyIntent('move that meeting to 3pm', NOW)).to.deep.include({ kind: 'scheduling', command: { kind: 'move-meeting', to: '3pm' } });
  });

  it('says the two steps; the command books the same people, length and room, on the meeting\'s day when no day is said, and reads back as a booking', () => {
    const text = moveText(meeting, { kind: 'move-meeting', to: '3pm' }, 'alice@localhost', 'UTC');
    expect(text).to.equal([
      'I can\'t move a meeting in one step yet. To move "Meeting with bob, carol" (Thu 10 Dec 2026, 09:00–10:00 UTC):',
      '1. say "cancel that meeting" (everyone is told), then',
      '2. book the new time: "schedule 60 min with bob and carol on 10 December at 3pm in atlas".',
    ].join('\n'));
    const command = /"(schedule [^"]+)"/.exec(text)?.[1] as string;
    expect(parseScheduling(command, NOW)).to.deep.include({ kind: 'schedule', durationMin: 60, participants: ['bob', 'carol'], room: { name: 'atlas' }, window: { start: '2026-12-10T15:00:00.000Z', end: '2026-12-10T16:00:00.000Z' } });
    expect(moveText(meeting, { kind: 'move-meeting', to: 'tomorrow at 10' }, 'alice@localhost', 'UTC')).to.contain('"schedule 60 min with bob and carol tomorrow at 10 in atlas"');
  });

  it('a room booked alone gets a room command; no meeting, or a cancelled one, is said', () => {
    const room = moveText({ ...meeting, title: 'Room booking', participants: ['calendar-alice'] }, { kind: 'move-meeting', to: 'at 14:00' }, 'alice@localhost', 'UTC');
    const command = /"(book [^"]+)"/.exec(room)?.[1] as string;
    expect(command).to.equal('book room atlas on 10 December at 14:00 for 60 min');
    expect(parseScheduling(command, NOW)).to.deep.include({ kind: 'schedule', participants: [], room: { name: 'atlas' }, durationMin: 60 });
    expect(moveText(undefined, { kind: 'move-meeting', to: '' }, 'alice@localhost', 'UTC')).to.equal('You have no booked meeting to move.');
    expect(moveText({ ...meeting, status: 'CANCELLED' }, { kind: 'move-meeting', to: '' }, 'alice@localhost', 'UTC')).to.match(/^Your last booked meeting \("Meeting with bob, carol", .+\) is cancelled\./);
  });

  it('the Coordinator answers it from the asker\'s last booked meeting, in their zone', () => {
    const base = { request: userMsg('move that meeting to 3pm'), from: { jid: 'presenter@localhost', name: 'Presenter' }, self: 'Coordinator', domain: DOMAIN, timeouts: T, canScale: false } as never;
    const asked: string[] = [];
    const route = schedulingRoute(parseMove('move that meeting to 3pm') as never, base, {
      oacopTimeoutMs: 5000, openTasks: () => [], now: () => NOW, zones: () => ({ 'alice@localhost': 'Europe/Berlin' }),
      lastMeeting: (who) => (asked.push(who), meeting),
    });
    expect(route?.machine).to.equal(usageMachine);
    expect(asked).to.deep.equal(['alice@localhost']);
    expect((route?.input as { detail: string }).detail).to.contain('Thu 10 Dec 2026, 10:00–11:00 Europe/Berlin').and.contain('"schedule 60 min with bob and carol on 10 December at 3pm in atlas"');
  });
});
