// People's calendars as virtual agents of one calendar host (issue 14 §3), under the real
// supervisor with PARLEY_CALENDAR_HOST=1: one process `calendars` serves alice, bob and carol as
// alice@calendars.<domain> …, each registered with the DF; a meeting booked through chat lands
// CONFIRMED in every attendee's own calendar file; a person added while it runs joins without a
// restart; the host comes back from a kill -9; and an ordinary account cannot pass for a virtual calendar.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import {
  calendarDbFile, defaultCalendarConfig, writeCalendarConfig, type CalendarConfig,
} from '../../shared/calendar/config.js';
import { makeEnvelope } from '../../shared/acl/index.js';
import { loadConfig, paths, type ParleyConfig } from '../../shared/config/index.js';
import { ensureAccount } from '../../shared/ejabberd/index.js';
import { silentLogger } from '../../shared/log/index.js';
import { openDb } from '../../shared/store/index.js';
import type { ChildInfo } from '../../shared/supervisor/index.js';
import { controlRequest } from '../../shared/supervisor/ipc.js';
import { readConversation } from '../../shared/trace/collect.js';
import { clientTransport } from '../../shared/transport/index.js';
import { bookedEvents } from '../support/calendars.js';
import { ChatPerson } from '../support/chat-person.js';
import { sendAsSomeoneElse } from '../support/raw-xmpp.js';
import { startSupervisor, stopSupervisor } from '../support/supervised.js';
import { until } from '../support/wait.js';

// Open every day, 09–17 UTC, so the test does not depend on the weekday it runs on.
const open = (cfg: ParleyConfig, p: string): CalendarConfig => ({
  ...defaultCalendarConfig(p, `${p}@${cfg.domain}`, 'UTC'), workingHours: { days: [1, 2, 3, 4, 5, 6, 7], start: '09:00', end: '17:00', timezone: 'UTC' },
});

