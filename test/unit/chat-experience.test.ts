// Issue 16 pieces that need no XMPP: intents (small talk, plain-word commands), the attachment
// server (unguessable links, nothing else served), and the supervisor giving up on a specialist
// that keeps failing at start.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { classifyIntent } from '../../agents/coordinator/intent.js';
import { briefText, exhausted, fallbackText, partialAnswerNote } from '../../agents/coordinator/replies.js';
import { xml } from '@xmpp/client';
import { AdhocSessions, handleCommand, NS_COMMANDS, NS_DATA } from '../../agents/presenter/adhoc.js';
import { CHOICE_FORM_TYPE, choiceForm, choicesOf, submittedChoice } from '../../agents/presenter/choices.js';
import { startFileServer } from '../../agents/presenter/files.js';
import { NS_UPLOAD, slotOf } from '../../agents/presenter/upload.js';
import { classify } from '../../shared/runtime/index.js';
import { whyNot } from '../../skills/plan/handler.js';
import { ManagedChild, clipWords, FailedToStart, Supervisor } from '../../shared/supervisor/index.js';
import { until } from '../support/wait.js';

const NOW = new Date('2026-12-09T10:00:00Z');

describe('Chat [intents] small talk and plain-word commands', () => {
  it('"hello", "thanks", "bye" are small talk; a question is not', () => {
    expect(classifyIntent('hello')).to.deep.equal({ kind: 'smalltalk', greeting: 'hello' });
    expect(classifyIntent('Good morning!')).to.deep.equal({ kind: 'smalltalk', greeting: 'hello' });
    expect(classifyIntent('thank you very much')).to.deep.equal({ kind: 'smalltalk', greeting: 'thanks' });
    expect(classifyIntent('bye')).to.deep.equal({ kind: 'smalltalk', greeting: 'bye' });
    for (const ack of ['ok', 'Okay.', 'got it', '👍', 'sounds good!', 'haha', 'lol', 'yes', 'no', 'nice one!', '😂']) expect(classifyIntent(ack), ack).to.deep.equal({ kind: 'smalltalk', greeting: 'ack' });
    for (const bye of ['good night', 'goodnight!', 'see you tomorrow']) expect(classifyIntent(bye), bye).to.deep.equal({ kind: 'smalltalk', greeting: 'bye' });
    expect(classifyIntent('ok, I\'ll do it').kind).to.not.equal('smalltalk');
    expect(classifyIntent('hello, what is 2+2?').kind).to.equal('ask');
    for (const who of ['who are you?', 'What are you', 'what is Parley?', 'introduce yourself']) expect(classifyIntent(who), who).to.deep.equal({ kind: 'smalltalk', greeting: 'who' });
    expect(classifyIntent('who are you talking to?').kind, 'not about Parley').to.equal('ask');
    expect(briefText('who', [])).to.equal("I'm Parley, an assistant backed by a team of specialists: each question goes to the one that knows the answer, and meetings go to everyone's calendar. Say \"help\" to see everything I can do.");
  });

  it('"tell me a joke" gets one, and asking again another; "how are you?" an answer (each got "I can\'t help")', () => {
    for (const q of ['tell me a joke', 'Tell me a joke!', 'can you tell me a joke?', 'another joke', 'joke', 'give me one more joke please', 'make me laugh', 'do you know any jokes?']) {
      expect(classifyIntent(q), q).to.deep.equal({ kind: 'smalltalk', greeting: 'joke' });
    }
    for (const q of ['how are you?', "how's it going", 'how are you doing today?', "what's up?"]) expect(classifyIntent(q), q).to.deep.equal({ kind: 'smalltalk', greeting: 'how' });
    expect(classifyIntent('tell me a joke about quantum physics in German').kind, 'not one of ours: an expert may know').to.equal('ask');
    expect(classifyIntent('how are you computing that?').kind).to.equal('ask');
    const jokes = new Set(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].map((seed) => briefText('joke', [], `urn:uuid:${seed}`)));
    expect(jokes.size, 'different lines, different jokes').to.be.greaterThan(3);
    for (const j of jokes) expect(j).to.match(/[.?!"] Say "another joke" for one more, or "help" to see what I can do\.$/);
    expect(briefText('joke', [], 'urn:uuid:x'), 'the same line, the same joke (a resend is answered alike)').to.equal(briefText('joke', [], 'urn:uuid:x'));
    expect(briefText('how', [])).to.match(/^I'm fine, thank you: every specialist is at work\. /);
  });

  it('every command has a plain-word form, and the slash forms stay aliases', () => {
    for (const [plain, slash] of [['tz Europe/Berlin', '/tz Europe/Berlin'], ['tz', '/tz'], ['cancel', '/cancel'],
      ['meet 30m bob 2026-12-10T09:00Z..2026-12-10T12:00Z', '/meet 30m bob 2026-12-10T09:00Z..2026-12-10T12:00Z'],
      ['assign bob 2026-12-11T17:00Z Q1 report', '/assign bob 2026-12-11T17:00Z Q1 report']] as const) {
      const a = classifyIntent(plain, NOW);
      expect(a.kind, plain).to.equal('scheduling');
      expect(a, plain).to.deep.equal(classifyIntent(slash, NOW));
    }
    expect(classifyIntent('meet 30m', NOW)).to.deep.include({ kind: 'scheduling' });
    expect(JSON.stringify(classifyIntent('meet 30m', NOW))).to.contain('usage: meet ');
  });

  it('plan: a part nobody answered is said in words, its code kept apart', () => {
    expect(whyNot('delegate_task: the Coordinator answered FAILURE NO_CANDIDATE: I can\'t help with that one. Say "help".'))
      .to.deep.equal({ reason: 'no specialist here answers that kind of question', code: 'NO_CANDIDATE' });
    // A fallback that says why: its sentence, without the pointer to "help".
    expect(whyNot('delegate_task: the Coordinator answered FAILURE NO_CANDIDATE: I work offline, without the internet, so I don\'t know today\'s exchange rates. Say "help" to see everything I can do.'))
      .to.deep.equal({ reason: "I work offline, without the internet, so I don't know today's exchange rates", code: 'NO_CANDIDATE' });
    expect(whyNot('INTERNAL_ERROR: delegate_task: the Coordinator answered FAILURE INVALID_ARGS: only 1..3999.')).to.deep.equal({ reason: 'only 1..3999', code: 'INVALID_ARGS' });
  });
});

describe('Coordinator [compound] a question of several parts answered by a single-part skill', () => {
  it('gets a line saying only part was answered, listing the parts; not when plan or llm answered, nor for one part', () => {
    expect(partialAnswerNote('answer both: what is 17 * 23; what time is it in Tokyo?', 'time', 'specialist-time')).to.equal(
      'Only part of your question was answered: it has 2 parts, specialist-time answered it as one question, and no planner is online to answer the parts together. Ask them one at a time: "what is 17 * 23", "what time is it in Tokyo".');
    expect(partialAnswerNote('answer both: what is 17 * 23; what time is it in Tokyo?', 'plan', 'specialist-planner')).to.equal(undefined);
    expect(partialAnswerNote('do all: a thing; another thing', 'llm', 'specialist-assistant')).to.equal(undefined);
    expect(partialAnswerNote('what time is it in Tokyo?', 'time', 'specialist-time')).to.equal(undefined);
    expect(partialAnswerNote('answer both: only one part', 'time', 'specialist-time')).to.equal(undefined);
    // Questions one after another in one line are parts too; one question with a "?" inside is not.
    expect(partialAnswerNote('what is 2+2? and what time is it in Tokyo?', 'time', 'specialist-time')).to.equal(
      'Only part of your question was answered: it has 2 parts, specialist-time answered it as one question, and no planner is online to answer the parts together. Ask them one at a time: "what is 2+2", "what time is it in Tokyo".');
    expect(partialAnswerNote('is it "x?" or not?', 'time', 'specialist-time')).to.equal(undefined);
    expect(partialAnswerNote('what is 2+2? I need it now', 'arithmetic', 'specialist-math')).to.equal(undefined);
    // Joined by "and" before a question word: two parts; a skill that answered both (meta.parts) gets no note.
    expect(partialAnswerNote('what is 3 + 4 and what time is it in Tokyo?', 'time', 'specialist-time')).to.equal(
      'Only part of your question was answered: it has 2 parts, specialist-time answered it as one question, and no planner is online to answer the parts together. Ask them one at a time: "what is 3 + 4", "what time is it in Tokyo".');
    expect(partialAnswerNote('what is 10 km in miles and what is 5 kg in lb?', 'arithmetic', 'specialist-math', 2)).to.equal(undefined);
    for (const one of ['what is the difference between Tokyo and London?', 'how many days between 2026-01-01 and 2026-12-31?', 'what is the average of 3, 5 and 10?', 'is bob and carol free?']) {
      expect(partialAnswerNote(one, 'time', 'specialist-time'), one).to.equal(undefined);
    }
    // A specialist that does not say which skill answered (an older one) counts as single-part.
    expect(partialAnswerNote('plan: x = 1; y = 2', undefined, 'specialist-x')).to.match(/^Only part of your question was answered: it has 2 parts/);
  });
});

describe('Coordinator [fallback] a question nobody takes says what it was near', () => {
  it('reminders (none), the weather (offline), meetings and tasks (the words to use); anything else the examples', () => {
    const tail = ' Say "help" to see everything I can do.';
    expect(fallbackText(['what is 17 * 23?'], 'remind me to call mom at 5pm')).to.match(/^I can't set reminders\. I can book a meeting .+\("assign 'Q1 report' to bob by Friday"\)\. Say "help"/);
    expect(fallbackText([], "what's the weather in Paris?")).to.equal(`I work offline, without the internet, so I can't look up the weather, news or prices.${tail}`);
    expect(fallbackText([], 'move my appointment please')).to.match(/^For meetings, say e\.g\. "schedule 30 min with bob tomorrow afternoon"/);
    expect(fallbackText([], 'show my todo list')).to.match(/^For tasks, say e\.g\. "assign 'Q1 report' to bob by Friday" or "my tasks"\./);
    // Money needs today's rates; general knowledge has nobody here: each says why instead of "I can't help".
    for (const q of ['convert 100 usd to eur', 'how much is $50 in pounds?', 'what is 20 euros in yen']) {
      expect(fallbackText([], q), q).to.equal(`I work offline, without the internet, so I don't know today's exchange rates.${tail}`);
    }
    for (const q of ['what is the capital of France?', 'who is the president of France?', 'who invented the telephone?', 'when was Mozart born?']) {
      expect(fallbackText([], q), q).to.equal(`I have no encyclopaedia: my specialists know maths, time and dates, word definitions and your calendars.${tail}`);
    }
    expect(fallbackText([], 'who is free tomorrow?'), 'a question about people here').to.not.contain('encyclopaedia');
    expect(fallbackText([], 'decline the meeting with alice')).to.match(/^Your calendar answers invitations for you: it accepts one when you are free then\. If you can't make a meeting someone else booked, say e\.g\. "I can't make the meeting on monday" and I tell them/);
    expect(fallbackText([], 'who is in my meeting tomorrow?')).to.match(/^For meetings, say/);
    for (const q of ['what is the best book?', 'write me a poem']) {
      expect(fallbackText(['what is 17 * 23?'], q), q).to.equal(`I can't help with that one. Try e.g. "what is 17 * 23?".${tail}`);
    }
    // Through the expert flow's end: every specialist refused OUT_OF_SCOPE.
    const refused = [{ candidate: 'specialist-math', outcome: 'refused', reason: 'OUT_OF_SCOPE' }] as Parameters<typeof exhausted>[0];
    expect(exhausted(refused, { agreeTimeoutMs: 3000, resultTimeoutMs: 30000 }, 'set an alarm for 7').detail).to.match(/^I can't set reminders\./);
  });
});

describe('CLI [text] descriptions are not cut mid-word', () => {
  it('clips at a word boundary with an ellipsis, and leaves short text alone', () => {
    expect(clipWords('Splits a request of several parts and delegates each part through the Coordinator', 40)).to.equal('Splits a request of several parts and…');
    expect(clipWords('short', 40)).to.equal('short');
    expect(clipWords('x'.repeat(50), 10)).to.equal(`${'x'.repeat(9)}…`);
  });
});

describe('Presenter [files] .ics attachments on loopback', () => {
  it('serves a stored file at its unguessable URL and nothing else (wrong id, traversal, listing, POST)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-files-'));
    const files = await startFileServer(dir, '127.0.0.1', 0);
    try {
      const url = files.put('invitation.ics', 'BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n');
      expect(url).to.match(/^http:\/\/127\.0\.0\.1:\d+\/files\/[0-9a-f]{32}\/invitation\.ics$/);
      const ok = await fetch(url);
      expect(ok.status).to.equal(200);
      expect(ok.headers.get('content-type')).to.match(/^text\/calendar/);
      expect(await ok.text()).to.contain('BEGIN:VCALENDAR');
      const base = url.replace(/\/files\/.*$/, '');
      for (const p of ['/files/00000000000000000000000000000000/invitation.ics', '/files/', '/', '/files/../secrets/accounts.json', '/files/%2e%2e/x.ics']) {
        expect((await fetch(base + p)).status, p).to.equal(404);
      }
      expect((await fetch(url, { method: 'POST' })).status).to.equal(405);
      expect(fs.statSync(dir).mode & 0o077).to.equal(0);
    } finally {
      await files.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('Presenter [upload] XEP-0363 slots', () => {
  it('takes the put and get URLs and only the headers XEP-0363 §5 allows on the PUT (no Host, no line breaks)', () => {
    const result = xml('iq', { type: 'result' }, xml('slot', { xmlns: NS_UPLOAD },
      xml('put', { url: 'https://10.0.0.1:5443/upload/ab/cd/invitation.ics' },
        xml('header', { name: 'Authorization' }, 'Basic x\r\nX-Evil: 1'), xml('header', { name: 'Host' }, 'evil.example'), xml('header', { name: 'Expires' }, 'never')),
      xml('get', { url: 'https://10.0.0.1:5443/upload/ab/cd/invitation.ics' })));
    expect(slotOf(result)).to.deep.equal({
      put: 'https://10.0.0.1:5443/upload/ab/cd/invitation.ics', get: 'https://10.0.0.1:5443/upload/ab/cd/invitation.ics',
      headers: { Authorization: 'Basic xX-Evil: 1', Expires: 'never' },
    });
    expect(() => slotOf(xml('iq', { type: 'result' }, xml('slot', { xmlns: NS_UPLOAD }, xml('put', { url: 'file:///etc/passwd' }), xml('get', { url: 'javascript:x' }))))).to.throw(/http\(s\)/);
    expect(() => slotOf(xml('iq', { type: 'result' }))).to.throw();
  });
});

describe('Supervisor [give up] a specialist that keeps failing at start', () => {
  it('is restarted with back-off, then stopped after maxFailedStarts and reported as failed', async function () {
    this.timeout(20000);
    const logsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-giveup-'));
    const child = new ManagedChild(
      { name: 'specialist-broken', kind: 'specialist', command: process.execPath, args: ['-e', 'console.error("error: unknown skill \\"gone\\""); process.exit(3)'], readyOn: 'registered' },
      { env: process.env, logsDir, backoff: { minMs: 10, maxMs: 40, resetAfterMs: 60000, maxFailedStarts: 3 } },
    );
    const errors: string[] = [];
    child.on('error', (m) => errors.push(m));
    child.start();
    await until(async () => child.status === 'failed', 'status failed', 15000, 20);
    expect(child.info()).to.include({ status: 'failed', restarts: 2, pid: null, last_error: 'error: unknown skill "gone"' });
    // Reported with its reason (the last line it wrote to stderr), not just "see the log".
    expect(errors.at(-1)).to.equal('specialist-broken failed to start 3 times in a row; not restarting it: error: unknown skill "gone" (log: logs/specialist-broken.log)');
    // Asserts that nothing happens: it stays down (a restart would come within the 40 ms back-off cap).
    await new Promise((r) => setTimeout(r, 200));
    expect(child.info().restarts).to.equal(2);
    fs.rmSync(logsDir, { recursive: true, force: true });
  });

  it('a spawn waiting for it to be ready is told at once that it gave up, with the reason (not after the ready timeout)', async function () {
    this.timeout(20000);
    const logsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-giveup-'));
    const sup = new Supervisor({ env: process.env, logsDir, say: () => undefined, backoff: { minMs: 10, maxMs: 40, resetAfterMs: 60000, maxFailedStarts: 3 } });
    try {
      sup.add({ name: 'specialist-broken', kind: 'specialist', command: process.execPath, args: ['-e', 'console.error("error: no such role"); process.exit(1)'], readyOn: 'registered' });
      const t0 = Date.now();
      const err = await sup.whenReady(['specialist-broken'], 15000).then(() => undefined, (e: Error) => e);
      expect(err).to.be.instanceOf(FailedToStart);
      expect(err?.message).to.equal('specialist-broken failed to start (error: no such role) and is not restarted; see logs/specialist-broken.log');
      expect(Date.now() - t0).to.be.below(10000);
    } finally {
      await sup.stopAll();
      fs.rmSync(logsDir, { recursive: true, force: true });
    }
  });
});

describe('Presenter [ad-hoc] XEP-0050 commands with XEP-0004 forms', () => {
  const FROM = 'alice@localhost/gajim';
  const deps = (ran: string[], allowed = true) => ({
    self: () => 'presenter@localhost/agent', now: () => 1000, allowed: () => allowed,
    run: async (_from: string, text: string) => { ran.push(text); return `ok: ${text}`; },
  });
  const cmd = (node: string, attrs: Record<string, string> = {}, ...children: ReturnType<typeof xml>[]) => xml('command', { xmlns: NS_COMMANDS, node, ...attrs }, ...children);
  const submit = (values: Record<string, string>) => xml('x', { xmlns: NS_DATA, type: 'submit' }, ...Object.entries(values).map(([k, v]) => xml('field', { var: k }, xml('value', {}, v))));

  it('execute → a form; submit → the plain-word chat command, answered in the note', async () => {
    const ran: string[] = [];
    const sessions = new AdhocSessions();
    const form = await handleCommand(cmd('meet'), FROM, sessions, deps(ran));
    expect(form.attrs).to.include({ status: 'executing', node: 'meet' });
    expect(form.getChild('x', NS_DATA)?.getChildren('field').map((f) => f.attrs.var)).to.deep.equal(['with', 'minutes', 'when', 'room']);
    const done = await handleCommand(cmd('meet', { sessionid: String(form.attrs.sessionid), action: 'complete' }, submit({ with: 'bob, carol?', minutes: '45', when: 'friday afternoon', room: '1' })), FROM, sessions, deps(ran));
    expect(ran).to.deep.equal(['schedule 45 min with bob and carol? friday afternoon in a room']);
    expect(done.attrs.status).to.equal('completed');
    expect(done.getChildText('note')).to.equal('ok: schedule 45 min with bob and carol? friday afternoon in a room');
  });

  it('a session belongs to who started it, is used once, and an unknown node or a stranger is refused', async () => {
    const ran: string[] = [];
    const sessions = new AdhocSessions();
    const form = await handleCommand(cmd('tz'), FROM, sessions, deps(ran));
    const sid = String(form.attrs.sessionid);
    const stolen = await handleCommand(cmd('tz', { sessionid: sid, action: 'complete' }, submit({ zone: 'UTC' })), 'mallory@localhost/x', sessions, deps(ran));
    expect(stolen.name).to.equal('error');
    const ok = await handleCommand(cmd('tz', { sessionid: sid, action: 'complete' }, submit({ zone: 'UTC' })), FROM, sessions, deps(ran));
    expect(ok.attrs.status).to.equal('completed');
    const again = await handleCommand(cmd('tz', { sessionid: sid, action: 'complete' }, submit({ zone: 'UTC' })), FROM, sessions, deps(ran));
    expect(again.name).to.equal('error');
    expect(ran).to.deep.equal(['tz UTC']);
    expect((await handleCommand(cmd('rm-rf'), FROM, sessions, deps(ran))).getChild('item-not-found')).to.not.equal(undefined);
    expect((await handleCommand(cmd('tz'), FROM, sessions, deps(ran, false))).getChild('forbidden')).to.not.equal(undefined);
  });

  it('an action XEP-0050 does not define is malformed-action, next/prev on a one-form command bad-action (§4.6); nothing runs', async () => {
    const ran: string[] = [];
    const sessions = new AdhocSessions();
    const bogus = await handleCommand(cmd('tz', { action: 'explode' }), FROM, sessions, deps(ran));
    expect(bogus.name).to.equal('error');
    expect(bogus.getChild('bad-request')).to.not.equal(undefined);
    expect(bogus.getChild('malformed-action', NS_COMMANDS)).to.not.equal(undefined);
    const form = await handleCommand(cmd('tz'), FROM, sessions, deps(ran));
    const next = await handleCommand(cmd('tz', { sessionid: String(form.attrs.sessionid), action: 'next' }, submit({ zone: 'UTC' })), FROM, sessions, deps(ran));
    expect(next.getChild('bad-action', NS_COMMANDS)).to.not.equal(undefined);
    expect(ran).to.deep.equal([]);
    // The session is still open: completing it works.
    const ok = await handleCommand(cmd('tz', { sessionid: String(form.attrs.sessionid), action: 'complete' }, submit({ zone: 'UTC' })), FROM, sessions, deps(ran));
    expect(ok.attrs.status).to.equal('completed');
  });

  it('"My meetings and tasks": the choice becomes "my meetings", "my tasks" or "agenda"', async () => {
    for (const [show, line] of [['meetings', 'my meetings'], ['tasks', 'my tasks'], ['meetings and tasks', 'agenda']]) {
      const ran: string[] = [];
      const sessions = new AdhocSessions();
      const form = await handleCommand(cmd('agenda'), FROM, sessions, deps(ran));
      await handleCommand(cmd('agenda', { sessionid: String(form.attrs.sessionid), action: 'complete' }, submit({ show: show as string })), FROM, sessions, deps(ran));
      expect(ran).to.deep.equal([line]);
    }
  });

  it('one account opening forms in a loop never closes another person\'s open form (attack)', async () => {
    const ran: string[] = [];
    const sessions = new AdhocSessions(10 * 60 * 1000, 20, 8);
    const alice = await handleCommand(cmd('tz'), FROM, sessions, deps(ran));
    const mallory = 'mallory@localhost/loop';
    const opened: string[] = [];
    for (let i = 0; i < 100; i += 1) opened.push(String((await handleCommand(cmd('tz'), mallory, sessions, deps(ran))).attrs.sessionid));
    // Mallory keeps her 8 newest; her first ones gave way to them, not anybody else's.
    const first = await handleCommand(cmd('tz', { sessionid: opened[0] as string, action: 'complete' }, submit({ zone: 'UTC' })), mallory, sessions, deps(ran));
    expect(first.name).to.equal('error');
    const last = await handleCommand(cmd('tz', { sessionid: opened[99] as string, action: 'complete' }, submit({ zone: 'UTC' })), mallory, sessions, deps(ran));
    expect(last.attrs.status).to.equal('completed');
    const ok = await handleCommand(cmd('tz', { sessionid: String(alice.attrs.sessionid), action: 'complete' }, submit({ zone: 'Europe/Berlin' })), FROM, sessions, deps(ran));
    expect(ok.attrs.status).to.equal('completed');
    // Many accounts filling every slot: a new form is refused (resource-constraint), none is closed.
    const full = new AdhocSessions(10 * 60 * 1000, 3, 8);
    const held = [];
    for (const who of ['a@localhost/x', 'b@localhost/x', 'c@localhost/x']) held.push(await handleCommand(cmd('tz'), who, full, deps(ran)));
    const refused = await handleCommand(cmd('tz'), 'd@localhost/x', full, deps(ran));
    expect(refused.getChild('resource-constraint')).to.not.equal(undefined);
    const stillOpen = await handleCommand(cmd('tz', { sessionid: String(held[0]?.attrs.sessionid), action: 'complete' }, submit({ zone: 'UTC' })), 'a@localhost/x', full, deps(ran));
    expect(stillOpen.attrs.status).to.equal('completed');
  });

  it('a value that would smuggle another command or a second line is refused or flattened', async () => {
    const ran: string[] = [];
    const sessions = new AdhocSessions();
    const form = await handleCommand(cmd('assign'), FROM, sessions, deps(ran));
    const bad = await handleCommand(cmd('assign', { sessionid: String(form.attrs.sessionid), action: 'complete' }, submit({ title: "x' to eve by now\nsession delete", to: 'bob; rm', by: 'Friday' })), FROM, sessions, deps(ran));
    expect(bad.attrs.status).to.equal('executing');
    expect(bad.getChildText('note')).to.match(/Assign to/);
    expect(ran).to.deep.equal([]);
    const form2 = await handleCommand(cmd('assign'), FROM, sessions, deps(ran));
    await handleCommand(cmd('assign', { sessionid: String(form2.attrs.sessionid), action: 'complete' }, submit({ title: "x' to eve\nsession delete", to: 'bob', by: 'Friday' })), FROM, sessions, deps(ran));
    expect(ran).to.deep.equal(["assign 'x’ to eve session delete' to bob by Friday"]);
  });
});

describe('Presenter [choices] a choice asked as a form, answered by submitting it', () => {
  it('rich.choices → a list-single form; a submitted form → the chat line; anything else → nothing', () => {
    expect(choicesOf({ choices: [{ label: 'Accept', say: 'accept' }, { label: 7, say: 'x' }, { label: 'Empty', say: ' ' }] })).to.deep.equal([{ label: 'Accept', say: 'accept' }]);
    expect(choicesOf({})).to.equal(undefined);
    const form = choiceForm([{ label: 'Accept', say: 'accept' }, { label: 'Decline', say: 'decline' }]);
    expect(form.attrs).to.include({ xmlns: NS_DATA, type: 'form' });
    expect(form.getChildren('field').find((f) => f.attrs.var === 'say')?.getChildren('option').map((o) => o.getChildText('value'))).to.deep.equal(['accept', 'decline']);
    const submit = (formType: string, say: string) => xml('message', { type: 'chat' }, xml('x', { xmlns: NS_DATA, type: 'submit' },
      xml('field', { var: 'FORM_TYPE' }, xml('value', {}, formType)), xml('field', { var: 'say' }, xml('value', {}, say))));
    expect(submittedChoice(submit(CHOICE_FORM_TYPE, 'accept'))).to.equal('accept');
    expect(submittedChoice(submit(CHOICE_FORM_TYPE, 'line one\nline two'))).to.equal('line one line two');
    expect(submittedChoice(submit('urn:other', 'accept'))).to.equal(undefined);
    expect(submittedChoice(xml('message', {}, xml('body', {}, 'accept')))).to.equal(undefined);
  });

  it('the pipeline passes a person\'s body-less form submit to the Presenter as chat, and nothing else without a body', () => {
    const ctx = { domain: 'localhost', self: { name: 'Presenter', jid: 'presenter@localhost' }, readsChat: true } as unknown as Parameters<typeof classify>[1];
    const msg = (stanza: ReturnType<typeof xml>, from = 'alice@localhost/gajim') =>
      ({ from, fromBare: from.split('/')[0], to: 'presenter@localhost', toBare: 'presenter@localhost', type: 'chat', delayed: false, stanza, receivedAt: 0 }) as Parameters<typeof classify>[0];
    const form = xml('message', { type: 'chat' }, xml('x', { xmlns: NS_DATA, type: 'submit' }));
    expect(classify(msg(form), ctx).action).to.equal('chat');
    expect(classify(msg(xml('message', { type: 'chat' })), ctx).action).to.equal('ignore');
    expect(classify(msg(form, 'specialist-math@localhost/parley'), ctx).action).to.equal('ignore');
  });
});
