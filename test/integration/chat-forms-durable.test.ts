// Issue 16, human in the loop from any client: a choice or an approval the system needs from a
// person is asked as a form (XEP-0004) in the chat message, and answering it — even after the
// Presenter and the Coordinator were killed (-9) and restarted by the supervisor in between —
// resumes the waiting conversation: the task is accepted and its assigner told, the chosen slot
// is booked. Real supervisor, real ejabberd, every agent a process, people on XMPP clients.
import { expect } from 'chai';
import { defaultCalendarConfig, writeCalendarConfig } from '../../shared/calendar/config.js';
import { loadConfig, type ParleyConfig } from '../../shared/config/index.js';
import { ChatPerson } from '../support/chat-person.js';
import { injectFault, untilServerFlushed } from '../support/crash-matrix.js';
import { startSupervisor, stopSupervisor, type Supervised } from '../support/supervised.js';

const PEOPLE = ['gus', 'hal', 'ida'];

describe('Chat [forms] a form answered after the Presenter and the Coordinator restarted resumes the waiting conversation', function () {
  this.timeout(120000);
  let s: Supervised;
  let cfg: ParleyConfig;
  const people = new Map<string, ChatPerson>();
  const who = (p: string) => people.get(p) as ChatPerson;
  /** kill -9 of both agents a form's answer passes through; resolves once the supervisor has both back. */
  const killBoth = async () => {
    await injectFault(cfg, { kind: 'kill', agent: 'presenter' });
    await injectFault(cfg, { kind: 'kill', agent: 'coordinator' });
  };

  before(async function () {
    this.timeout(180000);
    s = await startSupervisor('parley-forms-', { PARLEY_SPECIALISTS: 'math:arithmetic', PARLEY_AUTOSCALE: '0', PARLEY_LEASE_MS: '120000', PARLEY_HEARTBEAT_MS: '5000' }, {
      prepare: (home) => {
        const hcfg = loadConfig({ ...process.env, PARLEY_HOME: home });
        // Open every day 09–17 UTC: the test does not depend on the weekday it runs on.
        for (const p of PEOPLE) writeCalendarConfig(hcfg, { ...defaultCalendarConfig(p, `${p}@${hcfg.domain}`, 'UTC'), workingHours: { days: [1, 2, 3, 4, 5, 6, 7], start: '09:00', end: '17:00', timezone: 'UTC' } });
      },
    });
    cfg = s.cfg;
    for (const p of PEOPLE) people.set(p, await ChatPerson.connect(cfg, p));
    await untilServerFlushed(cfg, Date.now()); // accounts and subscriptions on disk before any kill
  });

  after(async function () {
    this.timeout(60000);
    await Promise.all([...people.values()].map((p) => p.close().catch(() => undefined)));
    await stopSupervisor(s?.sup, cfg);
  });

  it('an approval: hal gets the task as a form, both agents are killed and come back, hal submits "accept"; gus is told', async () => {
    const gusSeen = who('gus').lines.length;
    const halSeen = who('hal').lines.length;
    expect((await who('gus').ask("assign 'Q1 report' to hal by Friday")).answer).to.match(/^Assigned "Q1 report" to hal/);
    const told = await who('hal').waitFor((l) => l.body.startsWith('gus assigned you a task'), 'the assignment', 15000, halSeen);
    expect(told.choices).to.deep.equal(['accept', 'decline', 'done']);
    await killBoth();
    // A form submit, no text typed: the Presenter that asked is gone; the Coordinator's durable task carries on.
    expect(await who('hal').chooseAndWait(told.thread, 'accept')).to.equal('Noted: you accepted "Q1 report". I told gus.');
    const update = await who('gus').waitFor((l) => l.body.includes('hal') && l.body.includes('accepted'), 'gus told of the acceptance', 15000, gusSeen);
    expect(update.body).to.contain('"Q1 report"');
  });

  it('a slot choice: ida is busy, gus gets the nearest times as a form, both agents restart, picking one books it', async () => {
    expect((await who('ida').ask('meet 3h hal 2027-02-10T09:00Z..2027-02-10T12:00Z')).answer).to.contain('Booked');
    const { answer, line, thread } = await who('gus').ask('meet 30m ida 2027-02-10T09:00Z..2027-02-10T12:00Z');
    expect(answer).to.contain('• ida is busy then').and.not.contain('declined');
    expect(line.choices).to.have.length(3);
    await killBoth();
    const picked = line.choices?.[1] as string;
    const booked = await who('gus').chooseAndWait(thread, picked);
    expect(booked).to.contain('Booked').and.contain('Wed 10 Feb 2027, 12:30–13:00 UTC');
  });
});