describe('Calendar host [end to end] every person\'s calendar a virtual agent of one process (PARLEY_CALENDAR_HOST=1)', function () {
  this.timeout(120000);
  let cfg: ParleyConfig;
  let sup: Awaited<ReturnType<typeof startSupervisor>>['sup'] | undefined;
  const people = new Map<string, ChatPerson>();
  const registered = () => {
    const db = openDb(path.join(paths(cfg).telemetry, 'calendars.sqlite'), { readonly: true });
    try {
      return (db.prepare(`SELECT DISTINCT agent FROM envelopes WHERE direction = 'in' AND content_type = 'REGISTERED'`).all() as Array<{ agent: string }>).map((r) => r.agent).sort();
    } finally {
      db.close();
    }
  };

  before(async function () {
    this.timeout(180000);
    ({ sup, cfg } = await startSupervisor('parley-calhost-', {
      PARLEY_CALENDAR_HOST: '1', PARLEY_SPECIALISTS: 'time:time', PARLEY_CONSOLE: '0',
      PARLEY_OACOP_TIMEOUT_MS: '10000', PARLEY_REGISTRY_TIMEOUT_MS: '15000',
    }, {
      prepare: (home) => {
        const c = loadConfig({ PARLEY_HOME: home });
        for (const p of ['alice', 'bob', 'carol']) writeCalendarConfig(c, open(c, p));
      },
    }));
    for (const p of ['alice', 'bob', 'carol']) people.set(p, await ChatPerson.connect(cfg, p));
  });
  after(async function () {
    this.timeout(60000);
    await Promise.all([...people.values()].map((p) => p.close().catch(() => undefined)));
    await stopSupervisor(sup, cfg);
  });

  it('runs one calendar host instead of a process per person; each calendar registers under its own JID', async () => {
    const agents = ((await controlRequest(cfg, 'GET', '/agents'))?.body.agents ?? []) as ChildInfo[];
    expect(agents.find((a) => a.name === 'calendars')).to.deep.include({ kind: 'calendar', status: 'ready' });
    expect(agents.filter((a) => a.name.startsWith('calendar-'))).to.have.length(0);
    expect(registered()).to.deep.equal(['alice', 'bob', 'carol'].map((p) => `${p}@calendars.${cfg.domain}`));
    // Registered in REGISTER_MANY batches (each entry signed by its calendar), keys in one 0600 key ring.
    const db = openDb(path.join(paths(cfg).telemetry, 'Registry.sqlite'), { readonly: true });
    try {
      const batches = db.prepare(`SELECT sender FROM envelopes WHERE direction = 'in' AND content_type = 'REGISTER_MANY'`).all() as Array<{ sender: string }>;
      expect(batches.length).to.be.at.least(1);
      expect(batches.every((b) => b.sender.endsWith(`@calendars.${cfg.domain}`))).to.equal(true);
    } finally {
      db.close();
    }
    const keys = path.join(cfg.home, 'secrets', 'keys');
    const ring = path.join(keys, 'vcal-calendars.ring.json');
    expect(fs.statSync(ring).mode & 0o777).to.equal(0o600);
    expect(Object.keys((JSON.parse(fs.readFileSync(ring, 'utf8')) as { keys: object }).keys).sort()).to.deep.equal(['vcal-alice', 'vcal-bob', 'vcal-carol']);
    expect(fs.readdirSync(keys).filter((f) => /^vcal-.*(?<!\.ring)\.json$/.test(f))).to.deep.equal([]);
  });

  it('books a meeting of three from chat: every attendee\'s own calendar holds the CONFIRMED event', async () => {
    const alice = people.get('alice') as ChatPerson;
    const { answer, ics } = await alice.ask('meet 30m bob,carol 2026-12-14T09:00Z..2026-12-14T12:00Z', { ics: true, timeoutMs: 90000 });
    expect(answer).to.contain('Booked').and.contain('Mon 14 Dec 2026, 09:00–09:30 UTC').and.contain('Participants: alice, bob and carol');
    const uid = /UID:(\S+)/.exec(ics?.file ?? '')?.[1];
    expect(uid).to.be.a('string');
    for (const p of ['alice', 'bob', 'carol']) {
      expect(bookedEvents(calendarDbFile(cfg, p)).filter((e) => e.uid === uid && e.status === 'CONFIRMED'), p).to.have.length(1);
    }
  });

  it('serves a person added while it runs (calendars/<person>.json), without a restart', async () => {
    writeCalendarConfig(cfg, open(cfg, 'dave'));
    await until(() => registered().includes(`dave@calendars.${cfg.domain}`), 'dave\'s calendar registered', 30000);
    const bob = people.get('bob') as ChatPerson;
    const { answer } = await bob.ask('meet 30m dave 2026-12-15T13:00Z..2026-12-15T15:00Z', { timeoutMs: 90000 });
    expect(answer).to.contain('Booked: Meeting with dave').and.contain('Participants: bob and dave');
    expect(bookedEvents(calendarDbFile(cfg, 'dave')).filter((e) => e.status === 'CONFIRMED')).to.have.length(1);
  });

  it('comes back after a kill -9 (the supervisor restarts it): the calendars register again, keep their events and book', async () => {
    const host = async () => (((await controlRequest(cfg, 'GET', '/agents'))?.body.agents ?? []) as ChildInfo[]).find((a) => a.name === 'calendars') as ChildInfo;
    const before = await host();
    process.kill(before.pid as number, 'SIGKILL');
    await until(async () => {
      const now = await host();
      return now.status === 'ready' && now.pid !== before.pid;
    }, 'the calendar host restarted and registered', 60000, 200);
    const carol = people.get('carol') as ChatPerson;
    const { answer } = await carol.ask('meet 30m alice 2026-12-16T10:00Z..2026-12-16T12:00Z', { timeoutMs: 90000 });
    expect(answer).to.contain('Booked: Meeting with alice').and.match(/Participants: (alice and carol|carol and alice)/);
    // alice's and carol's calendars: the meeting of three before the kill and this one.
    for (const p of ['alice', 'carol']) expect(bookedEvents(calendarDbFile(cfg, p)).filter((e) => e.status === 'CONFIRMED'), p).to.have.length(2);
  });

  it('an ordinary account cannot pass for a virtual calendar: its envelopes are refused, a spoofed from never reaches an agent', async () => {
    const { jid, password } = await ensureAccount(cfg, 'mallory');
    const t = clientTransport({ jid, password, host: cfg.host, port: cfg.c2sPort, logger: silentLogger(), resource: 'm' });
    await t.start();
    const dir = paths(cfg).telemetry;
    const victim = `bob@calendars.${cfg.domain}`;
    try {
      // Registering as bob's calendar (name and JID claimed in the envelope): the DF judges the authenticated sender.
      const regCid = `sess-${randomUUID()}`;
      const register = makeEnvelope({
        performative: 'REQUEST', sender: victim, receiver: 'Registry', conversation_id: regCid,
        content: { type: 'REGISTER', profile: { jid: victim, name: victim, version: '1', capabilities: ['CALENDAR'], topics: ['bob', `bob@${cfg.domain}`] } },
      });
      t.send({ to: `registry@${cfg.domain}`, type: 'normal', id: register.reply_with, thread: regCid, body: JSON.stringify(register) });
      // A calendar's own message to the Coordinator (a TaskUpdate only calendars and rooms may open).
      const taskCid = `sess-${randomUUID()}`;
      const update = makeEnvelope({
        performative: 'INFORM', sender: victim, receiver: 'Coordinator', conversation_id: taskCid,
        content: { type: 'TaskUpdate', threadId: `urn:uuid:${randomUUID()}`, status: 'COMPLETED' },
      });
      t.send({ to: `coordinator@${cfg.domain}`, type: 'normal', id: update.reply_with, thread: taskCid, body: JSON.stringify(update) });
      for (const [cid, agent] of [[regCid, 'Registry'], [taskCid, 'Coordinator']] as const) {
        await until(() => readConversation(dir, cid).some((r) => r.agent === agent && r.direction === 'in'), `${agent} saw it`, 10000);
        const seen = readConversation(dir, cid).filter((r) => r.agent === agent && r.direction === 'in');
        expect(seen.map((r) => r.decision), agent).to.satisfy((d: string[]) => d.every((x) => x.startsWith('rejected:')));
      }
      // Sending from the calendar's address: ejabberd answers a client's foreign `from` with the
      // invalid-from stream error (RFC 6120 §4.9.3.9) and closes the stream; nothing is routed.
      const spoofCid = `sess-${randomUUID()}`;
      const spoof = makeEnvelope({ ...register, conversation_id: spoofCid });
      await sendAsSomeoneElse({ host: cfg.host, port: cfg.c2sPort, domain: cfg.domain }, 'mallory', password, victim, `registry@${cfg.domain}`, spoof);
      expect(readConversation(dir, spoofCid).filter((r) => r.direction === 'in' && !r.decision.startsWith('rejected:'))).to.have.length(0);
    } finally {
      await t.stop();
    }
  });
});
