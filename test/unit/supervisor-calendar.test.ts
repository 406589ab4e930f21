// Supervisor [calendar]: one calendar agent per person with $PARLEY_HOME/calendars/<person>.json,
// and POST /spawn {kind: 'calendar', person} for people added while it runs (npm run user -- add).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { defaultCalendarConfig, listCalendarPeople, writeCalendarConfig } from '../../shared/calendar/config.js';
import { loadConfig } from '../../shared/config/index.js';
import { controlRequest } from '../../shared/supervisor/ipc.js';
import {
  startControl, calendarHostSpec, calendarSpec, hostNodeArgs, specialistSpec, type SpecContext, Supervisor,
} from '../../shared/supervisor/index.js';

const FAKE = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'fake-agent.js');
const ctx: SpecContext = { agentsDir: '/nonexistent', agentScript: FAKE };

describe('Supervisor [calendar] one calendar agent per person', function () {
  this.timeout(10000);
  let home: string;
  beforeEach(() => (home = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-supcal-'))));
  afterEach(() => fs.rmSync(home, { recursive: true, force: true }));

  it('runs dist/agents/calendar/main.js --person NAME, ready when it registered', () => {
    const s = calendarSpec({ agentsDir: '/r/dist/agents' }, 'bob');
    expect([s.name, s.kind, s.readyOn]).to.deep.equal(['calendar-bob', 'calendar', 'registered']);
    expect(s.args).to.deep.equal(['/r/dist/agents/calendar/main.js', '--person', 'bob']);
    expect(() => calendarSpec(ctx, 'Bad Name')).to.throw(/invalid account name/);
  });

  it('finds the people with a calendar config', () => {
    const cfg = loadConfig({ PARLEY_HOME: home });
    expect(listCalendarPeople(cfg)).to.deep.equal([]);
    for (const p of ['carol', 'bob']) writeCalendarConfig(cfg, defaultCalendarConfig(p));
    fs.writeFileSync(path.join(home, 'calendars', 'notes.txt'), 'x');
    expect(listCalendarPeople(cfg)).to.deep.equal(['bob', 'carol']);
  });

  it('spawns a calendar over the control socket and refuses a missing person', async () => {
    const cfg = loadConfig({ PARLEY_HOME: home });
    const sup = new Supervisor({ env: process.env, logsDir: path.join(home, 'logs'), say: () => undefined, graceMs: 300 });
    const control = await startControl(cfg, { supervisor: sup, specialistSpec: (d) => specialistSpec(ctx, d), calendarSpec: (p) => calendarSpec(ctx, p), readyTimeoutMs: 5000 });
    try {
      const res = await controlRequest(cfg, 'POST', '/spawn', { kind: 'calendar', person: 'bob' });
      expect(res?.status).to.equal(201);
      expect(res?.body.agent).to.include({ name: 'calendar-bob', status: 'ready' });
      expect((await controlRequest(cfg, 'POST', '/spawn', { kind: 'calendar', person: 'bob' }))?.body).to.include({ error: 'ALREADY_RUNNING' });
      expect((await controlRequest(cfg, 'POST', '/spawn', { kind: 'calendar' }))?.status).to.equal(400);
    } finally {
      await control.close();
      await sup.stopAll();
    }
  });

  it('PARLEY_CALENDAR_HOST: one host for every person (dist/agents/calendar/host.js), or N generated people with --count/--host', () => {
    const all = calendarHostSpec({ agentsDir: '/r/dist/agents' });
    expect([all.name, all.kind, all.readyOn]).to.deep.equal(['calendars', 'calendar', 'calendars registered']);
    // Node's flags first (PARLEY_HOST_SEMI_SPACE_MB, 4 MB by default: RSS per calendar), then the script.
    expect(all.args).to.deep.equal(['--max-semi-space-size=4', '/r/dist/agents/calendar/host.js']);
    const many = calendarHostSpec({ agentsDir: '/r/dist/agents' }, { name: 'load', count: 1000 });
    expect([many.name, ...many.args]).to.deep.equal(['calendars-load', '--max-semi-space-size=4', '/r/dist/agents/calendar/host.js', '--host', 'load', '--count', '1000']);
    expect(hostNodeArgs({ PARLEY_HOST_SEMI_SPACE_MB: '0' })).to.deep.equal([]);
    expect(() => calendarHostSpec(ctx, { name: 'Bad Name', count: 2 })).to.throw(/invalid person name/);
    expect(() => calendarHostSpec(ctx, { name: 'x', count: 0 })).to.throw(/--count/);
  });

  it('with a calendar host, a new person is its business (202), and a host of N calendars can be spawned', async () => {
    const cfg = loadConfig({ PARLEY_HOME: home });
    const sup = new Supervisor({ env: process.env, logsDir: path.join(home, 'logs'), say: () => undefined, graceMs: 300 });
    sup.add(calendarHostSpec(ctx));
    const control = await startControl(cfg, {
      supervisor: sup, specialistSpec: (d) => specialistSpec(ctx, d), calendarSpec: (p) => calendarSpec(ctx, p),
      calendarHost: 'calendars', calendarHostSpec: (d) => calendarHostSpec(ctx, d), readyTimeoutMs: 5000,
    });
    try {
      await sup.whenReady(['calendars'], 5000);
      const res = await controlRequest(cfg, 'POST', '/spawn', { kind: 'calendar', person: 'bob' });
      expect(res?.status).to.equal(202);
      expect(res?.body).to.deep.include({ hosted: true });
      expect(sup.has('calendar-bob')).to.equal(false);
      expect((await controlRequest(cfg, 'POST', '/spawn', { kind: 'calendar', person: 'Bad Name' }))?.status).to.equal(400);
      const host = await controlRequest(cfg, 'POST', '/spawn', { kind: 'calendar', name: 'load', count: 3 });
      expect(host?.status).to.equal(201);
      expect(host?.body.agent).to.include({ name: 'calendars-load', status: 'ready' });
      expect((await controlRequest(cfg, 'POST', '/spawn', { kind: 'calendar', name: 'load', count: 0 }))?.status).to.equal(400);
    } finally {
      await control.close();
      await sup.stopAll();
    }
  });
});
