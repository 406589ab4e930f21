import { expect } from 'chai';
import { choose, earliest, intersect, isoDuration } from '../../agents/coordinator/scheduling/slots.js';

const W = { start: '2026-12-10T08:00:00Z', end: '2026-12-10T18:00:00Z' };
const s = (a: string, b: string) => ({ start: `2026-12-10T${a}:00Z`, end: `2026-12-10T${b}:00Z` });

describe('Coordinator [slots] intersection and choice (OACoP §3.2–§3.3)', () => {
  it('intersects availability lists, merging overlaps and clipping to the window', () => {
    const a = [s('07:00', '10:00'), s('09:30', '11:00'), s('13:00', '15:00')];
    const b = [s('10:30', '14:00')];
    expect(intersect([a, b], W)).to.deep.equal([s('10:30', '11:00'), s('13:00', '14:00')]);
    expect(intersect([], W)).to.deep.equal([{ start: '2026-12-10T08:00:00Z', end: '2026-12-10T18:00:00Z' }]);
    expect(intersect([[{ start: 'garbage', end: 'x' }]], W)).to.deep.equal([]);
  });

  it('picks the earliest start that fits, on a 5-minute grid', () => {
    expect(earliest([s('10:02', '10:20'), s('11:03', '12:00')], 30)).to.deep.equal(s('11:05', '11:35'));
    expect(earliest([s('10:00', '10:20')], 30)).to.equal(undefined);
  });

  it('prefers the earliest slot everybody can make', () => {
    const c = choose({
      people: [{ who: 'calendar-alice', slots: [s('09:00', '17:00')] }, { who: 'calendar-bob', slots: [s('09:00', '10:00'), s('14:00', '15:00')] }, { who: 'calendar-carol', slots: [s('14:30', '16:00')] }],
      required: ['calendar-alice', 'calendar-bob', 'calendar-carol'], window: W, minutes: 30,
    });
    expect(c).to.deep.equal({ slot: s('14:30', '15:00'), attendees: ['calendar-alice', 'calendar-bob', 'calendar-carol'], absent: [] });
  });

  it('honours requiredParticipants: without a common slot, the earliest the required can make; optional ones free then still come', () => {
    const c = choose({
      people: [{ who: 'calendar-bob', slots: [s('09:00', '10:00')] }, { who: 'calendar-carol', slots: [s('16:00', '17:00')] }, { who: 'calendar-dave', slots: [s('09:00', '12:00')] }],
      required: ['calendar-bob'], window: W, minutes: 30,
    });
    expect(c).to.deep.equal({ slot: s('09:00', '09:30'), attendees: ['calendar-bob', 'calendar-dave'], absent: ['calendar-carol'] });
  });

  it('fails when a required participant offered nothing (declined or silent)', () => {
    expect(choose({ people: [{ who: 'calendar-bob', slots: [s('09:00', '10:00')] }], required: ['calendar-bob', 'calendar-carol'], window: W, minutes: 30 })).to.equal(undefined);
  });

  it('with rooms, the slot must be free in one room: the earliest wins, the smaller room on a tie', () => {
    const people = [{ who: 'calendar-bob', slots: [s('09:00', '12:00')] }];
    const c = choose({
      people, required: ['calendar-bob'], window: W, minutes: 60,
      rooms: [{ who: 'room-atlas', slots: [s('10:00', '12:00')] }, { who: 'room-borealis', slots: [s('09:00', '12:00')] }, { who: 'room-cosmos', slots: [s('09:00', '12:00')] }],
    });
    expect(c).to.deep.equal({ slot: s('09:00', '10:00'), attendees: ['calendar-bob'], absent: [], room: 'room-borealis' });
    expect(choose({ people, required: ['calendar-bob'], window: W, minutes: 60, rooms: [] })).to.equal(undefined);
    expect(choose({ people, required: ['calendar-bob'], window: W, minutes: 60, rooms: [{ who: 'room-atlas', slots: [s('13:00', '15:00')] }] })).to.equal(undefined);
  });

  it('writes ISO 8601 durations', () => {
    expect([30, 60, 90, 0].map(isoDuration)).to.deep.equal(['PT30M', 'PT1H', 'PT1H30M', 'PT0M']);
  });
});
