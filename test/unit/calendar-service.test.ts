// Calendar [oacop]: a person's calendar answering the Coordinator (docs/oacop.md, oacop-rfc §3–§6):
// free slots only, Confirm writes the VEVENT with SEQUENCE = revision, revision rule §3.4,
// cancellation, conflicts, §5 errors, trust / proofOfBurn / fuzzing / rate limit, tasks.
import { expect } from 'chai';
import { parseCalendar } from '../../shared/calendar/index.js';
import { body, calendarHarness, cancel, confirm, propose } from '../support/calendar-harness.js';

const MEETING = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//t//EN', 'BEGIN:VEVENT', 'UID:busy@t', 'DTSTAMP:20251201T000000Z',
  'DTSTART:20251210T100000Z', 'DTEND:20251210T120000Z', 'SUMMARY:Secret dentist', 'END:VEVENT', 'END:VCALENDAR', ''].join('\r\n');

describe('Calendar [oacop] ProposeCollaboration from a trusted requester', () => {
  let h: ReturnType<typeof calendarHarness>;
  beforeEach(() => {
    h = calendarHarness();
    h.store.importIcs(MEETING);
  });
  afterEach(() => h.close());

  it('answers PROPOSE INTERESTED with the free intervals inside window and working hours, and nothing about the busy event', () => {
    const out = h.send('CFP', propose('urn:uuid:m1', 1));
    expect(out?.performative).to.equal('PROPOSE');
    expect(body(out)).to.deep.equal({
      type: 'ProposalResponse', threadId: 'urn:uuid:m1', respondingToRevision: 1, status: 'INTERESTED',
      availableSlots: [
        { start: '2025-12-10T09:00:00Z', end: '2025-12-10T10:00:00Z' }, { start: '2025-12-10T12:00:00Z', end: '2025-12-10T17:00:00Z' },
        { start: '2025-12-11T09:00:00Z', end: '2025-12-11T17:00:00Z' }, { start: '2025-12-12T09:00:00Z', end: '2025-12-12T17:00:00Z' },
      ],
    });
    expect(JSON.stringify(out)).not.to.include('dentist');
  });

  it('declines (REFUSE ProposalResponse DECLINED) when nothing is free', () => {
    const out = h.send('CFP', propose('urn:uuid:m2', 1, { constraints: { timeWindow: { start: '2025-12-13T09:00:00Z', end: '2025-12-14T17:00:00Z' } } }));
    expect(out?.performative).to.equal('REFUSE');
    expect(body(out)).to.deep.include({ status: 'DECLINED', availableSlots: [] });
  });

  it('says why when the window holds no working time at all (a weekend): its hours, never its events', () => {
    const weekend = { constraints: { timeWindow: { start: '2025-12-13T09:00:00Z', end: '2025-12-14T17:00:00Z' } } };
    expect(body(h.send('CFP', propose('urn:uuid:w1', 1, weekend)))).to.deep.equal({
      type: 'ProposalResponse', threadId: 'urn:uuid:w1', respondingToRevision: 1, status: 'DECLINED', availableSlots: [],
      comment: 'outside working hours (Mon–Fri 09:00–17:00 UTC)',
    });
    // Busy in working hours (the dentist, 10:00–12:00): declined without a comment, nothing about the event.
    const busy = h.send('CFP', propose('urn:uuid:w2', 1, { constraints: { timeWindow: { start: '2025-12-10T10:00:00Z', end: '2025-12-10T12:00:00Z' } } }));
    expect(body(busy)).to.deep.equal({ type: 'ProposalResponse', threadId: 'urn:uuid:w2', respondingToRevision: 1, status: 'DECLINED', availableSlots: [] });
  });

  it('answers §5 errors: no timeWindow / bad duration → OACOP_UNSUPPORTED_CONSTRAINT, broken icalComponent → OACOP_INVALID_ICAL', () => {
    expect(body(h.send('CFP', { type: 'ProposeCollaboration', threadId: 'urn:uuid:e1', revision: 1, object: { type: 'Event' } }))).to.deep.include({ type: 'OACoPError', code: 'OACOP_UNSUPPORTED_CONSTRAINT' });
    expect(body(h.send('CFP', propose('urn:uuid:e2', 1, { object: { type: 'Event', duration: 'P-nonsense' } })))).to.deep.include({ code: 'OACOP_UNSUPPORTED_CONSTRAINT' });
    expect(body(h.send('CFP', propose('urn:uuid:e3', 1, { object: { type: 'Event', icalComponent: 'BEGIN:VEVENT\nDTSTART:garbage' } })))).to.deep.include({ code: 'OACOP_INVALID_ICAL' });
    expect(h.send('CFP', propose('urn:uuid:e4', 1, { constraints: { timeWindow: { start: WINDOW_END, end: '2025-12-10T08:00:00Z' } } }))?.performative).to.equal('FAILURE');
  });
});
const WINDOW_END = '2025-12-12T18:00:00Z';

