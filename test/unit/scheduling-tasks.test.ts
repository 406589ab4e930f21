import { expect } from 'chai';
import { createActor, fromPromise } from 'xstate';
import { makeEnvelope } from '../../shared/acl/index.js';
import { type ExchangeEmitted, identify } from '../../shared/runtime/index.js';
import { userMsgFactory } from '../../agents/coordinator/factory.js';
import { expertMachine } from '../../agents/coordinator/expert/machine.js';
import { cancelMachine } from '../../agents/coordinator/scheduling/cancel.js';
import type { MeetingRecord, TaskRecord } from '../../agents/coordinator/scheduling/store.js';
import { assignMachine, taskAnswerMachine } from '../../agents/coordinator/scheduling/tasks.js';
import { notifyMachine } from '../../agents/presenter/notify.js';
import { DOMAIN, harness, T, userMsg } from './coordinator-harness.js';

const TASK: TaskRecord = { threadId: 'urn:uuid:t1', assigner: 'alice@localhost', assignee: 'bob@localhost', agent: 'calendar-bob', title: 'Q1 report', deadline: '2026-12-11T17:00:00Z', status: 'ASSIGNED' };
const MEETING: MeetingRecord = {
  threadId: 'urn:uuid:m1', organizer: 'alice@localhost', title: 'Sync', slot: { start: '2026-12-10T09:00:00Z', end: '2026-12-10T09:30:00Z' },
  revision: 2, participants: ['calendar-alice', 'calendar-bob'], room: 'room-atlas', status: 'CONFIRMED',
};
// Not a sleep: the fake actors resolve in microtasks, which all run before a 0 ms timer fires.
const settle = () => new Promise((r) => setTimeout(r, 0));

describe('Coordinator [tasks] the assignee answers from chat (OACoP §4.2)', () => {
  it('routes "50% draft started" to the task flow only for someone with an open task', () => {
    const deps = { oacopTimeoutMs: 5000, lastMeeting: () => undefined, openTasks: (who: string) => (who === 'bob@localhost' ? [TASK] : []) };
    const f = userMsgFactory({ self: 'Coordinator', domain: DOMAIN, timeouts: T, scheduling: deps });
    const from = identify('presenter@localhost', DOMAIN);
    expect(f(userMsg('50% draft started', 'bob@localhost'), from).machine).to.equal(taskAnswerMachine);
    expect(f(userMsg('50% draft started', 'carol@localhost'), from).machine).to.equal(expertMachine);
  });

  it('the same task given again is said, not sent a second time; another title, assignee or a closed one is a new task', () => {
    // Found by hand: "assign "write report" to bob by friday" sent twice made two tasks for bob.
    let tasks: TaskRecord[] = [TASK];
    const deps = { oacopTimeoutMs: 5000, lastMeeting: () => undefined, openTasks: () => [], tasksOf: (who: string) => tasks.filter((x) => x.assigner === who || x.assignee === who) };
    const f = userMsgFactory({ self: 'Coordinator', domain: DOMAIN, timeouts: T, scheduling: deps });
    const from = identify('presenter@localhost', DOMAIN);
    const again = f(userMsg("assign '  q1   REPORT ' to Bob by friday"), from);
    expect(again.machine).to.not.equal(assignMachine);
    expect((again.input as { detail: string }).detail).to.equal('bob already has "Q1 report" from you, due Fri 11 Dec 2026, 17:00 UTC (not answered yet): nothing new was sent. To give a second one, name it differently.');
    tasks = [{ ...TASK, status: 'IN_PROGRESS', progress: 40 }];
    expect((f(userMsg("assign 'Q1 report' to bob by friday"), from).input as { detail: string }).detail).to.contain('(40% done)');
    expect(f(userMsg("assign 'Q1 report' to carol by friday"), from).machine, 'another assignee').to.equal(assignMachine);
    expect(f(userMsg("assign 'Q2 report' to bob by friday"), from).machine, 'another title').to.equal(assignMachine);
    expect(f(userMsg("assign 'Q1 report' to bob by friday", 'carol@localhost'), from).machine, 'another assigner').to.equal(assignMachine);
    tasks = [];
    expect(f(userMsg("assign 'Q1 report' to bob by friday"), from).machine, 'done or declined: open tasks only').to.equal(assignMachine);
  });

  it('TaskDecision → TaskUpdate → saved, the assigner told (NOTIFY_USER), the assignee answered', async () => {
    const saved: TaskRecord[] = [];
    const m = taskAnswerMachine.provide({ actors: { save: fromPromise(async ({ input }: { input: TaskRecord }) => { saved.push(input); }) } });
    const h = harness(m, userMsg('50% draft started', 'bob@localhost'), { task: TASK, status: 'IN_PROGRESS', progress: 50, comment: 'draft started', oacopTimeoutMs: 5000 });
    const decision = h.last();
    expect(decision).to.deep.include({ performative: 'REQUEST', receiver: 'calendar-bob', ontology: 'OACoP' });
    expect(decision.content).to.deep.equal({ type: 'TaskDecision', threadId: 'urn:uuid:t1', status: 'IN_PROGRESS', progress: 50, comment: 'draft started' });
    h.reply(decision, 'INFORM', { type: 'TaskUpdate', threadId: 'urn:uuid:t1', status: 'IN_PROGRESS', progress: 50, comment: 'draft started', person: 'bob' });
    await settle();
    expect(saved[0]).to.deep.include({ status: 'IN_PROGRESS', progress: 50 });
    const [notify, reply] = h.sent.slice(-2);
    expect(notify?.content).to.deep.include({ type: 'NOTIFY_USER', user: 'alice@localhost', text: 'bob is working on "Q1 report" (50%): draft started.' });
    expect(reply?.content.text).to.equal('Noted: you are working on "Q1 report" (50%): draft started. I told alice.');
  });

  it('a silent calendar: the assignee is told after OACOP_TIMEOUT, nobody else', () => {
    const h = harness(taskAnswerMachine, userMsg('done', 'bob@localhost'), { task: TASK, status: 'COMPLETED', progress: 100, oacopTimeoutMs: 5000 });
    h.clock.increment(5000);
    expect(h.sent).to.have.length(2);
    expect(h.last().content.text).to.contain('Your calendar did not answer');
  });
});

