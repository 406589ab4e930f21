// The dashboard in a real browser (Debian's Chromium, driven by playwright-core) against a real
// Parley: log in, ask a question from the chat page over ejabberd's WebSocket, see it in the
// sniffer with its sequence diagram, toggle a skill, spawn and stop a specialist. Screenshots of
// every page go to test-artifacts/console/ (git-ignored).
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { newConversationId } from '../../shared/acl/index.js';
import { defaultCalendarConfig, writeCalendarConfig } from '../../shared/calendar/config.js';
import { loadConfig } from '../../shared/config/index.js';
import { ensureAccount } from '../../shared/ejabberd/index.js';
import { Person } from '../../shared/trace/index.js';
import { artifactsDir, browser, call, CHROMIUM, consoleOf, type ConsoleHandle } from '../support/console.js';
import { startSupervisor, stopSupervisor, type Supervised } from '../support/supervised.js';
import { until } from '../support/wait.js';

const haveChromium = fs.existsSync(CHROMIUM);

describe('Console dashboard [browser]', function () {
  this.timeout(180000);
  let s: Supervised | undefined;
  let c: ConsoleHandle;
  let b: Awaited<ReturnType<typeof browser>> | undefined;
  let page: Page;
  let thread = '';
  const errors: string[] = [];
  const shot = (name: string) => page.screenshot({ path: path.join(artifactsDir(), `${name}.png`), fullPage: true });

  before(async function () {
    if (!haveChromium) throw new Error(`${CHROMIUM} is missing: run npm run setup as root (it installs Debian's chromium)`);
    s = await startSupervisor('parley-console-web-', { PARLEY_SPECIALISTS: 'math:arithmetic,time:time' }, {
      // Calendars for the chat page's person and one peer, open every day (the test does not depend on the weekday).
      prepare: (home) => {
        const hcfg = loadConfig({ ...process.env, PARLEY_HOME: home });
        for (const p of ['webuser', 'webpeer']) {
          writeCalendarConfig(hcfg, { ...defaultCalendarConfig(p, `${p}@${hcfg.domain}`, 'UTC'), workingHours: { days: [1, 2, 3, 4, 5, 6, 7], start: '09:00', end: '17:00', timezone: 'UTC' } });
        }
      },
    });
    c = consoleOf(s);
    b = await browser();
    page = b.context.pages()[0] ?? (await b.context.newPage());
    page.on('pageerror', (e) => errors.push(e.message));
  });
  after(async () => {
    await b?.close();
    await stopSupervisor(s?.sup, s?.cfg);
  });

  it('logs in with the token and shows the agents with their state', async () => {
    await page.goto(`${c.base}/`);
    expect(page.url()).to.equal(`${c.base}/login`);
    await page.fill('#token', 'wrong');
    await page.click('button[type=submit]');
    await page.waitForSelector('#error:not(:empty)');
    await shot('login');
    await page.fill('#token', c.token);
    await page.click('button[type=submit]');
    await page.waitForURL(`${c.base}/`);
    await page.waitForSelector('svg.graph .node');
    await page.waitForSelector('tr[data-supervised="presenter"] .badge.ok');
    const names = await page.$$eval('tr[data-agent]', (rows) => rows.map((r) => (r as HTMLElement).dataset.agent));
    expect(names).to.include.members(['specialist-math', 'specialist-time']);
    await page.waitForSelector('#live.on');
    await shot('agents');
  });

  it('asks the Presenter from the chat page over XMPP WebSocket and gets the answer', async () => {
    const { password } = await ensureAccount(s!.cfg, 'webuser');
    await page.goto(`${c.base}/#/chat`);
    await page.fill('#chat-user', 'webuser');
    await page.fill('#chat-pass', password);
    await page.click('#chat-login button');
    await page.waitForSelector('#chat-state:text("online")', { timeout: 20000 });
    await page.fill('#chat-input', 'what is 17 * 23?');
    await page.press('#chat-input', 'Enter');
    await page.waitForSelector('.msg.them .bubble:has-text("391")', { timeout: 30000 });
    const href = (await page.getAttribute('.msg.me a', 'href')) ?? '';
    thread = decodeURIComponent(href.replace('#/sniffer/', ''));
    expect(thread).to.match(/^sess-/);
    // One conversation for the whole chat, as in any client: a session started here takes its
    // steps (with a thread per line it answered "This conversation is not one of your sessions").
    await page.fill('#chat-input', 'session start Browser plan');
    await page.press('#chat-input', 'Enter');
    await page.waitForSelector('.msg.them .bubble:has-text("Session \\"Browser plan\\" started")', { timeout: 30000 });
    await page.fill('#chat-input', 'session add Book the room');
    await page.press('#chat-input', 'Enter');
    await page.waitForSelector('.msg.them .bubble:has-text("1. [todo] Book the room")', { timeout: 30000 });
    await shot('chat');
  });

  it('shows offered times as buttons (the choice form, as a client with forms does); a click books that one', async () => {
    const ask = async (text: string, answer: string) => {
      await page.fill('#chat-input', text);
      await page.press('#chat-input', 'Enter');
      await page.waitForSelector(`.msg.them .bubble:has-text("${answer}")`, { timeout: 60000 });
    };
    await ask('meet 60m webpeer 2027-05-03T09:00Z..2027-05-03T10:00Z', 'Booked: Meeting with webpeer');
    await ask('meet 30m webpeer 2027-05-03T09:00Z..2027-05-03T10:00Z', 'The nearest times that work for everyone');
    const offered = page.locator('.msg.them').filter({ hasText: 'The nearest times that work for everyone' }).last();
    const buttons = offered.locator('.choices button');
    expect(await buttons.allTextContents()).to.deep.equal(['Mon 3 May 2027, 10:00–10:30 UTC', 'Mon 3 May 2027, 10:30–11:00 UTC', 'Mon 3 May 2027, 11:00–11:30 UTC']);
    await shot('chat-choices');
    await buttons.nth(1).click();
    await page.waitForSelector('.msg.them .bubble:has-text("When: Mon 3 May 2027, 10:30–11:00 UTC")', { timeout: 60000 });
    expect(await page.locator('.msg.me .bubble').last().textContent()).to.equal('Mon 3 May 2027, 10:30–11:00 UTC');
    // Answered once: the buttons of that line are spent.
    expect(await buttons.evaluateAll((bs) => bs.every((b) => (b as HTMLButtonElement).disabled))).to.equal(true);
  });

  it('shows that conversation in the sniffer with its sequence diagram, hops and signature checks', async () => {
    await page.goto(`${c.base}/#/sniffer`);
    await page.waitForSelector(`#conversations li[data-id="${thread}"]`);
    await page.waitForSelector(`#flow tr[data-conversation="${thread}"]`);
    await page.click(`#conversations li[data-id="${thread}"]`);
    await page.waitForSelector('#diagram[data-rendered] svg', { timeout: 20000 });
    const labels = await page.$$eval('#diagram svg text', (ts) => ts.map((t) => t.textContent ?? ''));
    expect(labels.join(' ')).to.contain('Presenter').and.contain('Coordinator').and.contain('specialist-math');
    const sigs = await page.$$eval('table.hops tbody tr td:last-child', (tds) => tds.map((t) => t.textContent ?? ''));
    expect(sigs.length).to.be.greaterThan(2);
    expect(sigs.every((t) => t.includes('valid'))).to.equal(true);
    await page.click('table.hops tbody tr:first-child');
    expect(await page.textContent('pre.envelope')).to.contain(thread);
    await shot('sniffer');
    await page.screenshot({ path: path.join(artifactsDir(), 'sniffer-view.png') }); // the README's picture (docs/console.png)
  });

  it('lists people\'s conversations only (no registrations or DF changes) unless "people only" is unticked', async () => {
    const all = (await call(c, 'GET', '/api/conversations?limit=30')).body.conversations as Array<{ id: string; person: string | null }>;
    const housekeeping = all.filter((x) => x.person === null).map((x) => x.id);
    expect(housekeeping.length, 'the agents\' registrations are conversations too').to.be.greaterThan(0);
    const people = (await call(c, 'GET', '/api/conversations?limit=30&people=true')).body.conversations as Array<{ id: string; person: string | null }>;
    expect(people.map((x) => x.id)).to.include(thread);
    expect(people.every((x) => x.person !== null)).to.equal(true);
    expect((await call(c, 'GET', '/api/conversations?people=maybe')).status).to.equal(400);

    await page.goto(`${c.base}/#/sniffer`);
    await page.waitForSelector(`#conversations li[data-id="${thread}"]`);
    const listed = () => page.$$eval('#conversations li', (lis) => lis.map((l) => (l as HTMLElement).dataset.id ?? ''));
    expect(await page.isChecked('#f-people')).to.equal(true);
    expect((await listed()).filter((id) => housekeeping.includes(id))).to.deep.equal([]);
    await page.uncheck('#f-people');
    await page.waitForFunction((ids) => [...document.querySelectorAll('#conversations li')].some((l) => ids.includes((l as HTMLElement).dataset.id ?? '')), housekeeping);
    await page.check('#f-people');
    await page.waitForFunction((ids) => ![...document.querySelectorAll('#conversations li')].some((l) => ids.includes((l as HTMLElement).dataset.id ?? '')), housekeeping);
    expect(await listed()).to.include(thread);
  });

  it('shows a conversation that starts while the sniffer is open', async () => {
    await page.goto(`${c.base}/#/sniffer`);
    await page.waitForSelector('#live.on');
    await page.waitForSelector('#conversations li');
    const person = await Person.connect(s!.cfg, 'tracer');
    try {
      const thread = newConversationId();
      const asked = Date.now();
      const answered = person.ask('what is 2 + 2?', { thread });
      await page.waitForSelector(`#conversations li[data-id="${thread}"]`, { timeout: 10000 });
      console.log(`      (new conversation in the sniffer ${Date.now() - asked} ms after the question was sent)`);
      await answered;
    } finally {
      await person.close();
    }
  });

  it('pauses the live flow with every kept row to scroll back through, and resumes it with the newest', async () => {
    await page.goto(`${c.base}/#/sniffer`);
    await page.waitForSelector('#live.on');
    await page.waitForSelector('#flow tr');
    await page.click('#pause');
    await page.waitForSelector('#pause:text("Resume")');
    const person = await Person.connect(s!.cfg, 'pauser');
    try {
      const thread = newConversationId();
      await person.ask('what is 3 + 4?', { thread });
      // Its rows reach the page (counted on the button) but the paused flow does not move.
      await page.waitForFunction(() => /^Resume \(\d+ new\)$/.test(document.getElementById('pause')?.textContent ?? ''), undefined, { timeout: 10000 });
      expect(await page.$$(`#flow tr[data-conversation="${thread}"]`)).to.have.length(0);
      await page.click('#pause');
      await page.waitForSelector(`#flow tr[data-conversation="${thread}"]`, { timeout: 5000 });
      expect(await page.textContent('#pause')).to.equal('Pause');
    } finally {
      await person.close();
    }
  });

  it('toggles a skill from the skills page', async () => {
    await page.goto(`${c.base}/#/skills`);
    const box = 'tr[data-skill="time"] input[type=checkbox]';
    await page.waitForSelector(box, { state: 'attached' }); // the styled switch hides the box itself
    expect(await page.isChecked(box)).to.equal(true);
    await page.click('tr[data-skill="time"] .slider');
    const enabled = async () => ((await call(c, 'GET', '/api/skills')).body.skills as Array<{ name: string; enabled: boolean }>).find((x) => x.name === 'time')!.enabled;
    await until(async () => !(await enabled()), 'time disabled');
    await page.waitForSelector(`${box}:not(:checked)`, { state: 'attached' });
    await page.click('tr[data-skill="arithmetic"] button:has-text("Edit")');
    await page.waitForFunction(() => (document.getElementById('skill-json') as HTMLTextAreaElement).value.includes('arithmetic'));
    await shot('skills');
    await page.click('tr[data-skill="time"] .slider');
    await until(enabled, 'time enabled again');
  });

  it('says which specialist serves each skill, and starts one for an enabled skill nobody serves', async () => {
    await page.goto(`${c.base}/#/skills`);
    await page.waitForSelector('tr[data-skill="arithmetic"] td:text("specialist-math")');
    const row = 'tr[data-skill="text_stats"]';
    await page.waitForSelector(`${row} .badge.warn:text("not served")`);
    await page.click(`${row} button:has-text("Start a specialist")`);
    await page.waitForSelector(`${row} td:text("specialist-text-stats")`, { timeout: 60000 });
    expect(await page.$(`${row} .badge:text("not served")`)).to.equal(null);
    expect((await call(c, 'POST', '/api/agents/specialist-text-stats/stop')).status).to.equal(200);
  });

  it('spawns and stops a specialist from the agents page', async () => {
    await page.goto(`${c.base}/#/agents`);
    await page.fill('#spawn input[name=name]', 'web1');
    await page.fill('#spawn input[name=skills]', 'arithmetic');
    await page.click('#spawn button[type=submit]');
    await page.waitForSelector('tr[data-supervised="specialist-web1"] .badge.ok:text("ready")', { timeout: 60000 });
    await shot('agents-spawned');
    // The graph: every agent a node in its group's column, and no label over another (an ellipse
    // once put one agent's label on another's).
    await page.waitForSelector('svg.graph .node text:text("specialist-web1")');
    const labels = await page.$$eval('svg.graph .node text', (ts) => ts.map((t) => { const r = t.getBoundingClientRect(); return { name: t.textContent, x0: r.left, x1: r.right, y0: r.top, y1: r.bottom }; }));
    for (const [i, a] of labels.entries()) {
      for (const b of labels.slice(i + 1)) expect(a.x1 <= b.x0 || b.x1 <= a.x0 || a.y1 <= b.y0 || b.y1 <= a.y0, `${a.name} overlaps ${b.name}`).to.equal(true);
    }
    const groups = await page.$$eval('svg.graph text.group', (ts) => ts.map((t) => t.textContent));
    expect(groups.slice(0, 4)).to.deep.equal(['People', 'Coordination', 'Directory & facts', 'Specialists']);
    await page.click('tr[data-supervised="specialist-web1"] button:has-text("Stop")');
    await page.waitForSelector('tr[data-supervised="specialist-web1"] .badge:text("stopped")', { timeout: 30000 });
  });

  it('shows sessions, meetings, tasks, bookings and the DF read-only, with a session\'s hash chain verified on screen', async () => {
    // A person convenes a Coordination Session from chat and adds a step: two turns in its chain.
    const person = await Person.connect(s!.cfg, 'convener');
    let sessionId = '';
    try {
      sessionId = newConversationId();
      await person.ask('session start Launch plan', { thread: sessionId });
      await person.ask('session add Draft the agenda', { thread: sessionId });
    } finally {
      await person.close();
    }
    await page.goto(`${c.base}/#/data`);
    await page.waitForSelector('h3:text("Directory (DF)")');
    const text = await page.textContent('main') ?? '';
    expect(text).to.contain('specialist-math').and.match(/read-only; times in \S+/);
    // Times as people read them: no raw slot JSON or ISO instants in the tables.
    expect(text).to.not.match(/\{"start":|\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/);
    await page.click(`ul.convs li:has-text("${sessionId}")`);
    const verdict = await page.waitForSelector('#chain-verdict .badge.ok', { timeout: 10000 });
    expect(await verdict.textContent()).to.match(/hash chain verified: [2-9]\d* turns/);
    await shot('data');
    expect(errors).to.deep.equal([]);
  });
});