describe('Calendar [oacop] Confirm, revision rule and cancellation (oacop-rfc §3.3–§3.5)', () => {
  let h: ReturnType<typeof calendarHarness>;
  beforeEach(() => {
    h = calendarHarness();
    h.store.importIcs(MEETING);
  });
  afterEach(() => h.close());
  const vevent = (uid: string) => parseCalendar(h.store.exportIcs()).getAllSubcomponents('vevent').find((c) => c.getFirstPropertyValue('uid') === uid);

  it('writes the VEVENT (UID = threadId, SEQUENCE = revision, title) and blocks the slot afterwards', () => {
    h.send('CFP', propose('urn:uuid:m1', 1));
    const ack = h.send('ACCEPT-PROPOSAL', confirm('urn:uuid:m1', 2, '2025-12-10T09:00:00Z', '2025-12-10T09:30:00Z'));
    expect(ack?.performative).to.equal('INFORM');
    expect(body(ack)).to.deep.include({ type: 'OACoPAck', status: 'CONFIRMED', revision: 2, uid: 'urn:uuid:m1', person: 'bob' });
    const ev = vevent('urn:uuid:m1');
    expect(ev?.getFirstPropertyValue('sequence')).to.equal(2);
    expect(ev?.getFirstPropertyValue('summary')).to.equal('Strategy');
    expect(String(ev?.getFirstPropertyValue('dtstart'))).to.equal('2025-12-10T09:00:00Z');
    const again = body(h.send('CFP', propose('urn:uuid:m9', 1)));
    expect(again.availableSlots?.[0]).to.deep.equal({ start: '2025-12-10T09:30:00Z', end: '2025-12-10T10:00:00Z' });
  });

  it('treats a Confirm with an equal or lower revision as stale (OACOP_STALE_REVISION, nothing changes), and a late Propose too', () => {
    h.send('CFP', propose('urn:uuid:m1', 1));
    h.send('ACCEPT-PROPOSAL', confirm('urn:uuid:m1', 2, '2025-12-10T09:00:00Z', '2025-12-10T09:30:00Z'));
    for (const rev of [2, 1]) {
      const out = h.send('ACCEPT-PROPOSAL', confirm('urn:uuid:m1', rev, '2025-12-11T09:00:00Z', '2025-12-11T09:30:00Z'));
      expect(out?.performative).to.equal('FAILURE');
      expect(body(out)).to.deep.include({ type: 'OACoPError', code: 'OACOP_STALE_REVISION', threadId: 'urn:uuid:m1', revision: 2 });
    }
    expect(body(h.send('CFP', propose('urn:uuid:m1', 1)))).to.deep.include({ code: 'OACOP_STALE_REVISION' });
    expect(String(vevent('urn:uuid:m1')?.getFirstPropertyValue('dtstart'))).to.equal('2025-12-10T09:00:00Z');
  });

  it('answers OACOP_CONFLICT when the slot is taken or outside working hours', () => {
    expect(body(h.send('ACCEPT-PROPOSAL', confirm('urn:uuid:c1', 2, '2025-12-10T11:00:00Z', '2025-12-10T11:30:00Z')))).to.deep.include({ code: 'OACOP_CONFLICT' });
    expect(body(h.send('ACCEPT-PROPOSAL', confirm('urn:uuid:c2', 2, '2025-12-10T20:00:00Z', '2025-12-10T20:30:00Z')))).to.deep.include({ code: 'OACOP_CONFLICT' });
    expect(vevent('urn:uuid:c1')).to.equal(undefined);
  });

  it('cancels with a higher revision (STATUS:CANCELLED, SEQUENCE 3, the time is free again); a second cancel is stale', () => {
    h.send('CFP', propose('urn:uuid:m1', 1));
    h.send('ACCEPT-PROPOSAL', confirm('urn:uuid:m1', 2, '2025-12-10T09:00:00Z', '2025-12-10T10:00:00Z'));
    const ack = h.send('CANCEL', cancel('urn:uuid:m1', 3));
    expect(body(ack)).to.deep.include({ type: 'OACoPAck', status: 'CANCELLED', revision: 3 });
    const ev = vevent('urn:uuid:m1');
    expect([ev?.getFirstPropertyValue('status'), ev?.getFirstPropertyValue('sequence')]).to.deep.equal(['CANCELLED', 3]);
    expect(body(h.send('CFP', propose('urn:uuid:m2', 1))).availableSlots?.[0]).to.deep.equal({ start: '2025-12-10T09:00:00Z', end: '2025-12-10T10:00:00Z' });
    expect(body(h.send('CANCEL', cancel('urn:uuid:m1', 3)))).to.deep.include({ code: 'OACOP_STALE_REVISION' });
    expect(body(h.send('ACCEPT-PROPOSAL', confirm('urn:uuid:m1', 3, '2025-12-10T09:00:00Z', '2025-12-10T10:00:00Z')))).to.deep.include({ code: 'OACOP_STALE_REVISION' });
  });

  it('re-negotiates: a higher Propose reopens a confirmed thread ignoring its own event, a higher Confirm moves it', () => {
    h.send('CFP', propose('urn:uuid:m1', 1));
    h.send('ACCEPT-PROPOSAL', confirm('urn:uuid:m1', 2, '2025-12-10T09:00:00Z', '2025-12-10T10:00:00Z'));
    expect(body(h.send('CFP', propose('urn:uuid:m1', 3))).availableSlots?.[0]).to.deep.equal({ start: '2025-12-10T09:00:00Z', end: '2025-12-10T10:00:00Z' });
    expect(body(h.send('ACCEPT-PROPOSAL', confirm('urn:uuid:m1', 4, '2025-12-11T09:00:00Z', '2025-12-11T10:00:00Z')))).to.deep.include({ status: 'CONFIRMED', revision: 4 });
    expect(String(vevent('urn:uuid:m1')?.getFirstPropertyValue('dtstart'))).to.equal('2025-12-11T09:00:00Z');
    expect(h.store.items('VEVENT').filter((i) => i.uid === 'urn:uuid:m1')).to.have.length(1);
  });

  it('a REJECT-PROPOSAL forgets the proposal without an answer', () => {
    h.send('CFP', propose('urn:uuid:m1', 1));
    expect(h.send('REJECT-PROPOSAL', cancel('urn:uuid:m1', 2))).to.equal(null);
    expect(h.store.thread('urn:uuid:m1')?.status).to.equal('CANCELLED');
  });
});