describe('Coordinator [cancel] "cancel that meeting" (OACoP §3.5)', () => {
  it('CANCEL at revision + 1 to every participant and the room, then saved, answered with a METHOD:CANCEL .ics, others told', async () => {
    const saved: MeetingRecord[] = [];
    const m = cancelMachine.provide({ actors: { save: fromPromise(async ({ input }: { input: MeetingRecord }) => { saved.push(input); }) } });
    const h = harness(m, userMsg('cancel that meeting'), { meeting: MEETING, now: '2026-12-09T10:00:00Z', oacopTimeoutMs: 5000 });
    const cancels = h.sent.filter((e) => e.performative === 'CANCEL');
    expect(cancels.map((e) => e.receiver)).to.deep.equal(['calendar-alice', 'calendar-bob', 'room-atlas']);
    expect(cancels[0]?.content).to.deep.include({ type: 'CancelCollaboration', threadId: 'urn:uuid:m1', revision: 3 });
    for (const c of cancels) h.reply(c, 'INFORM', { type: 'OACoPAck', threadId: 'urn:uuid:m1', status: 'CANCELLED', revision: 3 });
    await settle();
    expect(saved[0]).to.deep.include({ status: 'CANCELLED', revision: 3 });
    const reply = h.sent.find((e) => e.content.type === 'PRESENTER_REPLY');
    expect(reply?.content.text).to.contain('Cancelled: Sync').and.contain('room atlas released');
    expect((reply?.content.rich as { ics: string }).ics).to.contain('METHOD:CANCEL').and.contain('SEQUENCE:3');
    expect(h.sent.filter((e) => e.content.type === 'NOTIFY_USER').map((e) => e.content.user)).to.deep.equal(['bob@localhost']);
  });

  it('said again: the last meeting is already cancelled, and nothing is sent to anyone', () => {
    const h = harness(cancelMachine, userMsg('cancel that meeting'), { meeting: { ...MEETING, status: 'CANCELLED' }, now: '2026-12-09T10:00:00Z', oacopTimeoutMs: 5000 });
    expect(h.sent).to.have.length(1);
    expect(h.last().content.text).to.equal('Your last meeting (Sync, Thu 10 Dec 2026, 09:00–09:30 UTC) is already cancelled. "my meetings" shows the others, and "cancel meeting <n>" cancels one.');
  });

  it('a meeting already over is not cancelled', () => {
    const h = harness(cancelMachine, userMsg('cancel that meeting'), { meeting: MEETING, now: '2026-12-10T09:30:00Z', oacopTimeoutMs: 5000 });
    expect(h.sent).to.have.length(1);
    expect(h.last().content.text).to.equal('Your last meeting (Sync, Thu 10 Dec 2026, 09:00–09:30 UTC) is already over: nothing was cancelled.');
  });

  it('nothing booked: says so and sends nothing else', () => {
    const h = harness(cancelMachine, userMsg('cancel that meeting'), { now: '2026-12-09T10:00:00Z', oacopTimeoutMs: 5000 });
    expect(h.sent).to.have.length(1);
    expect(h.last().content.text).to.equal('You have no booked meeting to cancel.');
  });
});

describe('Presenter [notify] NOTIFY_USER', () => {
  const request = (user: string) => makeEnvelope({
    performative: 'INFORM', sender: 'Coordinator', receiver: 'Presenter', conversation_id: 'urn:uuid:t1',
    content: { type: 'NOTIFY_USER', user, text: 'alice assigned you a task', rich: { ics: 'BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n' } },
  });
  const run = async (user: string) => {
    const lines: unknown[] = [];
    const sent: ExchangeEmitted[] = [];
    const actor = createActor(notifyMachine.provide({ actors: { deliver: fromPromise(async ({ input }) => { lines.push(input); }) } }), {
      input: { request: request(user), from: identify('coordinator@localhost', DOMAIN), self: 'Presenter', allowed: (jid: string) => jid.endsWith('@localhost') },
    });
    actor.on('send', (e) => sent.push(e));
    actor.start();
    await settle();
    return { lines, sent };
  };

  it('chats the text (and the .ics) to the person, in the envelope\'s conversation as thread', async () => {
    const { lines, sent } = await run('bob@localhost');
    expect(lines).to.deep.equal([{ type: 'chat', to: 'bob@localhost', text: 'alice assigned you a task', thread: 'urn:uuid:t1', chatState: 'active', ics: 'BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n' }]);
    expect(sent).to.have.length(0);
  });

  it('never messages someone outside the allow-list: FAILURE INVALID_ARGS', async () => {
    const { lines, sent } = await run('eve@elsewhere.org');
    expect(lines).to.have.length(0);
    expect(sent[0]?.type === 'send' && sent[0].envelope.content).to.deep.include({ reason: 'INVALID_ARGS' });
  });
});
