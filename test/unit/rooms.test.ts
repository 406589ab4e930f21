import { expect } from 'chai';
import { makeEnvelope } from '../../shared/acl/index.js';
import { Ledger, CalendarStore } from '../../shared/calendar/index.js';
import { silentLogger } from '../../shared/log/index.js';
import { ComponentHost } from '../../shared/runtime/component-host.js';
import { identify, MemoryTelemetry } from '../../shared/runtime/index.js';
import { parseRooms } from '../../agents/rooms/config.js';
import { RoomContext } from '../../agents/rooms/context.js';
import { handleRoom, type RoomKind } from '../../agents/rooms/service.js';
import { FakeTransport, inbound } from '../support/fake-transport.js';

const ROOMS = parseRooms({
  rooms: [
    { name: 'cosmos', capacity: 12, constraints: { requiresCleaningGap: 'PT15M' } },
    { name: 'dune', capacity: 4, constraints: { minDuration: 'PT30M' } },
  ],
});
const COORD = identify('coordinator@localhost/agent-1', 'localhost');
const T = (h: string) => `2026-12-10T${h}:00Z`;

function roomOf(name: string) {
  const def = ROOMS.find((r) => r.name === name);
  if (!def) throw new Error(name);
  const ctx = new RoomContext(def, { store: new CalendarStore(':memory:'), ledger: new Ledger(':memory:'), rng: () => 0.5, now: () => Date.parse(T('08:00')) });
  let n = 0;
  const ask = (kind: RoomKind, performative: 'CFP' | 'ACCEPT-PROPOSAL' | 'CANCEL' | 'REQUEST', content: object) =>
    handleRoom(ctx, kind, makeEnvelope({ performative, sender: 'Coordinator', receiver: `room-${name}`, conversation_id: `c-${(n += 1)}`, ontology: 'OACoP', content: { sender: 'alice@localhost', ...content } }), COORD);
  const book = (thread: string, start: string, end: string, revision = 2) =>
    ask('ConfirmCollaboration', 'ACCEPT-PROPOSAL', { type: 'ConfirmCollaboration', threadId: thread, revision, finalSlot: { start: T(start), end: T(end) } });
  return { ctx, ask, book };
}

const code = (o: ReturnType<typeof handleRoom>) => (o?.content as { code?: string; status?: string; type?: string }).code ?? (o?.content as { status?: string }).status;

describe('Rooms [config] rooms.json', () => {
  it('reads capacity and ISO 8601 constraints, and names what is wrong', () => {
    expect(ROOMS[0]).to.deep.include({ name: 'cosmos', capacity: 12, constraints: { cleaningGapMin: 15 } });
    expect(ROOMS[1]?.constraints).to.deep.equal({ minDurationMin: 30 });
    expect(() => parseRooms({ rooms: [{ name: 'Bad Name', capacity: 1 }] })).to.throw(/rooms\[0\]\.name/);
    expect(() => parseRooms({ rooms: [{ name: 'a', capacity: 0 }] })).to.throw(/capacity/);
    expect(() => parseRooms({ rooms: [{ name: 'a', capacity: 1, constraints: { minDuration: '30 minutes' } }] })).to.throw(/minDuration/);
    expect(() => parseRooms({ rooms: [{ name: 'a', capacity: 1 }, { name: 'a', capacity: 2 }] })).to.throw(/twice/);
  });
});