describe('Calendar [oacop] requesters outside the trust list (oacop-rfc §6)', () => {
  let h: ReturnType<typeof calendarHarness>;
  const STRANGER = 'did:key:z6MkStranger';
  beforeEach(() => {
    h = calendarHarness();
    h.ledger.credit(STRANGER, 10);
  });
  afterEach(() => h.close());
  const paid = (threadId: string) => propose(threadId, 1, { sender: STRANGER, proofOfBurn: { txId: h.ledger.burn(STRANGER, 1), amount: '1' } });

  it('refuses an invitation without a valid proofOfBurn with OACOP_PAYMENT_REQUIRED (missing, unknown, reused)', () => {
    expect(body(h.send('CFP', propose('urn:uuid:s1', 1, { sender: STRANGER })))).to.deep.include({ code: 'OACOP_PAYMENT_REQUIRED' });
    h.config.rateLimit = { max: 10, windowMs: 60_000 };
    expect(body(h.send('CFP', propose('urn:uuid:s2', 1, { sender: STRANGER, proofOfBurn: { txId: 'oap:tx:burn_fake' } })))).to.deep.include({ code: 'OACOP_PAYMENT_REQUIRED' });
    const msg = paid('urn:uuid:s3');
    expect(h.send('CFP', msg)?.performative).to.equal('PROPOSE');
    expect(body(h.send('CFP', { ...msg, threadId: 'urn:uuid:s4' }))).to.deep.include({ code: 'OACOP_PAYMENT_REQUIRED' });
  });

  it('gives a paying stranger at most 3 jittered 30-minute slots inside the free time, then rate-limits', () => {
    for (let i = 1; i <= 3; i += 1) {
      const slots = body(h.send('CFP', paid(`urn:uuid:p${i}`))).availableSlots ?? [];
      expect(slots.length).to.be.within(1, 3);
      for (const s of slots) {
        expect(Date.parse(s.end) - Date.parse(s.start)).to.equal(30 * 60_000);
        expect(Date.parse(s.start)).to.be.within(Date.parse(WINDOW_START), Date.parse(WINDOW_END));
        expect(new Date(s.start).getUTCHours()).to.be.within(9, 16);
      }
    }
    const limited = h.send('CFP', paid('urn:uuid:p4'));
    expect(limited?.performative).to.equal('REFUSE');
    expect(body(limited)).to.deep.include({ reason: 'RATE_LIMITED' });
  });

  it('trusts the trust list, the person and local people without a burn, but not a foreign JID', () => {
    h.config.trustList = [STRANGER];
    expect(body(h.send('CFP', propose('urn:uuid:t1', 1, { sender: STRANGER }))).availableSlots).to.have.length(3); // 3 working days, unfuzzed
    expect(h.send('CFP', propose('urn:uuid:t2', 1, { sender: 'alice@localhost' }))?.performative).to.equal('PROPOSE');
    expect(body(h.send('CFP', propose('urn:uuid:t3', 1, { sender: 'mallory@evil.example' })))).to.deep.include({ code: 'OACOP_PAYMENT_REQUIRED' });
    h.config.trustLocalDomain = false;
    expect(body(h.send('CFP', propose('urn:uuid:t4', 1, { sender: 'alice@localhost' })))).to.deep.include({ code: 'OACOP_PAYMENT_REQUIRED' });
    expect(h.send('CFP', propose('urn:uuid:t5', 1, { sender: 'bob@localhost' }))?.performative).to.equal('PROPOSE');
  });

  it('tells a paying stranger no working hours: a weekend is declined without a comment', () => {
    const out = h.send('CFP', { ...paid('urn:uuid:w3'), constraints: { timeWindow: { start: '2025-12-13T09:00:00Z', end: '2025-12-14T17:00:00Z' } } });
    expect(body(out)).to.deep.equal({ type: 'ProposalResponse', threadId: 'urn:uuid:w3', respondingToRevision: 1, status: 'DECLINED', availableSlots: [] });
  });

  it('refuses an unpaid Confirm from a stranger, accepts one after a paid proposal', () => {
    expect(body(h.send('ACCEPT-PROPOSAL', confirm('urn:uuid:x1', 2, '2025-12-10T09:00:00Z', '2025-12-10T09:30:00Z', { sender: STRANGER })))).to.deep.include({ code: 'OACOP_PAYMENT_REQUIRED' });
    const slot = body(h.send('CFP', paid('urn:uuid:x2'))).availableSlots?.[0];
    expect(body(h.send('ACCEPT-PROPOSAL', confirm('urn:uuid:x2', 2, slot?.start ?? '', slot?.end ?? '', { sender: STRANGER })))).to.deep.include({ status: 'CONFIRMED' });
  });
});
const WINDOW_START = '2025-12-10T08:00:00Z';

describe('Calendar [oacop] tasks (oacop-rfc §4)', () => {
  let h: ReturnType<typeof calendarHarness>;
  beforeEach(() => (h = calendarHarness()));
  afterEach(() => h.close());
  const assign = { type: 'AssignTask', threadId: 'urn:uuid:task-1', object: { type: 'Task', title: 'Report', parentTaskId: 'urn:uuid:project-alpha' }, deadline: '2025-12-20T12:00:00Z' };
  const vtodo = () => parseCalendar(h.store.exportIcs()).getFirstSubcomponent('vtodo');

  it('stores AssignTask as a VTODO NEEDS-ACTION and leaves the decision to the person', () => {
    expect(body(h.send('REQUEST', assign))).to.deep.equal({ type: 'OACoPAck', threadId: 'urn:uuid:task-1', status: 'TASK_RECORDED', revision: 1, uid: 'urn:uuid:task-1', person: 'bob' });
    const t = vtodo();
    expect([t?.getFirstPropertyValue('summary'), t?.getFirstPropertyValue('status'), String(t?.getFirstPropertyValue('due'))]).to.deep.equal(['Report', 'NEEDS-ACTION', '2025-12-20T12:00:00Z']);
    expect(body(h.send('REQUEST', assign))).to.deep.include({ code: 'OACOP_STALE_REVISION' });
  });

  it('applies the person\'s decisions and answers TaskUpdate (ACCEPTED, progress, COMPLETED), raising SEQUENCE each time', () => {
    h.send('REQUEST', assign);
    expect(body(h.send('REQUEST', { type: 'TaskDecision', threadId: 'urn:uuid:task-1', status: 'ACCEPTED' }))).to.deep.equal({ type: 'TaskUpdate', threadId: 'urn:uuid:task-1', status: 'ACCEPTED', person: 'bob' });
    expect(body(h.send('REQUEST', { type: 'TaskDecision', threadId: 'urn:uuid:task-1', status: 'IN_PROGRESS', progress: 25, comment: 'Draft started.' }))).to.deep.include({ status: 'IN_PROGRESS', progress: 25, comment: 'Draft started.' });
    expect(vtodo()?.getFirstPropertyValue('percent-complete')).to.equal(25);
    expect(body(h.send('REQUEST', { type: 'TaskDecision', threadId: 'urn:uuid:task-1', status: 'COMPLETED' }))).to.deep.include({ status: 'COMPLETED', progress: 100 });
    expect([vtodo()?.getFirstPropertyValue('status'), vtodo()?.getFirstPropertyValue('sequence')]).to.deep.equal(['COMPLETED', 4]);
  });

  it('answers FAILURE INVALID_ARGS for a decision on an unknown task', () => {
    const out = h.send('REQUEST', { type: 'TaskDecision', threadId: 'urn:uuid:nope', status: 'DECLINED' });
    expect([out?.performative, body(out).reason]).to.deep.equal(['FAILURE', 'INVALID_ARGS']);
  });

  it('requires a proofOfBurn for a task from a stranger', () => {
    expect(body(h.send('REQUEST', { ...assign, sender: 'did:key:zNobody' }))).to.deep.include({ code: 'OACOP_PAYMENT_REQUIRED' });
  });
});