describe('Rooms [booking] auto-accept when free and the constraints hold (OACoP §8.2)', () => {
  it('books a free slot at once and refuses an overlapping one with OACOP_CONFLICT', () => {
    const r = roomOf('cosmos');
    expect(code(r.book('urn:uuid:a', '09:00', '10:00'))).to.equal('CONFIRMED');
    expect(code(r.book('urn:uuid:b', '09:30', '10:30'))).to.equal('OACOP_CONFLICT');
  });

  it('keeps the cleaning gap: a booking 10 minutes after another is a conflict, 15 minutes after is fine', () => {
    const r = roomOf('cosmos');
    r.book('urn:uuid:a', '09:00', '10:00');
    expect(code(r.book('urn:uuid:b', '10:10', '11:00'))).to.equal('OACOP_CONFLICT');
    expect(code(r.book('urn:uuid:c', '08:00', '08:50'))).to.equal('OACOP_CONFLICT');
    expect(code(r.book('urn:uuid:d', '10:15', '11:00'))).to.equal('CONFIRMED');
  });

  it('offers only slots clear of the cleaning gap', () => {
    const r = roomOf('cosmos');
    r.book('urn:uuid:a', '10:00', '11:00');
    const out = r.ask('ProposeCollaboration', 'CFP', {
      type: 'ProposeCollaboration', threadId: 'urn:uuid:p', revision: 1, object: { type: 'Event', duration: 'PT30M' }, constraints: { timeWindow: { start: T('09:00'), end: T('12:00') } },
    });
    expect(out?.performative).to.equal('PROPOSE');
    expect((out?.content as { availableSlots: unknown }).availableSlots).to.deep.equal([{ start: T('09:00'), end: T('09:45') }, { start: T('11:15'), end: T('12:00') }]);
  });

  it('refuses a booking shorter than minDuration with OACOP_UNSUPPORTED_CONSTRAINT (propose, confirm and AssignTask)', () => {
    const r = roomOf('dune');
    const p = r.ask('ProposeCollaboration', 'CFP', {
      type: 'ProposeCollaboration', threadId: 'urn:uuid:p', revision: 1, object: { type: 'Event', duration: 'PT15M' }, constraints: { timeWindow: { start: T('09:00'), end: T('12:00') } },
    });
    expect(p?.performative).to.equal('FAILURE');
    expect(p?.content).to.deep.include({ type: 'OACoPError', code: 'OACOP_UNSUPPORTED_CONSTRAINT' });
    expect((p?.content as { message: string }).message).to.contain('at least 30 minutes');
    expect(code(r.book('urn:uuid:q', '09:00', '09:20'))).to.equal('OACOP_UNSUPPORTED_CONSTRAINT');
    expect(code(r.book('urn:uuid:r', '09:00', '09:30'))).to.equal('CONFIRMED');
  });

  it('takes an AssignTask as a booking and answers TaskUpdate ACCEPTED, or the OACoP error', () => {
    const r = roomOf('dune');
    const task = (thread: string, start: string, end: string) => r.ask('AssignTask', 'REQUEST', {
      type: 'AssignTask', threadId: thread, object: { type: 'Task', title: 'Interviews', startDate: T(start), endDate: T(end) }, deadline: T(end),
    });
    const ok = task('urn:uuid:t1', '13:00', '14:00');
    expect(ok?.content).to.deep.include({ type: 'TaskUpdate', status: 'ACCEPTED' });
    expect(code(task('urn:uuid:t2', '13:30', '14:30'))).to.equal('OACOP_CONFLICT');
    expect(code(task('urn:uuid:t3', '15:00', '15:10'))).to.equal('OACOP_UNSUPPORTED_CONSTRAINT');
    const noSlot = r.ask('AssignTask', 'REQUEST', { type: 'AssignTask', threadId: 'urn:uuid:t4', object: { type: 'Task', title: 'x' }, deadline: T('17:00') });
    expect(code(noSlot)).to.equal('OACOP_UNSUPPORTED_CONSTRAINT');
  });

  it('a cancellation frees the slot (revision + 1)', () => {
    const r = roomOf('cosmos');
    r.book('urn:uuid:a', '09:00', '10:00');
    const c = r.ask('CancelCollaboration', 'CANCEL', { type: 'CancelCollaboration', threadId: 'urn:uuid:a', revision: 3, reason: 'x' });
    expect(c?.content).to.deep.include({ type: 'OACoPAck', status: 'CANCELLED', revision: 3 });
    expect(code(r.book('urn:uuid:b', '09:00', '10:00'))).to.equal('CONFIRMED');
  });
});

describe('Runtime [component host] one component, many agents', () => {
  it('routes each stanza to the agent of its JID (pipeline self = that room) and sends from that JID', () => {
    const t = new FakeTransport('rooms.localhost');
    const host = new ComponentHost({ transport: t, domain: 'localhost', logger: silentLogger() });
    const atlas = host.host('atlas@rooms.localhost', { telemetry: new MemoryTelemetry() });
    host.host('borealis@rooms.localhost', { telemetry: new MemoryTelemetry() });
    expect(atlas.name).to.equal('room-atlas');
    const env = makeEnvelope({ performative: 'CFP', sender: 'Coordinator', receiver: 'room-borealis', conversation_id: 'c1', ontology: 'OACoP', content: { type: 'ProposeCollaboration', threadId: 'urn:uuid:x', revision: 1, object: { type: 'Event' } } });
    t.deliver(inbound('coordinator@localhost', env, { to: 'atlas@rooms.localhost' }));
    const [wrong] = t.envelopes();
    expect(t.sent[0]?.from).to.equal('atlas@rooms.localhost');
    expect(wrong).to.deep.include({ performative: 'NOT-UNDERSTOOD', sender: 'room-atlas', receiver: 'Coordinator' });
    expect(wrong?.content).to.deep.include({ reason: 'UNEXPECTED_MESSAGE' });
    t.deliver(inbound('coordinator@localhost', env, { to: 'borealis@rooms.localhost' }));
    // No handler registered in this test: the right agent still answers, from its own JID.
    expect(t.sent[1]?.from).to.equal('borealis@rooms.localhost');
    expect(t.envelopes()[1]?.content).to.deep.include({ reason: 'UNEXPECTED_MESSAGE' });
    expect(String(t.envelopes()[1]?.content.detail)).to.contain('does not handle ProposeCollaboration');
  });

  it('answers a message for a room nobody hosts with a FIPA error from that address, and a person with FORBIDDEN_SENDER', () => {
    const t = new FakeTransport('rooms.localhost');
    new ComponentHost({ transport: t, domain: 'localhost', logger: silentLogger() });
    const env = makeEnvelope({ performative: 'CFP', sender: 'Coordinator', receiver: 'room-ghost', conversation_id: 'c1', ontology: 'OACoP', content: { type: 'ProposeCollaboration', threadId: 'urn:uuid:x', revision: 1, object: { type: 'Event' } } });
    t.deliver(inbound('coordinator@localhost', env, { to: 'ghost@rooms.localhost' }));
    expect(t.sent[0]?.from).to.equal('ghost@rooms.localhost');
    expect(t.envelopes()[0]?.content).to.deep.include({ reason: 'UNEXPECTED_MESSAGE', detail: 'ghost@rooms.localhost is not served here' });
    const fromBob = makeEnvelope({ ...env, sender: 'bob', receiver: 'room-ghost', content: env.content });
    t.deliver(inbound('bob@localhost', fromBob, { to: 'ghost@rooms.localhost' }));
    expect(t.envelopes()[1]?.content).to.deep.include({ reason: 'FORBIDDEN_SENDER' });
    t.deliver(inbound('coordinator@localhost', 'not json', { to: 'ghost@rooms.localhost', thread: 't' }));
    expect(t.envelopes()[2]?.content).to.deep.include({ reason: 'INVALID_JSON' });
  });
});