describe('Calendar [once] a Confirm re-run after a crash is answered, not applied again', () => {
  // The calendar's exchange is restored after a kill -9 and runs its handler again when the crash
  // fell between the store's commit and the reply (agents/calendar/main.ts store.once).
  it('the same request key gets the first ack back; without once the second Confirm would be stale', () => {
    const h = calendarHarness();
    try {
      h.send('CFP', propose('urn:uuid:o1', 1));
      const c = confirm('urn:uuid:o1', 2, '2025-12-10T09:00:00Z', '2025-12-10T09:30:00Z');
      const first = h.store.once('did:key:zCoord|msg-1', () => h.send('ACCEPT-PROPOSAL', c));
      const again = h.store.once('did:key:zCoord|msg-1', () => h.send('ACCEPT-PROPOSAL', c));
      expect(body(first)).to.deep.include({ type: 'OACoPAck', status: 'CONFIRMED', revision: 2 });
      expect(again).to.deep.equal(first);
      expect(body(h.send('ACCEPT-PROPOSAL', c))).to.deep.include({ code: 'OACOP_STALE_REVISION' }); // what a plain re-run answered
      expect(parseCalendar(h.store.exportIcs()).getAllSubcomponents('vevent').filter((e) => e.getFirstPropertyValue('uid') === 'urn:uuid:o1')).to.have.length(1);
    } finally {
      h.close();
    }
  });
});
